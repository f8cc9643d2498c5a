"""Forward-compatible decoding: the slow path taken only when a strict decode fails.

A record field marked `lenient` takes its default when its value does not decode, the items
of a `skip-invalid` list that do not decode are dropped, and a `null-default` field reads
an explicit `null` as its default (docs/language.md,
"Forward-compatible fields"; docs/wire.md, "Forward-compatible decoding"). Generated code
registers such fields with `hooks.forward_compatible`.

Decoding stays msgspec's typed decode: `LenientDecoder.decode` tries it first and, only
if it fails, decodes the message as plain JSON and converts it here, walking the type once:
parts of the type that reach no registered record are handed to `msgspec.convert` whole,
the others are converted field by field and item by item. A failure below a lenient field
stops at that field; any other failure travels up with its path and is raised as a
`msgspec.ValidationError` worded as msgspec words its own, so callers answer -32602 as
they do for any undecodable message. The strict path calls `convert` too, where it chooses
(a variant's case or its `default:` case, a union's alternative) and a choice that can meet
a `lenient` field fails strictly: so both paths choose alike (docs/wire.md §4). There is
no retry loop: each JSON node is converted at most once per alternative of an untagged
union it sits in (or per case of a variant whose `default:` case is its fallback).
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from idlc_runtime.codec.hooks import (
    LENIENCY,
    Leniency,
    OpenRecord,
    UnionBase,
    VariantBase,
    dec_hook,
    union_value,
)
from idlc_runtime.codec.memo import DECODED, json_kind, within_memo

__all__ = ["LenientDecoder", "convert", "is_lenient", "leniency_of", "reaches"]

_NONE = type(None)
_NO_LENIENCY = Leniency(frozenset(), frozenset())


class _Invalid(Exception):
    """A value that does not decode: msgspec's reason and the path to it (`.a[0].b`)."""

    def __init__(self, reason: str, path: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path

    def within(self, step: str) -> _Invalid:
        self.path = step + self.path
        return self

    def message(self) -> str:
        return f"{self.reason} - at `${self.path}`"


def _strict(obj: object, type_: Any) -> Any:
    try:
        return msgspec.convert(obj, type_, dec_hook=dec_hook)
    except msgspec.ValidationError as error:
        reason, marker, path = str(error).rpartition(" - at `$")
        if not marker:
            raise _Invalid(str(error)) from None
        raise _Invalid(reason, path.rstrip("`")) from None


# -- which types can meet a registered record --------------------------------------------


def leniency_of(cls: type) -> Leniency:
    """The forward-compatible fields of record class `cls` (inherited ones included)."""
    for klass in cls.__mro__:
        found = LENIENCY.get(klass)
        if found is not None:
            return found
    return _NO_LENIENCY


@functools.cache
def _fields(cls: type[msgspec.Struct]) -> tuple[msgspec.structs.FieldInfo, ...]:
    # msgspec resolves the annotations on every call: once per class is enough.
    return msgspec.structs.fields(cls)


def _inner_types(type_: Any) -> Iterator[Any]:
    origin = typing.get_origin(type_)
    if origin is not None:
        yield from typing.get_args(type_)
        return
    if not isinstance(type_, type):
        supertype = getattr(type_, "__supertype__", None)  # a NewType
        if supertype is not None:
            yield supertype
        return
    if issubclass(type_, VariantBase) and "__idlc_variant__" in type_.__dict__:
        info = type_.__idlc_variant__
        yield from info.cases.values()
        if info.default is not None:
            yield info.default
        if info.fields is not None:
            yield info.fields
        if info.unknown_type is not None:
            yield info.unknown_type
    elif issubclass(type_, UnionBase) and "__idlc_union__" in type_.__dict__:
        yield from type_.__idlc_union__.alternatives
    elif issubclass(type_, OpenRecord) and "__idlc_fields__" in type_.__dict__:
        yield type_.__idlc_fields__
    elif issubclass(type_, msgspec.Struct):
        for field in _fields(type_):
            yield field.type


@functools.cache
def is_lenient(type_: Any) -> bool:
    """Whether decoding `type_` can meet a record with forward-compatible fields."""
    seen: set[int] = set()
    stack = [type_]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, type) and issubclass(current, msgspec.Struct):
            if leniency_of(current) is not _NO_LENIENCY:
                return True
        stack.extend(_inner_types(current))
    return False


# -- conversion ------------------------------------------------------------------------------


