"""Review regressions (fail on purpose until fixed): generated headers must not depend on
the folder `idlc generate` ran in, nor name a machine path, when there is no pyproject.toml
(issue #11 item 4; idlc/codegen/provenance.py promises "whatever folder `idlc generate` ran
in"; issue #11 item 5 makes a repository without pyproject.toml a supported setup)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
        "generate",
        "../api.idl",
        "--out",
        "../gen",
        "--package",
        "api",
        "--check",
        cwd=project / "sub",
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_without_pyproject_headers_name_no_machine_path(tmp_path: Path) -> None:
    project = _repo(tmp_path)
    made = idlc(
        "generate",
        project / "api.idl",
        "--out",
        project / "gen",
        "--package",
        "api",
        cwd=Path("/"),
    )
    assert made.returncode == 0, made.stderr
    leaked = str(tmp_path).lstrip("/")
    headers = {p.name: p.read_text() for p in (project / "gen" / "api").glob("*.py")}
    assert not [name for name, text in headers.items() if leaked in text], headers["__init__.py"][
        :400
    ]


@pytest.mark.parametrize("package", ["msgspec", "typing", "enum", "idlc_runtime"])
def test_a_package_name_that_shadows_what_generated_code_imports_is_refused_or_works(
    tmp_path: Path, package: str
) -> None:
    # Issue #9: "generated code must never be broken"; "Generated code must never be wrong
    # because of a user's name". Today `--package msgspec` exits 0 and writes a package whose
    # `import msgspec` imports itself (AttributeError: partially initialized module);
    # `--package idlc_runtime` shadows the runtime for everything on that path.
    idl = tmp_path / "api.idl"
    idl.write_text("type R = record { x : string; };\n")
    made = idlc("generate", idl, "--out", tmp_path / "out", "--package", package, cwd=tmp_path)
    if made.returncode != 0:
        return  # refused with a diagnostic: fine
    imported = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import {package}, idlc_runtime; {package}.R(x='a'); idlc_runtime.serve_stdio",
        ],
        cwd=tmp_path / "out",
        capture_output=True,
        text=True,
    )
    assert imported.returncode == 0, imported.stderr[-600:]
