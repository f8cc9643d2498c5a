"""The `node --test` unit tests of runtime-ts (tests/runtime_ts/js/unit): the JSON reader and
writer (bigints), framing and the id of unreadable lines, the ordered worker."""

from __future__ import annotations

import subprocess

import pytest

from tests.runtime_ts.support import JS, REPO, TIMEOUT

UNITS = sorted((JS / "unit").glob("*.test.mjs"))


@pytest.mark.parametrize("unit", UNITS, ids=[unit.stem for unit in UNITS])
def test_unit(node: str, unit: object) -> None:
    done = subprocess.run(
        [node, "--test", str(unit)], capture_output=True, text=True, timeout=TIMEOUT, cwd=REPO
    )
    assert done.returncode == 0, done.stdout + done.stderr