def convert(obj: object, type_: Any) -> Any:
    """`obj` (plain JSON) as a `type_`, with the leniency of every record inside applied.

    Called within a decode under way (the strict path converts a variant's case or a
    union's alternative so: `hooks._choice`), it shares that decode's memo, so a recursive
    type is not converted again at every level.

    Raises `msgspec.ValidationError` when it still does not decode."""
    try:
        return within_memo(lambda: _convert(obj, type_))
    except _Invalid as invalid:
        raise msgspec.ValidationError(invalid.message()) from None
    except RecursionError:
        raise msgspec.ValidationError("JSON nested too deeply") from None


#: Marks this path's entries in the memo of the decode under way (`memo.DECODED`):
#: (_LENIENT, id of the JSON value, the alternatives or the variant's class) → the value,
#: or the failure. Without it a recursive union (or a variant whose tagged case fails
#: before its default case) is converted again at every level for each alternative above
#: it. Ids are compared only while the conversion that holds the values runs.
_LENIENT = "lenient"


def _convert(obj: object, type_: Any) -> Any:
    if not reaches(type_):
        return _strict(obj, type_)
    origin = typing.get_origin(type_)
    if origin is typing.Annotated:
        return _convert(obj, typing.get_args(type_)[0])
    if origin is typing.Union or origin is types.UnionType:
        return _union(obj, typing.get_args(type_))
    if origin is list:
        (item,) = typing.get_args(type_)
        return [_convert_at(value, item, f"[{index}]") for index, value in enumerate(_array(obj))]
    if origin is dict:
        _, value_type = typing.get_args(type_)
        return {
            key: _convert_at(value, value_type, f".{key}") for key, value in _object(obj).items()
        }
    if isinstance(type_, type):
        if issubclass(type_, VariantBase) and "__idlc_variant__" in type_.__dict__:
            return _variant(obj, type_)
        if issubclass(type_, UnionBase) and "__idlc_union__" in type_.__dict__:
            return union_value(type_, _union(obj, type_.__idlc_union__.alternatives))
        if issubclass(type_, msgspec.Struct):
            return _record(obj, type_)
        if issubclass(type_, OpenRecord) and "__idlc_fields__" in type_.__dict__:
            # Its declared fields as a record's; the members it does not declare kept.
            return type_._idlc_of(_record(obj, type_.__idlc_fields__), _object(obj))
    supertype = getattr(type_, "__supertype__", None)
    if supertype is not None:
        return _convert(obj, supertype)
    return _strict(obj, type_)


def reaches(type_: Any) -> bool:
    """`is_lenient(type_)`, and True for a type it cannot tell (unhashable)."""
    try:
        return is_lenient(type_)
    except TypeError:  # an unhashable annotation: convert it the slow way, to be safe
        return True


def _convert_at(obj: object, type_: Any, step: str) -> Any:
    try:
        return _convert(obj, type_)
    except _Invalid as invalid:
        raise invalid.within(step) from None


def _array(obj: object) -> list[Any]:
    if not isinstance(obj, list):
        raise _Invalid(f"Expected `array`, got `{json_kind(obj)}`")
    return obj


def _object(obj: object) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise _Invalid(f"Expected `object`, got `{json_kind(obj)}`")
    return obj


def _union(obj: object, alternatives: tuple[Any, ...]) -> Any:
    if obj is None and _NONE in alternatives:
        return None
    choices = [alternative for alternative in alternatives if alternative is not _NONE]
    # One struct alone is decoded as itself (its tag optional, as msgspec does), not as a
    # tagged union of one.
    tagged = _tagged_structs(choices) if len(choices) > 1 else None
    if tagged is not None:
        tag_field, by_tag = tagged
        record = _object(obj)
        tag = record.get(tag_field)
        case = by_tag.get(tag) if isinstance(tag, str) else None
        if case is None:
            if tag_field not in record:
                raise _Invalid(f"Object missing required field `{tag_field}`")
            raise _Invalid(f"Invalid value {tag!r}", f".{tag_field}")
        return _convert(obj, case)
    if len(choices) == 1:
        return _convert(obj, choices[0])
    return _remembered((_LENIENT, id(obj), alternatives), lambda: _first(obj, choices))


def _first(obj: object, choices: list[Any]) -> Any:
    """The first of `choices` that `obj` converts to."""
    for alternative in choices:
        try:
            return _convert(obj, alternative)
        except _Invalid:
            continue
    raise _Invalid(f"Expected one of the union's alternatives, got `{json_kind(obj)}`")


def _remembered(key: tuple[str, int, Any], convert: Callable[[], Any]) -> Any:
    """`convert()`, or what it gave (or raised) the last time for `key` in this conversion."""
    converted = DECODED.get()
    if converted is None:
        return convert()
    if key not in converted:
        try:
            converted[key] = convert()
        except _Invalid as invalid:
            converted[key] = invalid
    known = converted[key]
    if isinstance(known, _Invalid):
        raise _Invalid(known.reason, known.path)
    return known


