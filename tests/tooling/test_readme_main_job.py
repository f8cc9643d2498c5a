"""The README's first set-up command, run exactly as written in a copy of this checkout: it
installs idlc from source into a fresh environment, generates the seeds and runs the
walkthrough against the generated package.

Slow: installs idlc, idlc-runtime and their dependencies from the package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_readme import _readme_commands

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell and venv layout"),
]


def test_the_first_command_generates_and_runs_the_seeds(
    checkout_snapshot: Path, tmp_path: Path
) -> None:
    install, _ = _readme_commands()
    checkout = tmp_path / "checkout"
    shutil.copytree(
        checkout_snapshot, checkout, ignore=shutil.ignore_patterns(".git", ".venv", "build")
    )
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    finished = subprocess.run(
        ["bash", "-c", install],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=900,
        env=environment,
    )
    assert finished.returncode == 0, finished.stdout[-3000:] + finished.stderr[-3000:]
    assert "build/quixos_agent: 6 written" in finished.stdout + finished.stderr
    assert (checkout / "build" / "quixos_agent" / "agent_directory.py").is_file()
    assert "AgentAdmission(accepted=True" in finished.stdout
