"""Formatter properties on valid files with comments and line breaks inserted anywhere a
comment may stand: same syntax tree, same comments, same warnings, idempotent."""

from __future__ import annotations

import os
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.source import SourceFile
from idlc.syntax.format import format_file
from tests.syntax.support import INPUTS, comment_texts, parse_text, read, strip_spans

_TEXTS = [read(path) for path in INPUTS]

# Strings and comments (no gaps inside them), else single characters.
_SCAN = re.compile(r'"(?:[^"\\\n\r]|\\.)*"|//[^\n]*|/\*.*?\*/|.', re.DOTALL)
_PUNCTUATION = set("{}<>;:,=[]")


def _gaps(text: str) -> list[int]:
    """Offsets between two tokens (or at white space), where a comment may be inserted."""
    gaps = {0, len(text)}
    for match in _SCAN.finditer(text):
        piece, start, end = match.group(), match.start(), match.end()
        if len(piece) > 1 or piece.isspace() or piece in _PUNCTUATION:
            if not (piece == ">" and text[start - 1 : start] == "-"):
                gaps.add(start)
            if not (piece == "-" and text[end : end + 1] == ">"):
                gaps.add(end)
    return sorted(gaps)


_GAPS = [_gaps(text) for text in _TEXTS]
_INSERTS = st.sampled_from(
    [
        " // line comment\n",
        "\n// own line\n",
        " /* block */ ",
        "/*tight*/",
        "\n/* own-line block */\n",
        "\n/* two\n   lines */ ",
        "\n/// doc comment\n",
        "\n\n\n",
        "\n",
        "\r\n",
        "\t",
        " //// four slashes   \n",
    ]
)


@st.composite
def _commented(draw: st.DrawFn) -> str:
    index = draw(st.integers(0, len(_TEXTS) - 1))
    text, gaps = _TEXTS[index], _GAPS[index]
    chosen = sorted(draw(st.lists(st.sampled_from(gaps), min_size=1, max_size=12)), reverse=True)
    for offset in chosen:
        text = text[:offset] + draw(_INSERTS) + text[offset:]
    return text


@settings(
    max_examples=int(os.environ.get("IDLC_FUZZ_EXAMPLES", "150")),
    deadline=2000,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(_commented())
def test_formatting_keeps_meaning_and_comments_wherever_they_stand(text: str) -> None:
    tree, diagnostics = parse_text(text)
    out = format_file(tree, SourceFile("input.idl", text))
    again, again_diagnostics = parse_text(out)
    assert strip_spans(again) == strip_spans(tree)
    assert comment_texts(again) == comment_texts(tree)
    assert [d.code for d in again_diagnostics] == [d.code for d in diagnostics]
    assert format_file(again, SourceFile("input.idl", out)) == out
