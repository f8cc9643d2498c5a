"""Fixtures of the interop tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .support import GENERATED, Workspace, make_workspace, require_node_modules

# The generated ACP package (generated/idlc_acp) is imported by name, as users import it.
if str(GENERATED) not in sys.path:
    sys.path.insert(0, str(GENERATED))


@pytest.fixture
def node_modules() -> None:
    require_node_modules()


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return make_workspace(tmp_path)
