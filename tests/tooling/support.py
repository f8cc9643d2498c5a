"""Helpers shared by the tooling tests: where the checkout is, git with an identity, fresh
virtual environments, and programs of a fresh environment run without this checkout on their
path."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "idlc tests",
    "GIT_AUTHOR_EMAIL": "tests@example.com",
    "GIT_COMMITTER_NAME": "idlc tests",
    "GIT_COMMITTER_EMAIL": "tests@example.com",
}


def git(cwd: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_IDENTITY},
        check=False,
    )
    assert result.returncode == 0, f"git {' '.join(args)}: {result.stderr}"
    return result.stdout


def run_installed(
    *args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a program of an installed environment. Never with this checkout's PYTHONPATH:
    only what is installed in the environment counts."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [str(arg) for arg in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**environment, **(env or {})},
    )


def fresh_environment(folder: Path) -> Path:
    """A new, empty virtual environment in `folder` (its python returned), without pip: putting
    pip into each one takes seconds. `pip_in` runs pip for it."""
    venv.create(folder, with_pip=False, system_site_packages=False)
    return folder / "bin" / "python"


def pip_in(
    python: Path, *args: str | Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`pip ARGS` run in the environment of `python` (a `fresh_environment`): this test
    environment's pip (the one `python -m venv` put there) run by that environment's own
    interpreter on its own site-packages (`pip --python`), so that what resolves, builds and
    installs is what the environment's own `pip` would do."""
    return run_installed(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "--disable-pip-version-check",
        *args,
        cwd=cwd,
    )
