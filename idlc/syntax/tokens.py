"""How terminals of the grammar are shown to people in messages."""

from __future__ import annotations

# Terminals that stand for a class of words rather than one spelling.
_CLASSES = {
    "NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "$END": "end of file",
}

# Terminals spelled by punctuation or hyphenated keywords, by name.
_SPELLINGS = {
    "ATOM_REF": "atom-ref",
    "INTERFACE_REF": "interface-ref",
    "MANY_UNIQUE": "many-unique",
    "OPTIONAL_ONE": "optional-one",
    "EXACTLY_ONE": "exactly-one",
    "STRING_KW": "string",
    "ARROW": "->",
    "LBRACE": "{",
    "RBRACE": "}",
    "LANGLE": "<",
    "RANGLE": ">",
    "LSQB": "[",
    "RSQB": "]",
    "COLON": ":",
    "SEMI": ";",
    "COMMA": ",",
    "EQ": "=",
}

_PUNCTUATION = frozenset(
    {"ARROW", "LBRACE", "RBRACE", "LANGLE", "RANGLE", "LSQB", "RSQB", "COLON", "SEMI", "COMMA", "EQ"}
)

#: Every terminal that can begin a type: an expected set containing all of them reads
#: better as "a type" than as a list of twenty words.
TYPE_STARTS = frozenset(
    {
        "STRING_KW", "BOOL", "UNIT", "FLOAT64", "BYTES", "JSON", "INT8", "INT16", "INT32",
        "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "OPTIONAL", "LIST", "MAP",
        "ATOM_REF", "INTERFACE_REF", "RECORD", "OPEN", "ENUM", "VARIANT", "UNION", "NAME",
    }
)  # fmt: skip


def spelling(terminal: str) -> str | None:
    """The exact text of a keyword or punctuation terminal, None for NAME, STRING …"""
    if terminal in _CLASSES:
        return None
    if terminal in _SPELLINGS:
        return _SPELLINGS[terminal]
    return terminal.lower()


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
    if terminal in _PUNCTUATION:
        return f"`{text}`"
    return f"keyword `{text}`"


def expected_list(terminals: set[str] | frozenset[str]) -> str:
    """A readable "expected …" phrase for a set of terminal names."""
    names = set(terminals)
    parts: list[str] = []
    if TYPE_STARTS <= names:
        names -= TYPE_STARTS
        parts.append("a type")
    parts.extend(sorted(describe_expected(name) for name in names))
    if not parts:
        return "nothing more"
    if len(parts) == 1:
        return parts[0]
    if len(parts) > 8:
        return "one of " + ", ".join(parts[:8]) + ", …"
    return "one of " + ", ".join(parts[:-1]) + " or " + parts[-1]
