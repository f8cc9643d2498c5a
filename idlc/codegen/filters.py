"""The Jinja filters of `templates/`: the few layout decisions that depend on width.

- `wrap`: a bracketed list (call arguments, parameters, class bases, imports) as black
  lays it out; a template passes the text before the opening bracket and after the
  closing one, and the indentation it writes the line at.
- `each`: the items of such a list, each written from a pattern (`"{0.attribute}=…"`).
- `python_string`: a string literal in black's preferred quotes.
- `docstring`: a doc comment as the docstring black would keep, at a given indentation.
"""

from __future__ import annotations

import functools
import operator
import string
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from idlc.codegen import layout
from idlc.codegen.views import Doc


def wrap(
    head: str,
    items: Sequence[str],
    tail: str,
    indent: int = 0,
    *,
    item: bool = False,
    optional_brackets: bool = False,
    explode: bool = False,
) -> str:
    """`head` + items joined by commas + `tail`, as black lays out a bracketed list.

    On one line when the whole line fits in black's limit and no item spans lines;
    otherwise one item per line with a trailing comma: black's "magic trailing comma",
    which makes black keep the list exploded even where it would have chosen a more
    compact split, so the output is stable.

    `head` ends with the opening bracket and holds all that comes before it on the line;
    `tail` starts with the closing one; `indent` is where the line starts. Items that span
    several lines must have been laid out for `indent + 4`. `item`: the result is itself
    an item of an exploded list (a comma follows it). `optional_brackets`: on one line the
    brackets are dropped, as black does for `from … import (…)`. `explode`: one item per
    line even where the line would fit.
    """
    flat = head + ", ".join(items) + tail
    if not items or (
        not explode and "\n" not in flat and indent + len(flat) + item <= layout.LINE_LENGTH
    ):
        if optional_brackets:
            return head[:-1] + flat[len(head) : len(flat) - len(tail)] + tail[1:]
        return flat
    inner = " " * (indent + 4)
    separator = ",\n" + inner
    return f"{head}\n{inner}{separator.join(items)},\n{' ' * indent}{tail}"


def assign_call(target: str, call: str, items: Sequence[str], tail: str, indent: int = 0) -> str:
    """`target = call…items…tail`, the call laid out by `wrap`; where even the call's first
    line is over the limit, the value goes in parentheses on the lines below, as black
    puts it (the call exploded inside them, which black keeps)."""
    text = wrap(f"{target} = {call}", items, tail, indent)
    first_line = text.split("\n", 1)[0]
    if indent + len(first_line) <= layout.LINE_LENGTH:
        return text
    pad = " " * indent
    inner = wrap(call, items, tail, indent + 4, explode=True)
    return f"{target} = (\n{pad}    {inner}\n{pad})"


def bracket_body(head: str, items: Sequence[str], tail: str, indent: int = 0) -> str:
    """`head` + items + `tail` as black splits a bracket it found on one line: one line if
    it fits; else the items on one line of their own between the brackets' lines if they
    fit there; else one item per line with a trailing comma (`wrap`)."""
    flat = head + ", ".join(items) + tail
    if not items or indent + len(flat) <= layout.LINE_LENGTH:
        return flat
    body = ", ".join(items)
    if indent + 4 + len(body) <= layout.LINE_LENGTH:
        return f"{head}\n{' ' * (indent + 4)}{body}\n{' ' * indent}{tail}"
    return wrap(head, items, tail, indent, explode=True)


def union_value(target: str, alternatives: Sequence[str], indent: int = 0) -> str:
    """`target = A | B | …` as black writes it: on one line if it fits; else in
    parentheses, the union on one line below if it fits there, else one alternative a line
    (`| B`). One alternative that does not fit below either stays on the line: black has
    nowhere to split it."""
    body = " | ".join(alternatives)
    if indent + len(target) + 3 + len(body) <= layout.LINE_LENGTH:
        return f"{target} = {body}"
    pad = " " * indent
    inner = pad + "    "
    if len(inner) + len(body) <= layout.LINE_LENGTH:
        return f"{target} = (\n{inner}{body}\n{pad})"
    if len(alternatives) < 2:
        return f"{target} = {body}"
    lines = f"\n{inner}| ".join(alternatives)
    return f"{target} = (\n{inner}{lines}\n{pad})"


def each(
    items: Iterable[Any], pattern: str, when: str | None = None, otherwise: str = ""
) -> list[str]:
    """Every item written with `pattern`, whose fields name the item's attributes
    (`"{0.attribute}={0.attribute}"`); with `when`, an item whose attribute `when` is None
    is written with `otherwise` instead."""
    text, values = _compiled(pattern)
    if when is None:
        return [text % values(item) for item in items]
    other_text, other_values = _compiled(otherwise)
    return [
        other_text % other_values(item) if getattr(item, when) is None else text % values(item)
        for item in items
    ]


@functools.cache
def _compiled(pattern: str) -> tuple[str, Callable[[Any], tuple[Any, ...]]]:
    """`pattern` as a %-format and a function reading its fields from an item: a pattern is
    applied to every field of every record, and `str.format` would parse it each time."""
    text: list[str] = []
    names: list[str] = []
    for literal, field, _, _ in string.Formatter().parse(pattern):
        text.append(literal.replace("%", "%%"))
        if field is not None:
            if not field.startswith("0."):
                raise ValueError(f"{pattern!r}: a field must be an attribute of the item, {{0.…}}")
            names.append(field[2:])
            text.append("%s")
    if len(names) > 1:
        values: Callable[[Any], tuple[Any, ...]] = operator.attrgetter(*names)
    elif names:
        one = operator.attrgetter(names[0])
        values = lambda item: (one(item),)  # noqa: E731
    else:
        values = lambda item: ()  # noqa: E731
    return "".join(text), values


def python_string(value: object) -> str:
    return layout.python_string(str(value))


def docstring(doc: Doc | None, indent: int) -> str | None:
    """The docstring statement for `doc` at `indent` (None: nothing to write)."""
    if doc is None:
        return None
    return layout.docstring(doc.text, indent, note=doc.note)


FILTERS = {
    "wrap": wrap,
    "assign_call": assign_call,
    "bracket_body": bracket_body,
    "union_value": union_value,
    "each": each,
    "python_string": python_string,
    "docstring": docstring,
}
