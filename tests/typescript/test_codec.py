"""The runtime's codec (runtime-ts/src/codec), tested by its own `node --test` files
(runtime-ts/test/*.test.mjs) against the runtime built from the sources (`npm test` runs
them in runtime-ts itself)."""

from __future__ import annotations

import subprocess

from .support import Tools


def test_codec_node_tests_pass(runtime: Tools) -> None:
    done = subprocess.run(
        [runtime.node, "--test", "test/"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=runtime.runtime,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout
