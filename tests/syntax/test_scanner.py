"""The parse loop's scanner (`lalr.Tables.scanner`, read a window at a time) against the
master expression it is made from.

The loop takes its tokens from one `findall` of the scanner per window of text; the master
expression, matched token by token, is what the lexer was before (and what still names a
pattern token's terminal). These tests hold the two to the same tokens on random IDL-ish
text, and hold a parse read in windows of every size — down to one line a window, where
every block comment over several lines and every token at a window's end takes the slow
paths, and every longer line is read a token at a time — to the same nodes and the same
diagnostics, at the same lines and columns, as a parse of the whole text in one window.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.source import SourceFile
from idlc.syntax import lalr
from idlc.syntax.parser import _tables, parse
from tests.syntax.support import ROOT, SEEDS, VALID, read

_SOURCES = [read(path.relative_to(ROOT)) for path in [*SEEDS, *sorted(VALID.glob("*.idl"))]]

_PIECES = st.sampled_from(
    [
        "type", "atom-ref", "atom-", "-ref", "many-unique", "x-y", "record", "->", "-", "-1",
        "1.5e3", "1.", "{", "}", ";", "<", ">", "=", '"s"', '"open', '"\\q"', "\\", "$", "§",
        "é", "名", "// c", "/// d", "/* b */", "/* b", "*/", "/*\n\n*/", "\n", "\r\n", " ",
        "\t", "\ufeff", "@",
    ]
)  # fmt: skip


@st.composite
def _texts(draw: st.DrawFn) -> str:
    """A seed or corpus file with a few pieces put in, cut out or copied elsewhere."""
    text = draw(st.sampled_from(_SOURCES))
    for _ in range(draw(st.integers(0, 6))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 30)))
        kind = draw(st.sampled_from(["insert", "delete", "copy"]))
        if kind == "insert":
            text = text[:start] + draw(st.one_of(_PIECES, st.text(max_size=3))) + text[start:]
        elif kind == "delete":
            text = text[:start] + text[end:]
        else:
            at = draw(st.integers(0, len(text)))
            text = text[:at] + text[start:end] + text[at:]
    return text


_FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _master_tokens(text: str) -> list[tuple[str, int, int]]:
    """(group, start, end) per token by the master expression, to the first spot where
    no token starts."""
    master = _tables().master
    found: list[tuple[str, int, int]] = []
    position = 0
    while position < len(text):
        match = master.match(text, position)
        kind = match.lastgroup
        if kind is None:
            break
        found.append((kind, *match.span(kind)))
        position = match.end()
    return found


def _scanned_tokens(text: str) -> list[tuple[str, int, int]]:
    """The same from one `findall` of the scanner, the group of a pattern token asked of
    the master expression as the parse loop asks it."""
    tables = _tables()
    found: list[tuple[str, int, int]] = []
    position = 0
    for gap, pattern_token, spelled in tables.scanner.findall(text):
        start = position + len(gap)
        token = pattern_token or spelled
        if not token:
            break
        if pattern_token:
            kind = tables.master.match(text, start).lastgroup
        else:
            kind = "PUNCTUATION" if spelled in tables.punctuation else "WORD"
        found.append((str(kind), start, start + len(token)))
        position = start + len(token)
    return found


@_FUZZ
@given(_texts())
def test_the_scanner_finds_the_tokens_the_master_expression_finds(text: str) -> None:
    assert _scanned_tokens(text) == _master_tokens(text)


def _outcome(text: str) -> tuple[str, list[Any]]:
    source = SourceFile("windows.idl", text)
    diagnostics = Diagnostics()
    tree = parse(source, diagnostics)
    return repr(tree), [
        (
            str(diagnostic.code),
            diagnostic.message,
            diagnostic.help,
            None if diagnostic.span is None else source.position(diagnostic.span.start),
            None if diagnostic.span is None else source.position(diagnostic.span.end),
        )
        for diagnostic in diagnostics
    ]


@_FUZZ
@given(text=_texts(), window=st.sampled_from([0, 1, 5, 40, 300]))
def test_a_parse_read_in_windows_is_a_parse_read_whole(text: str, window: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lalr, "WINDOW", len(text) + 1)
        whole = _outcome(text)
        patch.setattr(lalr, "WINDOW", window)
        assert _outcome(text) == whole
        # Lines longer than that read a token at a time by the master expression.
        patch.setattr(lalr, "LONG_LINE", window)
        assert _outcome(text) == whole


def test_a_block_comment_longer_than_a_window_is_one_comment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lalr, "WINDOW", 4)
    text = "/* a\n" + "b\n" * 50 + "*/\ntype T = unit; /* c\nd */\n"
    diagnostics = Diagnostics()
    tree = parse(SourceFile("long.idl", text), diagnostics)
    assert tree is not None, [d.message for d in diagnostics]
    assert [comment.text for comment in tree.comments] == [
        text[: text.index("*/") + 2],
        "/* c\nd */",
    ]


def test_every_window_ends_after_a_line_break_or_at_the_end() -> None:
    text = "a\n" * 10
    assert lalr._window_end(text, 0) == len(text)  # shorter than a window
    long = "x" * lalr.WINDOW + "\ny\n"
    assert lalr._window_end(long, 0) == lalr.WINDOW + 1
    assert lalr._window_end(long, 3) == len(long)
