"""How terminals of the grammar are shown to people in messages."""

from __future__ import annotations

import functools

# Terminals that stand for a class of words rather than one spelling.
_CLASSES = {
    "NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "$END": "end of file",
}


@functools.cache
def _spellings() -> dict[str, str]:
    """Terminal → its one spelling, for keywords and punctuation, as the tables say."""
    from idlc.syntax.parser import _table_data

    data = _table_data()
    return {terminal: text for text, terminal in {**data.keywords, **data.punctuation}.items()}


@functools.cache
def _punctuation() -> frozenset[str]:
    from idlc.syntax.parser import _table_data

    return frozenset(_table_data().punctuation.values())


@functools.cache
def type_starts() -> frozenset[str]:
    """Every terminal that can begin a type: an expected set containing all of them reads
    better as "a type" than as a list of twenty words."""
    from idlc.syntax.parser import _table_data

    return _table_data().firsts["type"]


def spelling(terminal: str) -> str | None:
    """The exact text of a keyword or punctuation terminal, None for NAME, STRING …"""
    if terminal in _CLASSES:
        return None
    return _spellings().get(terminal, terminal.lower())


def describe_expected(terminal: str) -> str:
    """`;`, `interface`, or "a name" — for "expected …" lists."""
    if terminal in _CLASSES:
        return _CLASSES[terminal]
    return f"`{spelling(terminal)}`"


def describe_found(terminal: str, text: str) -> str:
    """What was found, for "…, found …": `keyword \\`type\\``, `name \\`foo\\``."""
    if terminal == "$END":
        return "end of file"
    if terminal == "NAME":
        return f"`{text}`" if len(text) <= 40 else f"`{text[:39]}…`"
    if terminal == "STRING":
        shown = text if len(text) <= 40 else text[:37] + '..."'
        return f"string {shown}"
    if terminal == "NUMBER":
        return f"number `{text}`"
    if terminal in _punctuation():
        return f"`{text}`"
    return f"keyword `{text}`"


def expected_list(terminals: set[str] | frozenset[str]) -> str:
    """A readable "expected …" phrase for a set of terminal names."""
    names = set(terminals)
    parts: list[str] = []
    starts = type_starts()
    if starts <= names:
        names -= starts
        parts.append("a type")
    parts.extend(sorted(describe_expected(name) for name in names))
    if not parts:
        return "nothing more"
    if len(parts) == 1:
        return parts[0]
    if len(parts) > 8:
        return "one of " + ", ".join(parts[:8]) + ", …"
    return "one of " + ", ".join(parts[:-1]) + " or " + parts[-1]
