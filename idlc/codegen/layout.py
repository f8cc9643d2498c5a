"""Emit Python text that black leaves alone, without running black.

black costs about a millisecond and a half per output line, which would make generation
of a large schema slower than protoc. So the generator writes black's own layout directly:

- a bracketed list (call arguments, parameters, class bases, imports) stays on one line
  when the whole line fits in 88 columns and no item spans several lines; otherwise it is
  exploded one item per line with a trailing comma (the templates' `wrap` filter,
  `idlc.codegen.filters`). Tables the templates write exploded always (`__all__`, the
  dispatch table) carry the trailing comma too: black's "magic trailing comma" keeps such
  a list exploded at any width, so the output is stable;
- string literals use black's preferred quotes (`python_string`);
- docstrings are written in the shape black's docstring normalisation produces, keeping
  the author's lines as written (`docstring`).

- an assignment whose value does not fit goes in parentheses on the lines below, a union
  alternative a line when even that does not fit (`union_value`, `assign_call`), and a
  class whose bases do not fit has them on a line of their own (`bracket_body`).

No formatter runs at generation time, so the layout depends on idlc's version only and
idlc installs beside any black. What the rules cannot split (a single token longer than a
line, such as a very long string or name) stays on its line, as black leaves it too. Tests
check the generated code of the seeds, the ACP SDK and the corpus with the oldest and the
newest black the project supports (tests/codegen/test_black_referee.py).
"""

from __future__ import annotations

import re
import textwrap

LINE_LENGTH = 88


# -- string literals ------------------------------------------------------------------------

_DOC_ESCAPES = {
    "\\": "\\\\",
    "\t": "\\t",
    "\r": "\\r",
}


def python_string(value: str) -> str:
    """A Python literal for `value` in the quotes black prefers.

    `repr` chooses single quotes when the text holds `'`-free `"`; black then keeps single
    quotes only where double quotes would need more escapes.
    """
    return _black_quotes(repr(value))


def python_bytes(value: bytes) -> str:
    """A Python bytes literal for `value` (`b"..."`), in the quotes black prefers."""
    return "b" + _black_quotes(repr(value)[1:])


def _black_quotes(literal: str) -> str:
    """`literal` (a string literal as `repr` writes it, without prefix) in black's quotes."""
    if literal[0] == '"':
        return literal
    if '"' not in literal and "\\'" not in literal:
        return f'"{literal[1:-1]}"'  # the usual case: nothing for black to re-escape
    # black's normalize_string_quotes, for a plain single-quoted literal.
    body = literal[1:-1]
    new_body = _sub_twice(_ESCAPED_SINGLE, r"\1\2'", body)
    new_body = _sub_twice(_UNESCAPED_DOUBLE, r'\1\\"', new_body)
    if new_body.count("\\") > body.count("\\"):
        return literal
    return f'"{new_body}"'


_ESCAPED_SINGLE = re.compile(r"([^\\]|^)\\((?:\\\\)*)'")
_UNESCAPED_DOUBLE = re.compile(r'(([^\\]|^)(\\\\)*)"')


def _sub_twice(pattern: re.Pattern[str], replacement: str, text: str) -> str:
    # Matches may overlap by one character; a second pass catches the ones skipped.
    return pattern.sub(replacement, pattern.sub(replacement, text))


# Characters that str.splitlines() treats as line breaks, and other control characters:
# escaped in docstrings so the text black sees has exactly the lines we wrote.
_DOC_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x85\u2028\u2029]")


def _escape_doc_line(line: str) -> str:
    line = "".join(_DOC_ESCAPES.get(char, char) for char in line)
    line = _DOC_CONTROL.sub(lambda match: _char_escape(match.group()), line)
    return line.replace('"""', '\\"\\"\\"')


def _char_escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _doc_lines(text: str) -> list[str]:
    """`text` as docstring lines: escaped, trailing spaces and blank lines at both ends
    dropped, first line stripped, common indentation of the others removed."""
    raw_lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = [_escape_doc_line(line).rstrip() for line in raw_lines]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return []
    rest = textwrap.dedent("\n".join(lines[1:])).split("\n") if len(lines) > 1 else []
    return [lines[0].strip(), *rest]


def _wrapped(lines: list[str], indent: int, *, first: bool) -> list[str]:
    """`lines` with each line longer than the room wrapped at spaces; `first`: they begin
    the docstring (the opening quotes take room on the first line)."""
    width = LINE_LENGTH - indent
    wrapped: list[str] = []
    for number, line in enumerate(lines):
        room = width - (3 if first and number == 0 else 0) - 3
        if len(line) <= room or not line.strip():
            wrapped.append(line)
            continue
        leading = line[: len(line) - len(line.lstrip())]
        pieces = textwrap.wrap(
            line.strip(),
            width=max(room - len(leading), 20),
            break_long_words=False,
            break_on_hyphens=False,
        )
        wrapped.extend(leading + piece for piece in pieces)
    return wrapped


def docstring(text: str | None, indent: int, *, note: str | None = None) -> str | None:
    """The docstring statement (without leading indentation) for doc comment `text`.

    The author's lines are kept as written, only indented: a line ends where it ends in
    the IDL (black never re-wraps docstrings either). `note` is idlc's own sentence, added
    as a last paragraph; having no line breaks of an author to keep, it is wrapped to fit.
    The result is what black's docstring normalisation produces: blank lines at both ends
    dropped, first line stripped, common indentation of the others removed, trailing
    spaces dropped, quotes and backslashes escaped.
    """
    lines = _doc_lines(text) if text is not None else []
    if note is not None:
        note_lines = _wrapped(_doc_lines(note), indent, first=not lines)
        lines = [*lines, "", *note_lines] if lines and note_lines else lines or note_lines
    if not lines:
        return None
    first = lines[0]
    if first.startswith('"'):
        first = " " + first
    if len(lines) == 1:
        return f'"""{first} """' if first.endswith('"') else f'"""{first}"""'
    pad = " " * indent
    body = first + "\n" + "\n".join(pad + line if line else "" for line in lines[1:])
    return f'"""{body}\n{pad}"""'
