"""W0005: a file that declares nothing (empty, or only comments and white space) is warned
about once, at its start; a file with any declaration is not; the warning can be allowed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.syntax.support import ROOT, parse_text

_WHITE = st.sampled_from([" ", "\t", "\n", "\r\n"])
_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)
_LINE_COMMENT = _TEXT.map(lambda text: "//" + text + "\n")
_BLOCK_COMMENT = _TEXT.filter(lambda text: "*/" not in text).map(lambda text: f"/*{text}*/")
_NOTHING = st.lists(_WHITE | _LINE_COMMENT | _BLOCK_COMMENT, max_size=8).map("".join)


def _codes(text: str) -> list[str]:
    _, diagnostics = parse_text(text)
    return [d.code.id for d in diagnostics]


@given(_NOTHING)
def test_a_file_of_comments_and_white_space_gets_one_w0005_at_its_start(text: str) -> None:
    tree, diagnostics = parse_text(text)
    assert tree.decls == ()
    found = [d for d in diagnostics if d.code.id == "W0005"]
    assert len(found) == 1, list(diagnostics)
    assert not found[0].is_error
    assert found[0].span is not None and (found[0].span.start, found[0].span.end) == (0, 0)
    # A `////…` line comment may be a dangling doc comment: W0004, never an error.
    assert set(_codes(text)) <= {"W0004", "W0005"}


@given(_NOTHING, _NOTHING)
def test_a_file_with_a_declaration_gets_none(before: str, after: str) -> None:
    assert "W0005" not in _codes(before + "\ntype T = uint32;\n" + after)


def test_a_file_with_a_syntax_error_gets_the_error_only() -> None:
    # Nothing parsed is not "declares nothing": the error is the news.
    from idlc.diagnostics import Diagnostics
    from idlc.source import SourceFile
    from idlc.syntax.parser import parse

    diagnostics = Diagnostics()
    assert parse(SourceFile("input.idl", "atom"), diagnostics) is None
    assert [d.code.id for d in diagnostics if d.code.id.startswith("W")] == []


def _check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "idlc", "check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_idlc_check_warns_passes_and_allows_it(tmp_path: Path) -> None:
    (tmp_path / "empty.idl").write_text("// to be written\n")
    (tmp_path / "api.idl").write_bytes(
        (ROOT / "idl" / "quixos" / "agent_directory.idl").read_bytes()
    )
    warned = _check("empty.idl", "api.idl", cwd=tmp_path)
    assert warned.returncode == 0, warned.stderr
    assert "warning[W0005]: this file declares nothing" in warned.stderr
    assert "--> empty.idl:1:1" in warned.stderr
    allowed = _check("-A", "W0005", "empty.idl", "api.idl", cwd=tmp_path)
    assert allowed.returncode == 0 and allowed.stderr == "", allowed.stderr

    (tmp_path / "pyproject.toml").write_text(
        '[tool.idlc]\nallow = ["W0005"]\n\n'
        '[[tool.idlc.packages]]\nname = "api"\nsources = ["empty.idl", "api.idl"]\nout = "gen"\n'
    )
    configured = _check(cwd=tmp_path)
    assert configured.returncode == 0 and configured.stderr == "", configured.stderr


def test_idlc_fmt_leaves_it_to_check(tmp_path: Path) -> None:
    (tmp_path / "empty.idl").write_text("// to be written\n")
    formatted = subprocess.run(
        [sys.executable, "-m", "idlc", "fmt", "--check", "empty.idl"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (formatted.returncode, formatted.stderr) == (0, "")
