"""The forward-compatibility table of a generated record class (docs/language.md,
"Forward-compatible fields").

A record with `lenient`, `skip-invalid` or `null-default` fields is registered with the
runtime by one module-level statement, `_hooks.forward_compatible(Class, lenient=(…), …)`,
naming the Python attributes of those fields. The runtime's decoder uses it only when the
fast, strict msgspec decode of a message fails (docs/wire.md, "Forward-compatible decoding").
"""

from __future__ import annotations

from idlc import naming
from idlc.codegen.layout import bracket, python_string
from idlc.semantics import model as m


def _names(attributes: list[str]) -> str:
    quoted = [python_string(attribute) for attribute in attributes]
    if len(quoted) == 1:
        return f"({quoted[0]},)"
    return bracket("(", quoted, ")", 4)


def registration(class_name: str, record: m.Record) -> str | None:
    """The statement registering `class_name`'s lenient fields, or None when it has none."""
    lenient = [naming.attribute_name(f.name) for f in record.fields if f.lenient is not None]
    skip = [naming.attribute_name(f.name) for f in record.fields if f.skip_invalid is not None]
    null = [naming.attribute_name(f.name) for f in record.fields if f.null_default is not None]
    if not lenient and not skip and not null:
        return None
    arguments = [class_name]
    if lenient:
        arguments.append(f"lenient={_names(lenient)}")
    if skip:
        arguments.append(f"skip_invalid={_names(skip)}")
    if null:
        arguments.append(f"null_default={_names(null)}")
    return bracket("_hooks.forward_compatible(", arguments, ")", 0)
