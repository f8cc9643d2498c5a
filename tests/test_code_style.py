"""The project's own code keeps its style: black (line length 100) and ruff, as configured in
pyproject.toml. Generated code is left out there: idlc formats it itself."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=300
    )


def test_black_would_change_nothing() -> None:
    result = run("black", "--check", "--quiet", ".")
    assert result.returncode == 0, result.stderr or "black would reformat files (run `black .`)"


def test_ruff_finds_nothing() -> None:
    result = run("ruff", "check", "--quiet", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr
