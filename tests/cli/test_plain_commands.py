"""A plain `idlc check`, `fmt` or `generate` runs without click (idlc/__main__.py), every other
command line through click (idlc/cli.py): the two must not differ in anything users see.

Each command line runs twice, in two identical folders: once as `idlc` runs it
(`idlc.__main__.main`, which takes the plain ones itself) and once straight through click
(`idlc.cli.main`); the exit code, both streams and the files left behind must be the same.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import REPO, SEEDS

_RUN = "import sys; sys.argv[0] = 'idlc'; from {module} import main; main()"

#: Words a command line is made of: files that exist, are broken or missing, a file where a
#: folder belongs, the options of the plain paths (well and badly formed), and some that
#: only click takes.
_WORDS = [
    "api.idl",
    "broken.idl",
    "missing.idl",
    "notes.txt",
    "out",
    "--out",
    "--out=out",
    "--out=notes.txt",
    "--out=",
    "--package",
    "pkg",
    "class",
    "--package=pkg",
    "--check",
    "--diff",
    "-I",
    "--include=out",
    "-A",
    "W0002",
    "--",
    "",
    "-",
]


def _folder(base: Path, configured: bool) -> Path:
    base.mkdir()
    (base / "api.idl").write_bytes(SEEDS[0].read_bytes())
    (base / "broken.idl").write_text("type Job = record { submission: AgentSubmision; };\n")
    (base / "notes.txt").write_text("not a folder\n")
    if configured:
        (base / "pyproject.toml").write_text(
            '[[tool.idlc.packages]]\nname = "configured"\nsources = ["api.idl"]\nout = "gen"\n'
        )
    return base


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() if path.is_file() else b"/"
        for path in sorted(folder.rglob("*"))
    }


def _run(module: str, arguments: list[str], cwd: Path) -> tuple[int, str, str, dict[str, bytes]]:
    result = subprocess.run(
        [sys.executable, "-c", _RUN.format(module=module), *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO)},
        stdin=subprocess.DEVNULL,
        timeout=60,
    )

    def same_anywhere(text: str) -> str:  # messages may name the folder
        return text.replace(str(cwd), "<folder>")

    return result.returncode, same_anywhere(result.stdout), same_anywhere(result.stderr), _tree(cwd)


def _same_either_way(tmp_path: Path, command: str, words: list[str], configured: bool) -> None:
    plain = _run("idlc.__main__", [command, *words], _folder(tmp_path / "plain", configured))
    through_click = _run("idlc.cli", [command, *words], _folder(tmp_path / "click", configured))
    assert plain == through_click


@pytest.mark.parametrize(
    "words",
    [
        ["api.idl", "--out", "out", "--package", "pkg"],
        ["api.idl", "--out=out", "--package=pkg", "--check"],
        ["api.idl", "broken.idl", "--out", "out"],
        ["api.idl", "--package", "pkg"],  # no --out: a usage error
        ["api.idl", "--out", "notes.txt"],  # a file where the folder goes: a usage error
        ["api.idl", "--out", "out", "--package", "class"],  # not a package name
        ["--out", "out"],  # discovery
        [],
        ["--check"],
    ],
)
@pytest.mark.parametrize("configured", [False, True])
def test_generate_is_the_same_with_and_without_click(
    tmp_path: Path, words: list[str], configured: bool
) -> None:
    _same_either_way(tmp_path, "generate", words, configured)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    command=st.sampled_from(["check", "fmt", "generate"]),
    words=st.lists(st.sampled_from(_WORDS), max_size=6),
    configured=st.booleans(),
)
def test_any_command_line_is_the_same_with_and_without_click(
    tmp_path_factory: pytest.TempPathFactory, command: str, words: list[str], configured: bool
) -> None:
    _same_either_way(tmp_path_factory.mktemp("line"), command, words, configured)
