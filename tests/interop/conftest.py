"""Fixtures of the interop tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import Workspace, make_workspace, require_node_modules


@pytest.fixture
def node_modules() -> None:
    require_node_modules()


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return make_workspace(tmp_path)
