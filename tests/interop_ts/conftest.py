"""Every test here needs node and the built runtime; the seeds' TypeScript and the Node
examples are built once per session (tests/interop_ts/support.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.interop_ts.support import build
from tests.runtime_ts.support import require_runtime


@pytest.fixture(scope="session")
def node() -> str:
    return require_runtime()


@pytest.fixture(scope="session")
def dist(node: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built JavaScript: quixos_server.js, quixos_client.js, hooks_server.js,
    probe_client.js and quixos_agent/."""
    return build(tmp_path_factory.mktemp("ts"))
