"""Fixtures of the interop tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import Workspace, make_official_python_1, make_workspace, require_node_modules


@pytest.fixture
def node_modules() -> None:
    require_node_modules()


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return make_workspace(tmp_path)


@pytest.fixture(scope="session")
def official_python_1(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The interpreter of a fresh virtual environment with agent-client-protocol 1.0.0rc3."""
    return make_official_python_1(tmp_path_factory.mktemp("acp-sdk-1"))
