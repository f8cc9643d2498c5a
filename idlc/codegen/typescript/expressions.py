"""TypeScript text of the plan's types: a type expression, a codec expression, a property
key, a doc comment. It tells apart only the plan's `TsType`s (the mapping decided them)."""

from __future__ import annotations

import json
from typing import assert_never

from idlc.targets.typescript.naming import is_identifier
from idlc.targets.typescript.plan import (
    ListOf,
    MapOf,
    Named,
    Nullable,
    Opt,
    Prim,
    TsType,
    UniqueOf,
)

_PRIMITIVES = {
    "string": "string",
    "bool": "boolean",
    "float64": "number",
    "bytes": "Uint8Array",
    "json": "$JsonValue",
    "unit": "null",
    "int8": "number",
    "int16": "number",
    "int32": "number",
    "uint8": "number",
    "uint16": "number",
    "uint32": "number",
    "int64": "bigint",
    "uint64": "bigint",
}


def type_expr(type_: TsType) -> str:
    """The TypeScript type of `type_`."""
    match type_:
        case Prim():
            return _PRIMITIVES[type_.kind]
        case Named():
            return type_.name
        case Opt() | Nullable():
            inner = type_expr(type_.inner)
            return inner if inner.endswith("| null") else f"{inner} | null"
        case ListOf():
            return _element(type_.inner) + "[]"
        case UniqueOf():
            return "readonly " + _element(type_.inner) + "[]"
        case MapOf():
            return f"Record<string, {type_expr(type_.inner)}>"
        case _:
            assert_never(type_)


def _element(type_: TsType) -> str:
    text = type_expr(type_)
    return f"({text})" if "|" in text or text.startswith("readonly ") else text


def result_expr(type_: TsType) -> str:
    """A method's result type: `void` for `unit`."""
    return "void" if type_ == Prim("unit") else type_expr(type_)


def codec_expr(type_: TsType, module: str | None = None) -> str:
    """The runtime codec of `type_` (`$c` is the runtime's `codec` namespace), written in
    `module`. A codec of the same module is taken lazily (its definitions may come in any
    order and refer to themselves); another module's was made before this one was
    imported (`_refs` ← `_types` ← interface modules: no cycle), and so is every codec by
    the time a function body runs (`module` None)."""
    match type_:
        case Prim():
            return f"$c.{type_.kind}"
        case Named():
            if type_.module == module:
                return f"$c.lazy(() => {type_.codec})"
            return type_.codec
        case Opt():
            return f"$c.optional({codec_expr(type_.inner, module)})"
        case Nullable():
            return f"$c.nullable({codec_expr(type_.inner, module)})"
        case ListOf():
            return f"$c.list({codec_expr(type_.inner, module)})"
        case UniqueOf():
            return f"$c.uniqueList({codec_expr(type_.inner, module)})"
        case MapOf():
            return f"$c.map({codec_expr(type_.inner, module)})"
        case _:
            assert_never(type_)


def codec_now(type_: TsType) -> str:
    return codec_expr(type_)


def uses(type_: TsType) -> list[Named]:
    """The named types `type_` refers to."""
    match type_:
        case Prim():
            return []
        case Named():
            return [type_]
        case Opt() | Nullable() | ListOf() | UniqueOf() | MapOf():
            return uses(type_.inner)
        case _:
            assert_never(type_)


def uses_json(type_: TsType) -> bool:
    match type_:
        case Prim():
            return type_.kind == "json"
        case Named():
            return False
        case Opt() | Nullable() | ListOf() | UniqueOf() | MapOf():
            return uses_json(type_.inner)
        case _:
            assert_never(type_)


def key(name: str) -> str:
    """A property name: as it is when an identifier, else a string literal."""
    return name if is_identifier(name) else json.dumps(name, ensure_ascii=True)


def string(text: str) -> str:
    """A TypeScript string literal."""
    return json.dumps(text, ensure_ascii=True)


def doc(text: str | None, indent: int = 0) -> str:
    """A `/** … */` comment of `text` (with its newline), or nothing."""
    if not text:
        return ""
    pad = " " * indent
    lines = text.replace("*/", "*\\/").splitlines()
    if len(lines) == 1:
        return f"{pad}/** {lines[0]} */\n"
    body = "".join(f"{pad} *{' ' + line if line else ''}\n" for line in lines)
    return f"{pad}/**\n{body}{pad} */\n"


FILTERS = {
    "ts_type": type_expr,
    "ts_result": result_expr,
    "ts_codec": codec_expr,
    "ts_codec_now": codec_now,
    "ts_key": key,
    "ts_string": string,
    "ts_doc": doc,
}
