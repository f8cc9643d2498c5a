"""Docstrings keep the author's lines as written, only indented (no re-wrapping)."""

from __future__ import annotations

import black

from idlc.codegen.layout import docstring

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


def test_long_docstring_lines_are_black_stable() -> None:
    source = (
        f"class Example:\n    {docstring(LONG, 4)}\n\n    x: int\n"
        f"    {docstring('word ' * 30, 4)}\n"
    )
    assert black.format_str(source, mode=black.Mode()) == source
