"""The `node --test` unit tests of runtime-ts (tests/runtime_ts/js/unit): the JSON reader and
writer (bigints), framing and the id of unreadable lines, the ordered worker, the peer over
memory and over child processes."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.runtime_ts.support import DIST, JS, REPO, TIMEOUT

UNITS = sorted((JS / "unit").glob("*.test.mjs"))


@pytest.mark.parametrize("unit", UNITS, ids=[unit.stem for unit in UNITS])
def test_unit(node: str, unit: object) -> None:
    done = subprocess.run(
        [node, "--test", str(unit)], capture_output=True, text=True, timeout=TIMEOUT, cwd=REPO
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_root_entry_imports_nothing_of_node(node: str) -> None:
    """`@idlc/runtime` runs in a browser: what its modules import (dist/*.js, not dist/node)
    is only each other, never `node:*` or `ws`, which only `@idlc/runtime/node` brings."""
    imports = re.compile(
        r"""(?:^|\s)(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(["']([^"']+)"""
    )
    for module in sorted(DIST.glob("*.js")):
        for found in imports.finditer(module.read_text(encoding="utf-8")):
            target = found.group(1) or found.group(2)
            assert target.startswith("./") and "/node/" not in target, (module.name, target)
