"""Fixtures for the tooling tests: a committed snapshot of this checkout (what pre-commit
and pip install idlc from) and a shared PRE_COMMIT_HOME."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import built_once
from tests.tooling.support import REPO, git


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: installs packages into fresh environments (still in the default run)"
    )


@pytest.fixture(scope="session")
def checkout_snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's working tree (tracked and untracked, not ignored files) committed in a
    repository of its own: `pre-commit try-repo` needs a committed HEAD, and one fixed commit
    lets every test of the session share one hook environment. One for all xdist workers."""
    return built_once(tmp_path_factory, "idlc-checkout", _snapshot)


def _snapshot(snapshot: Path) -> None:
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = REPO / name
        if not source.is_file():
            continue  # deleted in the working tree
        target = snapshot / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    git(snapshot, "init", "-q")
    git(snapshot, "add", "-A")
    git(snapshot, "commit", "-q", "-m", "snapshot of the idlc checkout under test")


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One pre-commit cache per test run, shared by the xdist workers (pre-commit locks its
    store): idlc's hook environment is installed once."""
    yield built_once(tmp_path_factory, "pre-commit-home", lambda folder: None)


@pytest.fixture(scope="session")
def wheels(checkout_snapshot: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The wheels of the three distributions built from the snapshot, by project name:
    `idlc` (the compiler, the top folder), `idlc-runtime` (runtime/), `idlc-acp` (acp/).
    Built once for all xdist workers."""
    folder = built_once(
        tmp_path_factory, "wheels", lambda folder: _build_wheels(checkout_snapshot, folder)
    )
    found = {wheel.name.split("-")[0].replace("_", "-"): wheel for wheel in folder.glob("*.whl")}
    assert sorted(found) == ["idlc", "idlc-acp", "idlc-runtime"], sorted(found)
    return found


def _build_wheels(checkout_snapshot: Path, folder: Path) -> None:
    for project in (checkout_snapshot, checkout_snapshot / "runtime", checkout_snapshot / "acp"):
        built = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-build-isolation",
                "-q",
                "-w",
                str(folder),
                str(project),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert built.returncode == 0, built.stderr
