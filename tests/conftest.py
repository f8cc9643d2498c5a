"""Test helpers for every folder: where the repository and its IDL inputs are."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

REPO = Path(__file__).resolve().parent.parent
SEEDS = (
    REPO / "idl" / "quixos" / "agent_directory.idl",
    REPO / "idl" / "quixos" / "agent_request.idl",
)


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """The folder `name`, filled by `build` once per test run and shared by every xdist
    worker (a wheel, a virtual environment): the first worker to get the lock builds it,
    the others wait and reuse it. Without xdist it is the session's own folder."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's own
    folder = base / name
    done = base / f"{name}.done"
    with FileLock(str(base / f"{name}.lock")):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build a failed worker left
            folder.mkdir()
            build(folder)
            done.write_text("", encoding="utf-8")
    return folder
