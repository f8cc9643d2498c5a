"""A missing `}` (or `>`) is reported with the `{` (or `<`) it would close as a related place:
at the end of the file (E0004) and where recovery adds it (E0003)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostic, Diagnostics
from idlc.source import SourceFile
from idlc.syntax.parser import parse
from tests.syntax.support import INPUTS, read

# Strings and comments, whose braces do not count, and the braces themselves.
_BRACES = re.compile(r'"(?:[^"\\\n]|\\.)*"?|//[^\n]*|/\*.*?(?:\*/|\Z)|[{}]', re.DOTALL)


def _innermost_open_brace(text: str) -> int | None:
    """Where the innermost `{` still open at the end of `text` is (a plain scanner)."""
    opened: list[int] = []
    for match in _BRACES.finditer(text):
        if match.group() == "{":
            opened.append(match.start())
        elif match.group() == "}" and opened:
            opened.pop()
    return opened[-1] if opened else None


def _diagnostics(text: str) -> list[Diagnostic]:
    diagnostics = Diagnostics()
    parse(SourceFile("input.idl", text), diagnostics)
    return list(diagnostics)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(INPUTS), st.floats(0, 1))
def test_a_truncated_file_points_at_the_innermost_unclosed_brace(path: object, cut: float) -> None:
    original = read(path)  # type: ignore[arg-type]
    text = original[: int(len(original) * cut)]
    found = _diagnostics(text)
    if [d.code.id for d in found] != ["E0004"]:
        return  # cut inside a string, a comment or a word: another error comes first
    (eof,) = found
    if eof.help != "a `}` is missing":
        assert all("`{`" not in related.message for related in eof.related), eof
        return
    expected = _innermost_open_brace(text)
    assert expected is not None, text
    (related,) = eof.related
    assert related.message == "this `{` is not closed"
    assert (related.span.start, related.span.end) == (expected, expected + 1)


def test_the_interface_brace_not_a_closed_binding_block() -> None:
    text = (
        'interface Shop id "shop" revision "shop@1" {\n'
        '  queryable value total id "shop:total" : uint32 '
        '{get id "shop:total:get" execution snapshot;}\n'
    )
    (eof,) = _diagnostics(text)
    assert eof.code.id == "E0004"
    assert [(r.message, r.span.line, r.span.column) for r in eof.related] == [
        ("this `{` is not closed", 1, 44)
    ]


def test_an_added_closer_points_at_its_opener() -> None:
    brace, angle, *_ = _diagnostics(
        'interface Shop id "shop" revision "shop@1" {\n'
        "type Price = record { amount: list<uint32; };\n"
    )
    assert brace.code.id == "E0003" and brace.message == "expected `}`, found keyword `type`"
    assert [(r.message, r.span.line, r.span.column) for r in brace.related] == [
        ("this `{` is not closed", 1, 44)
    ]
    assert angle.code.id == "E0003" and angle.message == "expected `>`, found `;`"
    assert [(r.message, r.span.line, r.span.column) for r in angle.related] == [
        ("this `<` is not closed", 2, 35)
    ]


def test_a_missing_angle_at_the_end_points_at_its_opener() -> None:
    (eof,) = _diagnostics("type X = list<string")
    assert eof.code.id == "E0004"
    assert [(r.message, r.span.column) for r in eof.related] == [("this `<` is not closed", 14)]
