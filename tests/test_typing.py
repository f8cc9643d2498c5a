"""The compiler, the runtime, the ACP layer and the ACP schema converter
(`tools/acp_idl.py`) stay clean under `mypy --strict` (the configuration is `[tool.mypy]`
in pyproject.toml)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_idlc_is_clean_under_mypy_strict(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "MYPY_FORCE_COLOR": "0"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
