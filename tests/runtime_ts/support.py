"""Helpers of the TypeScript runtime's tests: where `runtime-ts/dist` and node are, and how
to run a Node script of `js/` with a bound on its time."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

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
        reason = "; ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(reason + " — CI must build it", pytrace=False)
        pytest.skip(reason)
    assert node is not None
    return node


def python_env() -> dict[str, str]:
    """The environment of a Python child: the committed `generated/` package importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "generated"), *filter(None, [env.get("PYTHONPATH")])]
    )
    return env


def run_node(node: str, script: str, *args: str, flags: tuple[str, ...] = ()) -> dict[str, Any]:
    """Runs `js/<script>` (node given `flags`) and returns the JSON object it prints last on
    stdout."""
    done = subprocess.run(
        [node, *flags, str(JS / script), *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=python_env(),
        cwd=REPO,
    )
    assert done.returncode == 0, f"{script} failed ({done.returncode}):\n{done.stderr}"
    lines = done.stdout.strip().splitlines()
    assert lines, f"{script} printed nothing:\n{done.stderr}"
    result: dict[str, Any] = json.loads(lines[-1])
    return result
