"""Review regressions (fail on purpose until fixed): generated headers must not depend on
the folder `idlc generate` ran in, nor name a machine path, when there is no pyproject.toml
(issue #11 item 4; idlc/codegen/provenance.py promises "whatever folder `idlc generate` ran
in"; issue #11 item 5 makes a repository without pyproject.toml a supported setup)."""

from __future__ import annotations

import shutil
from pathlib import Path

from .test_cli import REPO, idlc

FEATURES = REPO / "tests" / "codegen" / "corpus" / "features.idl"


def _repo(tmp_path: Path) -> Path:
    project = tmp_path / "repo"
    (project / "sub").mkdir(parents=True)
    shutil.copy(FEATURES, project / "api.idl")
    return project


def test_without_pyproject_check_from_a_subfolder_stays_green(tmp_path: Path) -> None:
    project = _repo(tmp_path)
    made = idlc("generate", "api.idl", "--out", "gen", "--package", "api", cwd=project)
    assert made.returncode == 0, made.stderr
    # The same files, the same output folder, only run from a subfolder.
    checked = idlc(
        "generate", "../api.idl", "--out", "../gen", "--package", "api", "--check",
        cwd=project / "sub",
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_without_pyproject_headers_name_no_machine_path(tmp_path: Path) -> None:
    project = _repo(tmp_path)
    made = idlc(
        "generate", project / "api.idl", "--out", project / "gen", "--package", "api",
        cwd=Path("/"),
    )
    assert made.returncode == 0, made.stderr
    leaked = str(tmp_path).lstrip("/")
    headers = {p.name: p.read_text() for p in (project / "gen" / "api").glob("*.py")}
    assert not [name for name, text in headers.items() if leaked in text], headers["__init__.py"][:400]
