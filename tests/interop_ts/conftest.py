"""Every test here needs node and the built runtime; the seeds' TypeScript and the Node
examples are built once per session (tests/interop_ts/support.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from idlc_runtime import spawn
from tests.interop_ts.support import TIMEOUT, build, masked, python_env, python_server
from tests.interop_ts.walk import walk
from tests.runtime_ts.support import require_runtime


@pytest.fixture(scope="session")
def node() -> str:
    return require_runtime()


@pytest.fixture(scope="session")
def dist(node: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built JavaScript: quixos_server.js, quixos_client.js, hooks_server.js,
    probe_client.js and quixos_agent/."""
    return build(tmp_path_factory.mktemp("ts"))


@pytest.fixture(scope="session")
def python_seen() -> dict[str, Any]:
    """The reference: the walk by the Python client, through the generated Python proxies,
    against the Python server over stdio."""

    async def main() -> dict[str, Any]:
        async with spawn(python_server("--quiet"), env=python_env()) as peer:
            return await walk(peer)

    return masked(asyncio.run(asyncio.wait_for(main(), TIMEOUT)))
