"""Fixtures of the interop tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import built_once

from .support import (
    Workspace,
    make_official_python_1,
    make_workspace,
    official_python_in,
    require_node_modules,
)


@pytest.fixture
def node_modules() -> None:
    require_node_modules()


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return make_workspace(tmp_path)


@pytest.fixture(scope="session")
def official_python_1(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The interpreter of a fresh virtual environment with agent-client-protocol 1.0.0rc3, one
    for all xdist workers (the tests only run programs in it)."""
    return str(
        official_python_in(built_once(tmp_path_factory, "acp-sdk-1", make_official_python_1))
    )
