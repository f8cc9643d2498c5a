"""`is_canonical` (`idlc fmt --check`): the same answer as formatting the whole file and
comparing, and it stops at the first line that differs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from idlc.commands.fmt import format_paths
from idlc.diagnostics import Diagnostics
from idlc.source import SourceFile
from idlc.syntax import ast
from idlc.syntax import format as formatting
from idlc.syntax.format import format_file, is_canonical
from idlc.syntax.parser import parse
from tests.syntax.support import INPUTS, read
from tests.syntax.test_format_properties import _commented
from tests.syntax.test_format_runs import _FORMATTED, _perturbed, _relined

_EXAMPLES = int(os.environ.get("IDLC_FUZZ_EXAMPLES", "150"))


def _parsed(text: str) -> tuple[ast.File, SourceFile] | None:
    source = SourceFile("input.idl", text)
    tree = parse(source, Diagnostics())
    return None if tree is None else (tree, source)


def _agrees(text: str) -> bool:
    """Whether `is_canonical` gives what comparing the whole formatted text gives."""
    parsed = _parsed(text)
    if parsed is None:
        return True
    tree, source = parsed
    return is_canonical(tree, source) == (format_file(tree, source) == text)


@settings(max_examples=_EXAMPLES, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(_perturbed())
def test_is_canonical_agrees_on_nearly_formatted_files(text: str) -> None:
    assert _agrees(text)


@settings(max_examples=_EXAMPLES, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(_relined())
def test_is_canonical_agrees_with_line_breaks_edited(text: str) -> None:
    assert _agrees(text)


@settings(max_examples=_EXAMPLES, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(_commented())
def test_is_canonical_agrees_with_comments_anywhere(text: str) -> None:
    assert _agrees(text)


@pytest.mark.parametrize("path", INPUTS, ids=lambda path: Path(path).name)
def test_is_canonical_agrees_on_the_corpus(path: Path) -> None:
    assert _agrees(read(path))


@pytest.mark.parametrize("text", _FORMATTED, ids=range(len(_FORMATTED)))
def test_formatted_files_are_canonical(text: str) -> None:
    parsed = _parsed(text)
    assert parsed is not None
    assert is_canonical(*parsed)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        'external atom A id "a";',  # no final line ending
        'external atom A id "a";\n\n',  # one too many
        'external atom A id "a";\r\n',  # a line ending other than the file's
        "type T = record {\n  a : string;\n  b : string;\n};\ntype U = string;\n",  # blank
        "type U = string;\ntype T = record {\n  a : string;\n  b : string;\n};\n",
    ],
)
def test_edge_cases_agree(text: str) -> None:
    assert _agrees(text)


def _writes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the writer's steps (tokens and copied runs), through the writer's methods."""
    calls: list[int] = []
    token, run = formatting._Writer.token, formatting._Writer.run

    def counted_token(self: formatting._Writer, text: str, space: bool = True) -> None:
        calls.append(1)
        token(self, text, space)

    def counted_run(self: formatting._Writer, start: int, end: int, space: bool = True) -> bool:
        calls.append(1)
        return run(self, start, end, space)

    monkeypatch.setattr(formatting._Writer, "token", counted_token)
    monkeypatch.setattr(formatting._Writer, "run", counted_run)
    return calls


_MANY = "".join(f'external atom A{n} id "atom:{n}";\n' for n in range(200))


@pytest.mark.parametrize(
    "first",
    [
        'external  atom Z id "z";\n',  # a space too many in the first line
        '\nexternal atom Z id "z";\n',  # a blank line the layout does not keep
        "type T = record { a : string; b : string; };\n",  # to be exploded
    ],
)
def test_the_check_stops_at_the_first_difference(
    monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    parsed = _parsed(first + _MANY)
    assert parsed is not None
    calls = _writes(monkeypatch)
    format_file(*parsed)
    whole = len(calls)
    calls.clear()
    assert not is_canonical(*parsed)
    assert whole > 200  # one step per declaration at least
    assert len(calls) < 20  # the first declaration and the next one's start


def test_the_check_of_a_canonical_file_walks_it_all(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = _parsed(_MANY)
    assert parsed is not None
    calls = _writes(monkeypatch)
    assert is_canonical(*parsed)
    assert len(calls) >= 200


def test_fmt_check_reports_a_file_differing_in_its_first_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "a.idl"
    path.write_text('external  atom Z id "z";\n' + _MANY)
    calls = _writes(monkeypatch)
    result = format_paths([path], write=False, diff=False)
    assert [Path(name).name for name in result.changed] == ["a.idl"]
    assert len(calls) < 20
    assert path.read_text() == 'external  atom Z id "z";\n' + _MANY  # nothing written
