"""docs/tutorial.md, run as written: its files, its commands, its output."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TUTORIAL = (REPO / "docs" / "tutorial.md").read_text(encoding="utf-8")


def block(info: str) -> str:
    match = re.search(rf"^```{re.escape(info)}\n(.*?)^```$", TUTORIAL, re.MULTILINE | re.DOTALL)
    assert match, f"docs/tutorial.md has no ```{info} block"
    return match.group(1)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd), str(REPO)])}
    env.pop("NO_COLOR", None)
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def test_tutorial_runs_as_written(tmp_path: Path) -> None:
    idl = block("idl notebook.idl")
    (tmp_path / "notebook.idl").write_text(idl)
    idlc = [sys.executable, "-m", "idlc"]

    checked = run(*idlc, "check", "notebook.idl", cwd=tmp_path)
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "", "")

    misspelt = tmp_path / "misspelt"
    misspelt.mkdir()
    (misspelt / "notebook.idl").write_text(idl.replace("-> NoteText {", "-> NoteTxt {"))
    broken = run(*idlc, "check", "notebook.idl", cwd=misspelt)
    assert broken.returncode == 1
    assert block("text check-error") in broken.stderr

    generated = run(*idlc, "generate", "notebook.idl", "--out", ".", cwd=tmp_path)
    assert generated.returncode == 0, generated.stderr
    (tmp_path / "server.py").write_text(block("python server.py"))
    (tmp_path / "client.py").write_text(block("python client.py"))
    called = run(sys.executable, "client.py", cwd=tmp_path)
    assert called.returncode == 0, called.stderr
    assert called.stdout == block("text output")

    typed = run(sys.executable, "-m", "mypy", "--strict", "server.py", "client.py", cwd=tmp_path)
    assert typed.returncode == 0, typed.stdout

    (tmp_path / "pyproject.toml").write_text(block("toml"))
    assert run(*idlc, "generate", "--check", cwd=tmp_path).returncode == 0
    (tmp_path / "notebook.idl").write_text(idl.replace("Every note", "All notes"))
    stale = run(*idlc, "generate", "--check", cwd=tmp_path)
    assert stale.returncode == 1
    assert "stale" in stale.stderr


def test_the_install_step_names_the_compiler_and_the_runtime() -> None:
    """The install step's pip command names the two projects of this repository that the
    tutorial needs, by their folders (its checkout is `path/to/idlc`): the compiler, whose
    `idlc` command every step runs, and the runtime, which the generated code imports and
    pip could not find by name."""
    import tomllib

    commands = [line for line in block("sh install").splitlines() if line.startswith("pip ")]
    assert len(commands) == 1, block("sh install")
    words = commands[0].split()
    assert words[:2] == ["pip", "install"]
    names = set()
    for word in words[2:]:
        assert word.startswith("path/to/idlc"), word
        folder = REPO / word.removeprefix("path/to/idlc").lstrip("/")
        names.add(tomllib.loads((folder / "pyproject.toml").read_text())["project"]["name"])
    assert names == {"idlc", "idlc-runtime"}
