"""Every Python name idlc gives to something from an IDL file is decided here.

Keeping the rules in one place means the resolver can report two IDL names that would
become the same Python name (`fooBar` and `foo_bar`) before any code is generated, with
exactly the names the generator will use.
"""

from __future__ import annotations

import keyword
import re

_WORD_BOUNDARY_1 = re.compile(r"([A-Z]+)([A-Z][a-z])")
_WORD_BOUNDARY_2 = re.compile(r"([a-z0-9])([A-Z])")
_NOT_IDENTIFIER = re.compile(r"[^0-9A-Za-z_]+")


def _escape(name: str) -> str:
    if not name:
        return "_"
    if name[0].isdigit():
        name = "_" + name
    if keyword.iskeyword(name) or keyword.issoftkeyword(name) and name == "_":
        name += "_"
    return name


def snake_case(name: str) -> str:
    """`createAgent` → `create_agent`, `HTTPServer` → `http_server`, `class` → `class_`."""
    name = _NOT_IDENTIFIER.sub("_", name)
    name = _WORD_BOUNDARY_1.sub(r"\1_\2", name)
    name = _WORD_BOUNDARY_2.sub(r"\1_\2", name)
    return _escape(name.lower())


def pascal_case(name: str) -> str:
    """`agent_message_chunk` → `AgentMessageChunk`, `createAgent` → `CreateAgent`."""
    parts = [part for part in _NOT_IDENTIFIER.sub("_", snake_case(name)).split("_") if part]
    result = "".join(part[:1].upper() + part[1:] for part in parts)
    return _escape(result)


def member_name(name: str) -> str:
    """The Python method for an interface member."""
    return snake_case(name)


def field_name(name: str) -> str:
    """The Python attribute (and keyword argument) for a record field."""
    return snake_case(name)


def enum_member_name(value: str) -> str:
    """The Python enum member for a string enum value: `end_turn` → `END_TURN`."""
    return _escape(snake_case(value).rstrip("_").upper() if value else "EMPTY")
