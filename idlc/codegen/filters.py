"""The Jinja filters of `templates/`: the few layout decisions that depend on width.

- `wrap`: a bracketed list (call arguments, parameters, class bases, imports) as black
  lays it out (`idlc.codegen.layout.bracket`); a template passes the text before the
  opening bracket and after the closing one, and the indentation it writes the line at.
- `each`: the items of such a list, each written from a pattern (`"{0.attribute}=…"`).
- `python_string`: a string literal in black's preferred quotes.
- `docstring`: a doc comment as the docstring black would keep, at a given indentation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from idlc.codegen import layout
from idlc.codegen.views import Doc


def wrap(
    head: str,
    items: Iterable[object],
    tail: str,
    indent: int = 0,
    *,
    item: bool = False,
    optional_brackets: bool = False,
) -> str:
    """`head` + items joined by commas + `tail`, on one line when it fits in black's limit
    and no item spans lines, else one item per line with a trailing comma.

    `head` ends with the opening bracket and holds all that comes before it on the line;
    `indent` is where that line starts. `item`: the result is itself an item of an exploded
    list (a comma follows it). `optional_brackets`: on one line the brackets are dropped,
    as black does for `from … import (…)`.
    """
    texts = list(map(str, items))
    text = layout.bracket(head, texts, tail, indent, item=item)
    if optional_brackets and "\n" not in text:
        return head[:-1] + text[len(head) : len(text) - len(tail)] + tail[1:]
    return text


def each(
    items: Iterable[Any], pattern: str, when: str | None = None, otherwise: str = ""
) -> list[str]:
    """Every item written with `pattern` (`str.format`, the item as `{0}`); with `when`,
    an item whose attribute `when` is None is written with `otherwise` instead."""
    if when is None:
        return [pattern.format(value) for value in items]
    return [
        (otherwise if getattr(value, when) is None else pattern).format(value) for value in items
    ]


def python_string(value: object) -> str:
    return layout.python_string(str(value))


def docstring(doc: Doc | None, indent: int) -> str | None:
    """The docstring statement for `doc` at `indent` (None: nothing to write)."""
    if doc is None:
        return None
    return layout.docstring(doc.text, indent, note=doc.note)


FILTERS = {
    "wrap": wrap,
    "each": each,
    "python_string": python_string,
    "docstring": docstring,
}
