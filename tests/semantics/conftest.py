from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _run_from_repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Display paths are relative to the working folder; keep them stable in snapshots."""
    monkeypatch.chdir(ROOT)
