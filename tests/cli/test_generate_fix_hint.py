"""`idlc generate --check` ends a failure with the command that fixes it, and that command,
run as printed, does fix it."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from .test_cli import SEEDS, idlc

HINT_PREFIX = "run `"
HINT_SUFFIX = "` to update the generated files"


def _hint(stderr: str) -> list[str]:
    """The command the last line of `stderr` names, as words."""
    last = stderr.rstrip("\n").splitlines()[-1]
    assert last.startswith(HINT_PREFIX) and last.endswith(HINT_SUFFIX), stderr
    return shlex.split(last[len(HINT_PREFIX) : -len(HINT_SUFFIX)])


def _run_hint(words: list[str], cwd: Path) -> None:
    assert words[:2] == ["idlc", "generate"], words
    assert "--check" not in words
    result = idlc(*words[1:], cwd=cwd)
    assert result.returncode == 0, result.stderr


# -I takes the command line through click (idlc.cli), the others the plain path
# (idlc/__main__.py): both print the same hint.
@pytest.mark.parametrize("extra", [(), ("-I", "more idl"), ("-A", "W0002")])
def test_named_files_get_the_same_command_less_check(tmp_path: Path, extra: tuple[str]) -> None:
    (tmp_path / "more idl").mkdir()
    source = tmp_path / "my api.idl"
    source.write_bytes(SEEDS[0].read_bytes())
    arguments = ("my api.idl", "--out", "gen out", "--package", "pkg", *extra)
    missing = idlc("generate", *arguments, "--check", cwd=tmp_path)
    assert missing.returncode == 1
    assert "missing: " in missing.stderr
    words = _hint(missing.stderr)
    assert words == ["idlc", "generate", *arguments]
    _run_hint(words, tmp_path)
    assert idlc("generate", *arguments, "--check", cwd=tmp_path).returncode == 0

    generated = tmp_path / "gen out" / "pkg" / "__init__.py"
    generated.write_text(generated.read_text() + "# edited by hand\n")
    stale = idlc("generate", *arguments, "--check", cwd=tmp_path)
    assert stale.returncode == 1 and "stale: " in stale.stderr
    assert _hint(stale.stderr) == words


def test_configured_packages_get_plain_idlc_generate(tmp_path: Path) -> None:
    (tmp_path / "idl").mkdir()
    (tmp_path / "idl" / "api.idl").write_bytes(SEEDS[0].read_bytes())
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.idlc.packages]]\nname = "api"\nsources = ["idl"]\nout = "gen"\n'
    )
    missing = idlc("generate", "--check", cwd=tmp_path)
    assert missing.returncode == 1
    words = _hint(missing.stderr)
    assert words == ["idlc", "generate"]
    _run_hint(words, tmp_path)
    assert idlc("generate", "--check", cwd=tmp_path).returncode == 0


def test_without_configuration_the_discovered_files_keep_out_and_package(tmp_path: Path) -> None:
    (tmp_path / "api.idl").write_bytes(SEEDS[0].read_bytes())
    missing = idlc("generate", "--out", "gen", "--check", cwd=tmp_path)
    assert missing.returncode == 1
    words = _hint(missing.stderr)
    assert words == ["idlc", "generate", "--out", "gen"]
    _run_hint(words, tmp_path)


def test_no_hint_when_up_to_date_or_when_the_idl_has_errors(tmp_path: Path) -> None:
    source = tmp_path / "api.idl"
    source.write_bytes(SEEDS[0].read_bytes())
    arguments = ("api.idl", "--out", "gen", "--package", "pkg")
    assert idlc("generate", *arguments, cwd=tmp_path).returncode == 0
    clean = idlc("generate", *arguments, "--check", cwd=tmp_path)
    assert clean.returncode == 0 and "run `" not in clean.stderr

    source.write_text("type Broken = Nope;\n")
    broken = idlc("generate", *arguments, "--check", cwd=tmp_path)
    assert broken.returncode == 1
    assert "error[E0101]" in broken.stderr and "run `" not in broken.stderr
