"""Helpers of the TypeScript runtime's tests: where `runtime-ts/dist` and node are, and how
to run a Node script of `js/` with a bound on its time."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from tests.conftest import unavailable

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RUNTIME_TS = REPO / "runtime-ts"
DIST = RUNTIME_TS / "dist"
JS = HERE / "js"
PYTHON = sys.executable
#: Every process a test starts is bounded by this (seconds).
TIMEOUT = 60.0


def require_runtime() -> str:
    """The path of node, with runtime-ts built. Skips on a developer machine without
    `runtime-ts/node_modules` (or node); fails under CI, which must build it
    (`npm ci --prefix runtime-ts && npm run build --prefix runtime-ts`)."""
    node = shutil.which("node")
    missing = []
    if node is None:
        missing.append("node is not on PATH")
    if not (RUNTIME_TS / "node_modules").is_dir():
        missing.append(
            f"{RUNTIME_TS / 'node_modules'} is missing (run: npm ci --prefix runtime-ts)"
        )
    elif not (DIST / "node" / "index.js").is_file():
        missing.append(f"{DIST} is not built (run: npm run build --prefix runtime-ts)")
    if missing:
        unavailable("; ".join(missing), "build it")
    assert node is not None
    return node


def python_env() -> dict[str, str]:
    """The environment of a Python child: the committed `generated/` package importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "generated"), *filter(None, [env.get("PYTHONPATH")])]
    )
    return env


def run_node(
    node: str, script: str | Path, *args: str, flags: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Runs `script` (a name of `js/`, or a path) with node given `flags` and returns the
    JSON object it prints last on stdout."""
    script = JS / script if isinstance(script, str) else script
    done = subprocess.run(
        [node, *flags, str(script), *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=python_env(),
        cwd=REPO,
    )
    assert done.returncode == 0, f"{script.name} failed ({done.returncode}):\n{done.stderr}"
    lines = done.stdout.strip().splitlines()
    assert lines, f"{script.name} printed nothing:\n{done.stderr}"
    result: dict[str, Any] = json.loads(lines[-1])
    return result


#: A bound on each wait of a server's start and end (seconds).
STEP = 15.0


@asynccontextmanager
async def ws_server(*argv: str) -> AsyncIterator[str]:
    """A Node server `argv` that prints `listening on ws://…` on stderr once it listens on
    127.0.0.1: its URL; terminated (killed if it does not stop) at the end."""
    process = await asyncio.create_subprocess_exec(*argv, stderr=asyncio.subprocess.PIPE)
    assert process.stderr is not None
    drain: asyncio.Task[bytes] | None = None
    try:
        line = await asyncio.wait_for(process.stderr.readline(), STEP)
        found = re.search(rb"listening on (ws://\S+)", line)
        assert found, f"the server did not listen: {line!r}"
        drain = asyncio.ensure_future(process.stderr.read())  # never lets the pipe fill
        yield found.group(1).decode()
    finally:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), STEP)
        except TimeoutError:
            process.kill()
            await process.wait()
        if drain is not None:
            await drain
