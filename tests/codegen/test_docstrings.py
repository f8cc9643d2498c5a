"""Docstrings keep the author's lines as written, only indented (no re-wrapping)."""

from __future__ import annotations

import black
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.codegen.layout import docstring, needs_black

LONG = (
    "This is intended to help Clients distinguish broadly common selectors (e.g. model selector vs\n"
    "session mode selector vs thought/reasoning level).\n"
    "\n"
    "  - an indented item that stays indented\n"
)


def test_author_lines_are_kept_as_written() -> None:
    text = docstring(LONG, 4)
    assert text == (
        '"""This is intended to help Clients distinguish broadly common selectors'
        " (e.g. model selector vs\n"
        "    session mode selector vs thought/reasoning level).\n"
        "\n"
        "      - an indented item that stays indented\n"
        '    """'
    )


def test_a_long_single_line_stays_one_line() -> None:
    line = "word " * 30
    assert docstring(line, 8) == f'"""{line.strip()}"""'


def test_notes_of_idlc_are_wrapped_after_the_author_text() -> None:
    note = "A reference to an object implementing `SomeInterface` (`interface:org.example:some`)."
    assert docstring(None, 0, note=note) == (
        '"""A reference to an object implementing `SomeInterface`\n'
        '(`interface:org.example:some`).\n"""'
    )
    assert docstring("Author's line.", 0, note="Short note.") == (
        '"""Author\'s line.\n\nShort note.\n"""'
    )


def test_long_docstring_lines_are_black_stable_and_need_no_black() -> None:
    source = (
        f"class Example:\n    {docstring(LONG, 4)}\n\n    x: int\n"
        f"    {docstring('word ' * 30, 4)}\n"
    )
    assert black.format_str(source, mode=black.Mode()) == source
    assert not needs_black(source)
    assert needs_black(source + "y = " + "1 + " * 30 + "1\n")


def _has_long_code_line(text: str) -> bool:
    """`needs_black`'s rule, line by line: a line over 88 columns outside docstrings and
    comments."""
    in_docstring = False
    for line in text.split("\n"):
        stripped = line.lstrip()
        if in_docstring:
            in_docstring = '"""' not in line
            continue
        if stripped.startswith('"""'):
            in_docstring = stripped.count('"""') == 1
            continue
        if len(line) > 88 and not stripped.startswith("#"):
            return True
    return False


#: Line lengths, the limit's neighbours often.
_LENGTHS = st.one_of(st.sampled_from([87, 88, 89, 90]), st.integers(0, 120))
_LINES = st.one_of(
    _LENGTHS.map(lambda n: "x" * n),
    _LENGTHS.map(lambda n: "    # " + "c" * n),
    _LENGTHS.map(lambda n: '    """' + "d" * n),
    st.just('"""'),
    st.just(""),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, max_size=8), st.booleans())
def test_needs_black_finds_exactly_the_long_code_lines(lines: list[str], newline: bool) -> None:
    # The usual case is decided by one scan for a long line (first line included).
    text = "\n".join(lines) + ("\n" if newline else "")
    assert needs_black(text) == _has_long_code_line(text)
