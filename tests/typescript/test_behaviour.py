"""The generated seed package at run time: its proxies' params and result decoding, its
skeletons' dispatch tables (behaviour.mjs, `node --test`, against the tsc-compiled package)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .conftest import Node


def test_proxies_and_skeletons_behave(node: Node) -> None:
    project = node.project
    shutil.copy(Path(__file__).with_name("behaviour.mjs"), project / "behaviour.mjs")
    done = subprocess.run(
        [node.executable, "--test", "behaviour.mjs"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout
