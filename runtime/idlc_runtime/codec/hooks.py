"""Decoding what plain msgspec types cannot say, for generated code.

msgspec decodes tagged unions of Structs natively, but three IDL shapes need a decision it
cannot make on its own:

- a variant with a `default:` case (the untagged case, also the fallback for a tag whose
  case does not decode) or an `open variant` (unknown tag → an "unknown" case that keeps the
  raw JSON object): `VariantInfo.decode`, docs/language.md "Variants";
- an untagged `union` of several records (the first alternative that validates wins);
- a `many-unique` relation result, where a duplicate entry is an error, not something to
  fold away silently;
- an `open record`, which keeps the members it does not declare: `OpenRecord`.

For these the generated code annotates fields with a class msgspec does not know (a
`VariantBase`/`UnionBase` subclass, or `UniqueSet[T]`), so msgspec hands the already
parsed JSON to `dec_hook`, which picks the concrete type and converts into it. Every case
class derives from its variant's base, which is how the hook's result satisfies msgspec's
type check. `enc_hook` only has to deal with the unknown case (its JSON goes out as kept,
its shared fields as decoded) and open records (declared fields and kept members).

Pass both hooks to every decoder and encoder that may meet generated types:
`msgspec.json.Decoder(T, dec_hook=dec_hook)`, `msgspec.json.Encoder(enc_hook=enc_hook)`.

This module imports msgspec and the standard library only: generated packages and the
runtime use it, the compiler never is imported by it.
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import msgspec

from idlc_runtime.codec.memo import DECODED, json_kind, within_memo

__all__ = [
    "CatchAllUnionBase",
    "JsonValue",
    "OpenEnum",
    "OpenRecord",
    "UInt64",
    "UnionBase",
    "UnionInfo",
    "UniqueSet",
    "UnknownCase",
    "VariantBase",
    "VariantInfo",
    "dec_hook",
    "enc_hook",
    "forward_compatible",
    "union_value",
]

#: The type of an IDL `json` value: whatever msgspec decodes JSON into.
JsonValue: typing.TypeAlias = Any

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class VariantInfo:
    """How to decode one variant: set by generated code on its `VariantBase` subclass."""

    tag_field: str
    #: Tag string → the case's class.
    cases: Mapping[str, type]
    #: The `default:` case, if the variant has one: taken when the tag is absent, and as the
    #: fallback when the tag names no case or its case does not decode.
    default: type | None
    #: The class that keeps an unknown tag's object, if the variant is `open`.
    unknown: type | None
    #: The struct of the shared fields (`fields { … }`) an unknown case must carry, if the
    #: variant is `open` and has any.
    fields: type | None = None
    #: What an unknown tag's object must also decode as (`unknown: T;`), if written: a
    #: record's class, or a union of records' base.
    unknown_type: Any = None

    def decode(
        self,
        obj: object,
        convert: Callable[[object, Any], object],
        failure: Callable[[str], Exception],
        errors: type[Exception],
    ) -> object:
        """The case `obj` (plain JSON) is, converted: the rule of docs/language.md,
        "Variants", written once for both decoding paths (the strict one here, the lenient
        one in `idlc_runtime.codec.lenient`).

        `convert(obj, type_)` converts or raises one of `errors`; `failure(reason)` is the
        error to raise when no case fits. Both paths choose alike only if `convert` decides
        for each case what the lenient rule decides: the strict path converts a case that
        fails strictly but can meet a `lenient` field leniently (`_choice`).
        """
        if not isinstance(obj, dict):
            raise failure(f"Expected `object`, got `{json_kind(obj)}`")
        if self.tag_field not in obj:
            if self.default is None:
                raise failure(f"Object missing required field `{self.tag_field}`")
            return convert(obj, self.default)
        tag = obj[self.tag_field]
        case = self.cases.get(tag) if isinstance(tag, str) else None
        if case is not None:
            try:
                return convert(obj, case)
            except errors as error:
                return self._fallback(obj, convert, errors, error)
        if self.unknown is not None and isinstance(tag, str):
            # An open variant keeps an unknown tag, its shared fields decoded, and the
            # object decoded as `unknown: T;` too, if written. That is the tag's case: when
            # it does not decode, the `default:` case is the fallback, as for a known tag.
            try:
                fields = None if self.fields is None else convert(obj, self.fields)
                typed = None if self.unknown_type is None else convert(obj, self.unknown_type)
            except errors as error:
                return self._fallback(obj, convert, errors, error)
            return self.unknown(obj, fields, typed)
        invalid = failure(f"Invalid value {tag!r} for tag field `{self.tag_field}`")
        return self._fallback(obj, convert, errors, invalid)

    def _fallback(
        self,
        obj: object,
        convert: Callable[[object, Any], object],
        errors: type[Exception],
        error: Exception,
    ) -> object:
        """The `default:` case for an object whose tag names no case or whose case does
        not decode; else `error`, what the tag asked for, which says best what is wrong."""
        if self.default is None:
            raise error
        try:
            return convert(obj, self.default)
        except errors:
            raise error from None


@dataclass(frozen=True, slots=True)
class UnionInfo:
    """The alternatives of an untagged union, tried in order."""

    alternatives: tuple[type, ...]


@dataclass(frozen=True, slots=True)
class Leniency:
    """The forward-compatible fields of one record class, by Python attribute name
    (docs/language.md, "Forward-compatible fields")."""

    #: `lenient` fields: a value that does not decode becomes the field's default.
    lenient: frozenset[str]
    #: `skip-invalid` list fields: items that do not decode are dropped.
    skip_invalid: frozenset[str]
    #: `null-default` fields: an explicit `null` is the field's default (or empty list/map).
    null_default: frozenset[str] = frozenset()


#: Record class → its forward-compatible fields, filled by generated code at import.
#: Read by `idlc_runtime.codec.lenient` only when a strict decode has failed.
LENIENCY: dict[type, Leniency] = {}


def forward_compatible(
    cls: type,
    *,
    lenient: tuple[str, ...] = (),
    skip_invalid: tuple[str, ...] = (),
    null_default: tuple[str, ...] = (),
) -> None:
    """Register the `lenient`, `skip-invalid` and `null-default` fields of a generated
    record class."""
    LENIENCY[cls] = Leniency(frozenset(lenient), frozenset(skip_invalid), frozenset(null_default))


class VariantBase:
    """The runtime base of every case class of a variant that needs `dec_hook`."""

    __slots__ = ()
    __idlc_variant__: ClassVar[VariantInfo]


class UnionBase:
    """The runtime base of every alternative of an untagged union."""

    __slots__ = ()
    __idlc_union__: ClassVar[UnionInfo]


class _AnyValue(type):
    """The metaclass of `CatchAllUnionBase`: every value is an instance of its classes."""

    def __instancecheck__(cls, instance: object) -> bool:
        return True


class CatchAllUnionBase(UnionBase, metaclass=_AnyValue):
    """The marker of a union whose last alternative is `json` (docs/language.md, "Unions"):
    the earlier alternatives are tried in order, and a value none of them decodes is kept
    as it came, as the last one's JSON value. msgspec checks what the hook returns against
    the annotated class, so every value is an instance of it (the alternatives' classes do
    not derive from it)."""

    __slots__ = ()


class UnknownCase:
    """A case of an `open variant` whose tag this side does not know: the JSON object, kept.

    Encoding it sends the same object back, so a value passes through unchanged — except
    for the variant's shared fields (`fields { … }`), which an unknown case carries decoded
    like a known one (`_idlc_fields`, read through the generated class's attributes) and
    sends as decoded: a `lenient` one that fell back goes out as its default. The same
    holds for the object decoded as the variant's `unknown: T;` (`_idlc_typed`).
    """

    __slots__ = ("_idlc_fields", "_idlc_typed", "data")

    def __init__(
        self,
        data: dict[str, Any],
        fields: msgspec.Struct | None = None,
        typed: msgspec.Struct | None = None,
    ) -> None:
        self.data = data
        info = getattr(type(self), "__idlc_variant__", None)
        # Built by hand: the shared fields and `unknown: T;` must decode, as for a decoded
        # value.
        if fields is None and info is not None and info.fields is not None:
            fields = msgspec.convert(data, info.fields, dec_hook=dec_hook)
        if typed is None and info is not None and info.unknown_type is not None:
            typed = msgspec.convert(data, info.unknown_type, dec_hook=dec_hook)
        self._idlc_fields = fields
        self._idlc_typed = typed

    @property
    def tag(self) -> object:
        """The value of the tag field (absent → None)."""
        info = getattr(type(self), "__idlc_variant__", None)
        return self.data.get(info.tag_field) if info is not None else None

    def _idlc_encoded(self) -> dict[str, Any]:
        """The JSON object this case encodes to: `data`, its shared fields (and `unknown:
        T;`) as decoded."""
        parts = [part for part in (self._idlc_fields, self._idlc_typed) if part is not None]
        if not parts:
            return self.data
        shared: dict[str, Any] = {}
        names: set[str] = set()
        for part in parts:
            shared.update(msgspec.to_builtins(part, enc_hook=enc_hook))
            names.update(part.__struct_encode_fields__)
        # In the order received; a shared field left out as its default is left out.
        encoded = {
            key: shared[key] if key in names else value
            for key, value in self.data.items()
            if key not in names or key in shared
        }
        for key, value in shared.items():
            encoded.setdefault(key, value)  # a default the object left out (`{}` records)
        return encoded

    # Equal when they send the same object: a shared field sent as `null` where its default
    # is null decodes as a known case's would, and goes out left out, as that case's does;
    # so the value decoded again from what one encodes to equals it.
    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return bool(self._idlc_encoded() == other._idlc_encoded())

    def __hash__(self) -> int:
        return hash((type(self), msgspec.json.encode(self._idlc_encoded(), order="sorted")))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.data!r})"


@typing.dataclass_transform(kw_only_default=True, field_specifiers=(msgspec.field,))
class OpenRecord:
    """The base of an `open record`'s class: its declared fields, and the members it does
    not declare kept in `extra` (docs/language.md, "Open records").

    msgspec encodes a `Struct` itself, without `enc_hook`, so an open record is not one: its
    declared fields live in a private struct (`__idlc_fields__`, decoded and encoded by
    msgspec as any record), read and written through properties; `dec_hook` and `enc_hook`
    add `extra`. A generated class body lists the fields as a struct's does (type checkers
    read it as a dataclass) and ends with `extra`; `__init_subclass__` turns the fields into
    those properties.
    """

    __slots__ = ("_idlc_fields", "extra")
    __idlc_fields__: ClassVar[type[msgspec.Struct]]
    #: The members `extra` never holds on the wire: the declared fields' wire names. (A
    #: `$target` that routed a call is taken out by the runtime's handling, which alone
    #: knows whether the connection routes by it: docs/wire.md §5.)
    __idlc_not_kept__: ClassVar[frozenset[str]]
    extra: dict[str, Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = cls.__dict__.get("__idlc_fields__")
        if fields is None:
            return
        for name in fields.__struct_fields__:
            setattr(cls, name, _field_property(name))
        if "extra" in cls.__dict__:
            delattr(cls, "extra")  # the class body's `msgspec.field`; the slot holds it
        cls.__idlc_not_kept__ = frozenset(fields.__struct_encode_fields__)

    def __init__(self, *, extra: Mapping[str, Any] | None = None, **fields: Any) -> None:
        self._idlc_fields = self.__idlc_fields__(**fields)
        self.extra = {} if extra is None else dict(extra)

    @classmethod
    def _idlc_of(cls, fields: msgspec.Struct, obj: dict[str, Any]) -> OpenRecord:
        """The record decoded from `obj`, whose declared fields decoded to `fields`."""
        record = object.__new__(cls)
        record._idlc_fields = fields
        not_kept = cls.__idlc_not_kept__
        record.extra = {key: value for key, value in obj.items() if key not in not_kept}
        return record

    def _idlc_encoded(self) -> dict[str, Any]:
        """The JSON object: the declared fields as a record writes them, then the kept
        members. A member of `extra` named like a declared field is never written: the
        field says it (also when the field is left out as its default)."""
        encoded: dict[str, Any] = msgspec.to_builtins(self._idlc_fields, enc_hook=enc_hook)
        not_kept = self.__idlc_not_kept__
        for key, value in self.extra.items():
            if key not in not_kept:
                encoded[key] = value
        return encoded

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return bool(self._idlc_fields == other._idlc_fields and self.extra == other.extra)

    __hash__ = None  # type: ignore[assignment]  # mutable, as a record's struct is

    def __repr__(self) -> str:
        fields = self._idlc_fields
        shown = [f"{name}={getattr(fields, name)!r}" for name in fields.__struct_fields__]
        if self.extra:
            shown.append(f"extra={self.extra!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


def _field_property(name: str) -> property:
    def get(self: OpenRecord) -> Any:
        return getattr(self._idlc_fields, name)

    def set_(self: OpenRecord, value: Any) -> None:
        setattr(self._idlc_fields, name, value)

    return property(get, set_, doc=f"The declared field `{name}`.")


def _decode_open_record(cls: type[OpenRecord], obj: object) -> OpenRecord:
    if not isinstance(obj, dict):
        raise ValueError(f"Expected `object`, got `{json_kind(obj)}`")
    return cls._idlc_of(_convert(obj, cls.__idlc_fields__), obj)


class OpenEnum(enum.Enum):
    """The base of an `open enum`: a value not listed becomes a member of its own.

    `Color("mauve")` is a `Color` whose `.value` is `"mauve"` and whose `.known` is False;
    it encodes back to `"mauve"`. Equal unknown values give the same member.
    """

    @classmethod
    def _missing_(cls, value: object) -> OpenEnum | None:
        if not isinstance(value, str):
            return None
        unknown: dict[str, OpenEnum] = cls.__dict__.get("_idlc_unknown_", None) or {}
        member = unknown.get(value)
        if member is None:
            member = object.__new__(cls)
            member._name_ = value
            member._value_ = value
            if len(unknown) < _UNKNOWN_ENUM_CACHE:
                unknown[value] = member
                type.__setattr__(cls, "_idlc_unknown_", unknown)
        return member

    @property
    def known(self) -> bool:
        """Whether the value is one the IDL lists."""
        return self._name_ in type(self).__members__


# Unknown open-enum values are interned so equal values compare equal; the cap keeps a
# hostile peer from growing the table without bound (beyond it, values still decode).
_UNKNOWN_ENUM_CACHE = 1024


class UInt64(int):
    """A `uint64` as decoded: msgspec cannot bound integers beyond int64, so this type does.

    Generated code shows mypy a plain `int`; only the decoder sees this class.
    """

    __slots__ = ()


_UINT64_MAX = 2**64 - 1


class UniqueSet(frozenset[T]):
    """A `many-unique` result: decoding rejects a duplicate entry instead of folding it."""

    __slots__ = ()


def _relative(error: msgspec.ValidationError) -> str:
    """msgspec's message for a nested conversion, its path made relative to the hook's."""
    reason, marker, path = str(error).rpartition(" - at `")
    if not marker:
        return str(error)
    path = path.rstrip("`")
    if path == "$":
        return reason
    return f"{reason} (at `{path[1:]}` within)"


def _convert(obj: object, type_: Any) -> Any:
    try:
        return msgspec.convert(obj, type_, dec_hook=dec_hook)
    except msgspec.ValidationError as error:
        raise ValueError(_relative(error)) from None


def _decode_variant(cls: type[VariantBase], obj: object) -> object:
    info = cls.__idlc_variant__
    if info.default is None:
        return info.decode(obj, _convert, ValueError, ValueError)
    # A tagged case that fails falls back on the default case, which converts the same
    # nested values again: remembered, like unions', so that stays linear in the depth.
    return _remembered(cls, obj, lambda: info.decode(obj, _choice, ValueError, ValueError))


def _choice(obj: object, type_: Any) -> Any:
    """`obj` as `type_`, one of the choices of a variant or union, decided as the lenient
    rule decides it (docs/wire.md §4: the same in both decoding paths): strictly, else —
    when `type_` can meet a `lenient` field that the lenient path would let fall back —
    leniently, here, before the next choice is tried. A choice left to the lenient path
    instead would let a later choice win on the strict path that the lenient rule never
    reaches."""
    try:
        return msgspec.convert(obj, type_, dec_hook=dec_hook)
    except msgspec.ValidationError as error:
        from idlc_runtime.codec import lenient  # the lenient path imports this module

        if not lenient.reaches(type_):
            raise ValueError(_relative(error)) from None
        try:
            return lenient.convert(obj, type_)  # within this decode's memo, so linear
        except msgspec.ValidationError as still:
            raise ValueError(_relative(still)) from None


def _remembered(cls: type, obj: object, decode: Callable[[], object]) -> object:
    decoded = DECODED.get()
    if decoded is None:
        return within_memo(lambda: _remembered(cls, obj, decode))
    key = (id(obj), cls)
    known = decoded.get(key)
    if known is None:
        try:
            known = decoded[key] = (True, decode())
        except ValueError as error:
            known = decoded[key] = (False, str(error))
    matched, value = known
    if not matched:
        raise ValueError(value)
    return value


def _decode_union(cls: type[UnionBase], obj: object) -> object:
    return _remembered(cls, obj, lambda: _first_alternative(cls, obj))


def _first_alternative(cls: type[UnionBase], obj: object) -> object:
    reasons = []
    for alternative in cls.__idlc_union__.alternatives:
        try:
            return union_value(cls, _choice(obj, alternative))
        except ValueError as error:
            reasons.append(f"{_type_name(alternative)}: {error}")
    raise ValueError("No alternative matches (" + "; ".join(reasons) + ")")


def union_value(cls: type[UnionBase], value: object) -> object:
    """The decoded `value` of an alternative of union `cls` as msgspec accepts it for `cls`:
    itself for a record (which derives from `cls`); for a union of lists (whose marker `cls`
    is a list: docs/language.md, "Unions"), the same items in a `cls`."""
    if isinstance(value, list) and issubclass(cls, list):
        return cls(value)
    return value


def _type_name(type_: Any) -> str:
    """`Opt`, `list[Opt]`: how a message names an alternative."""
    arguments = typing.get_args(type_)
    if arguments:
        origin = typing.get_origin(type_)
        return f"{origin.__name__}[{', '.join(_type_name(a) for a in arguments)}]"
    return str(getattr(type_, "__name__", type_))


def _decode_unique(type_: Any, obj: object) -> UniqueSet[Any]:
    (item_type,) = typing.get_args(type_) or (Any,)
    items: list[Any] = _convert(obj, list[item_type])  # type: ignore[valid-type]
    unique = UniqueSet(items)
    if len(unique) != len(items):
        seen: set[Any] = set()
        for index, item in enumerate(items):
            if item in seen:
                raise ValueError(f"Duplicate entry {item!r} at index {index}")
            seen.add(item)
    return unique


def dec_hook(type_: Any, obj: Any) -> Any:
    """msgspec's `dec_hook` for generated types; raises NotImplementedError for others."""
    origin = typing.get_origin(type_) or type_
    if isinstance(origin, type):
        if issubclass(origin, VariantBase) and "__idlc_variant__" in origin.__dict__:
            return _decode_variant(origin, obj)
        if issubclass(origin, UnionBase) and "__idlc_union__" in origin.__dict__:
            return _decode_union(origin, obj)
        if issubclass(origin, OpenRecord) and "__idlc_fields__" in origin.__dict__:
            return _decode_open_record(origin, obj)
        if issubclass(origin, UniqueSet):
            return _decode_unique(type_, obj)
        if issubclass(origin, UInt64):
            if type(obj) is not int:
                raise ValueError(f"Expected `int`, got `{json_kind(obj)}`")
            if obj < 0:
                raise ValueError("Expected `int` >= 0")
            if obj > _UINT64_MAX:
                raise ValueError(f"Expected `int` <= {_UINT64_MAX}")
            return origin(obj)
    raise NotImplementedError(f"Objects of type {type_!r} are not supported")


def enc_hook(obj: Any) -> Any:
    """msgspec's `enc_hook` for generated types; raises NotImplementedError for others."""
    if isinstance(obj, (UnknownCase, OpenRecord)):
        return obj._idlc_encoded()
    if isinstance(obj, frozenset):
        return list(obj)
    if isinstance(obj, int):
        return int(obj)
    raise NotImplementedError(f"Objects of type {type(obj).__name__} are not supported")