def _tagged_structs(choices: list[Any]) -> tuple[str, dict[object, Any]] | None:
    """For msgspec's own tagged unions (a variant of plain case classes): the tag field
    and the case of each tag; None for any other union — also for the alternatives of a
    variant case that is a union of records, which share one tag (docs/language.md,
    "Variants"): they are tried in order."""
    fields = set()
    by_tag: dict[object, Any] = {}
    for choice in choices:
        if not (isinstance(choice, type) and issubclass(choice, msgspec.Struct)):
            return None
        config = choice.__struct_config__
        if config.tag_field is None:
            return None
        fields.add(config.tag_field)
        if config.tag in by_tag:
            return None
        by_tag[config.tag] = choice
    if len(fields) != 1:
        return None
    return fields.pop(), by_tag


def _variant(obj: object, cls: type[VariantBase]) -> Any:
    info = cls.__idlc_variant__
    if info.default is None:
        return info.decode(obj, _convert, _Invalid, _Invalid)
    # Its tagged case, then its default case, convert the same nested values: remembered.
    return _remembered(
        (_LENIENT, id(obj), cls), lambda: info.decode(obj, _convert, _Invalid, _Invalid)
    )


def _record(obj: object, cls: type[msgspec.Struct]) -> Any:
    record = _object(obj)
    config = cls.__struct_config__
    if config.tag_field is not None and config.tag_field in record:
        # A tagged class met alone (a one-case variant is an alias of its case): its tag,
        # when present, must be its own, as the strict decode requires.
        tag = record[config.tag_field]
        if type(tag) is not type(config.tag) or tag != config.tag:
            raise _Invalid(f"Invalid value {tag!r}").within(f".{config.tag_field}")
    leniency = leniency_of(cls)
    values: dict[str, Any] = {}
    for field in _fields(cls):
        if field.encode_name not in record:
            if field.required:
                raise _Invalid(f"Object missing required field `{field.encode_name}`")
            continue  # the class fills in the default
        raw = record[field.encode_name]
        if raw is None and field.name in leniency.null_default:
            values[field.name] = _fallback(field)
            continue
        try:
            if field.name in leniency.skip_invalid:
                values[field.name] = _skipping(raw, field.type)
            else:
                values[field.name] = _convert(raw, field.type)
        except _Invalid as invalid:
            if field.name not in leniency.lenient:
                raise invalid.within(f".{field.encode_name}") from None
            values[field.name] = _fallback(field)
    return cls(**values)


def _skipping(obj: object, type_: Any) -> Any:
    """A `skip-invalid` list (maybe optional): the items that decode, in order."""
    list_type = type_
    if typing.get_origin(type_) in (typing.Union, types.UnionType):
        if obj is None:
            return None
        list_type = next(a for a in typing.get_args(type_) if a is not _NONE)
    while typing.get_origin(list_type) is typing.Annotated:
        list_type = typing.get_args(list_type)[0]
    (item,) = typing.get_args(list_type)
    kept = []
    for value in _array(obj):
        try:
            kept.append(_convert(value, item))
        except _Invalid:
            continue
    return kept


def _fallback(field: msgspec.structs.FieldInfo) -> Any:
    """The value of a `lenient` field whose value does not decode (or of a `null-default`
    field that is `null`): its default, else the empty list or map of a required list or
    map (the checks allow nothing else)."""
    if field.default is not msgspec.NODEFAULT:
        return field.default
    if field.default_factory is not msgspec.NODEFAULT:
        return field.default_factory()
    origin = typing.get_origin(field.type)
    return {} if origin is dict else []


class LenientDecoder:
    """A JSON decoder into a type with forward-compatible fields: msgspec's typed decode,
    and the conversion above only for a message that fails it."""

    __slots__ = ("_strict", "_type")

    def __init__(self, type_: Any, strict: msgspec.json.Decoder[Any]) -> None:
        self._type = type_
        self._strict = strict

    @property
    def strict(self) -> msgspec.json.Decoder[Any]:
        """The typed decoder alone, without the fallback: it raises `ValidationError` for
        a message only the fallback decodes (for a caller that has a slower path of its own
        to retry on, and saves the call through this one on every message)."""
        return self._strict

    def decode(self, data: bytes | bytearray | memoryview | str) -> Any:
        try:
            return self._strict.decode(data)
        except msgspec.ValidationError:
            # The message is JSON (a syntax error is a DecodeError, not caught here).
            return convert(msgspec.json.decode(data), self._type)
