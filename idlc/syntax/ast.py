"""The syntax tree of one IDL file, as written: nothing is resolved yet.

Every node carries the `Span` of the text it came from. Doc comments (`///`) are attached
to the declaration, member, field, enum value or variant case they precede; all comments,
doc comments included, are also kept on the `File` for the formatter.
"""

from __future__ import annotations

import enum
from typing import Union, assert_never

from idlc.nodes import node
from idlc.source import Span


@node
class Comment:
    text: str  # as written, with its `//`, `///` or `/* */`
    span: Span

    @property
    def is_doc(self) -> bool:
        return self.text.startswith("///") and not self.text.startswith("////")

    @property
    def is_block(self) -> bool:
        return self.text.startswith("/*")


@node
class Doc:
    """The text of consecutive `///` lines, one entry per line without the `///` marker."""

    lines: tuple[str, ...]
    span: Span

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@node
class Name:
    value: str
    span: Span


@node
class StringLiteral:
    value: str  # decoded (escapes applied)
    raw: str  # as written, quotes included
    span: Span


@node
class Attribute:
    """`@name(key = value)` before a declaration, member, field, enum value or case; the
    resolver knows `@unstable(feature = name)` (docs/language.md, "Stability")."""

    name: Name
    key: Name
    value: Name
    span: Span


# -- types --------------------------------------------------------------------------------


class PrimitiveKind(enum.Enum):
    STRING = "string"
    BOOL = "bool"
    UNIT = "unit"
    FLOAT64 = "float64"
    BYTES = "bytes"
    JSON = "json"
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    UINT8 = "uint8"
    UINT16 = "uint16"
    UINT32 = "uint32"
    UINT64 = "uint64"

    @property
    def integer_range(self) -> tuple[int, int] | None:
        """The inclusive range of an integer kind, None for the others."""
        return _INTEGER_RANGES.get(self)


_INTEGER_RANGES = {
    PrimitiveKind.INT8: (-(2**7), 2**7 - 1),
    PrimitiveKind.INT16: (-(2**15), 2**15 - 1),
    PrimitiveKind.INT32: (-(2**31), 2**31 - 1),
    PrimitiveKind.INT64: (-(2**63), 2**63 - 1),
    PrimitiveKind.UINT8: (0, 2**8 - 1),
    PrimitiveKind.UINT16: (0, 2**16 - 1),
    PrimitiveKind.UINT32: (0, 2**32 - 1),
    PrimitiveKind.UINT64: (0, 2**64 - 1),
}


@node
class PrimitiveType:
    kind: PrimitiveKind
    span: Span


@node
class OptionalType:
    """`optional<T>`, or `nullable<T>` when `nullable` (docs/language.md, "Nullable and
    tri-state fields")."""

    inner: TypeExpr
    span: Span
    nullable: bool = False


@node
class ListType:
    inner: TypeExpr
    span: Span


@node
class MapType:
    """`map<string, T>`: the key is always `string`."""

    value: TypeExpr
    span: Span


@node
class AtomRefType:
    atom: Name
    span: Span


@node
class InterfaceRefType:
    interface: Name
    span: Span


@node
class NamedType:
    """A reference to a typedef (`type X = …;`)."""

    name: Name
    span: Span


class LiteralKind(enum.Enum):
    BOOL = "bool"
    NUMBER = "number"
    STRING = "string"
    EMPTY_LIST = "empty_list"
    EMPTY_OBJECT = "empty_object"


@node
class Literal:
    """A field default: `true`, `false`, a number, a string, `[]` or `{}`."""

    kind: LiteralKind
    value: bool | int | float | str | None  # None for `[]` and `{}`
    raw: str
    span: Span


@node
class Field:
    name: Name
    type: TypeExpr
    default: Literal | None
    doc: Doc | None
    span: Span
    #: Where `lenient` is written, if it is: a value that does not decode becomes the
    #: field's default (docs/language.md, "Forward-compatible fields").
    lenient: Span | None = None
    #: Where `skip-invalid` is written, if it is: list items that do not decode are dropped.
    skip_invalid: Span | None = None
    #: Where `null-default` is written, if it is: an explicit `null` is the field's default.
    null_default: Span | None = None
    #: The attributes written before it, in order.
    attributes: tuple[Attribute, ...] = ()


@node
class RecordType:
    fields: tuple[Field, ...]
    span: Span
    #: `open record`: undeclared members are kept (docs/language.md, "Open records").
    open: bool = False


@node
class EnumValue:
    value: StringLiteral
    doc: Doc | None
    span: Span
    #: The attributes written before it, in order.
    attributes: tuple[Attribute, ...] = ()


@node
class EnumType:
    open: bool
    values: tuple[EnumValue, ...]
    span: Span


@node
class VariantCase:
    """`"tag": T;`, or `default: T;` (then `tag` is None: the case used when the tag is absent),
    or `unknown: T;` (`tag` None and `unknown`: what an unknown tag's object must also be)."""

    tag: StringLiteral | None
    type: TypeExpr
    doc: Doc | None
    span: Span
    unknown: bool = False
    #: The attributes written before it, in order.
    attributes: tuple[Attribute, ...] = ()

    @property
    def is_default(self) -> bool:
        return self.tag is None and not self.unknown


@node
class VariantType:
    open: bool
    tag_field: StringLiteral
    cases: tuple[VariantCase, ...]
    span: Span
    #: `fields { … }`: the fields every case carries (a record body, spanning from
    #: `fields`), or None when not written.
    shared: RecordType | None = None


@node
class UnionType:
    alternatives: tuple[TypeExpr, ...]
    span: Span


TypeExpr = Union[
    PrimitiveType,
    OptionalType,
    ListType,
    MapType,
    AtomRefType,
    InterfaceRefType,
    NamedType,
    RecordType,
    EnumType,
    VariantType,
    UnionType,
]


def type_children(node: TypeExpr) -> tuple[TypeExpr, ...]:
    """The types written directly inside `node`: an optional's, list's or map's element, a
    record's fields', a variant's shared fields' and cases', a union's alternatives.

    Exhaustive over `TypeExpr`: a new kind of type is a mypy error here until its inner
    types are listed, and then every walker of the tree (the language server's index) finds
    the names inside it without a case of its own.
    """
    match node:
        case OptionalType() | ListType():
            return (node.inner,)
        case MapType():
            return (node.value,)
        case RecordType():
            return tuple([field.type for field in node.fields])
        case VariantType():
            shared = (node.shared,) if node.shared is not None else ()
            return shared + tuple([case.type for case in node.cases])
        case UnionType():
            return node.alternatives
        case PrimitiveType() | AtomRefType() | InterfaceRefType() | NamedType() | EnumType():
            return ()
        case _:
            assert_never(node)


# -- members ------------------------------------------------------------------------------


class Verb(enum.Enum):
    GET = "get"
    RESOLVE = "resolve"
    CALL = "call"
    NOTIFY = "notify"


class Execution(enum.Enum):
    SNAPSHOT = "snapshot"
    TRANSACTION = "transaction"


class Cardinality(enum.Enum):
    MANY_UNIQUE = "many-unique"
    OPTIONAL_ONE = "optional-one"
    EXACTLY_ONE = "exactly-one"


class TargetKind(enum.Enum):
    ATOM = "atom"
    INTERFACE = "interface"


@node
class Binding:
    verb: Verb
    verb_span: Span
    id: StringLiteral
    execution: Execution | None  # None for `notify`
    span: Span


@node
class Target:
    kind: TargetKind
    name: Name
    span: Span


@node
class ValueMember:
    required: bool
    name: Name
    id: StringLiteral
    type: TypeExpr
    binding: Binding
    doc: Doc | None
    span: Span
    #: The attributes written before it, in order.
    attributes: tuple[Attribute, ...] = ()


@node
class RelationMember:
    required: bool
    name: Name
    id: StringLiteral
    cardinality: Cardinality
    cardinality_span: Span
    target: Target
    binding: Binding
    doc: Doc | None
    span: Span
    #: The attributes written before it, in order.
    attributes: tuple[Attribute, ...] = ()


@node
class OperationMember:
    required: bool
    name: Name
    id: StringLiteral
    input: TypeExpr
    output: TypeExpr
    binding: Binding
    doc: Doc | None
    span: Span
    #: The attributes written before it, in order.
    attributes: tuple[Attribute, ...] = ()


Member = Union[ValueMember, RelationMember, OperationMember]


# -- declarations -------------------------------------------------------------------------


@node
class AtomDecl:
    name: Name
    id: StringLiteral
    doc: Doc | None
    span: Span
    #: The attributes written before it, in order.
    attributes: tuple[Attribute, ...] = ()


@node
class ImportDecl:
    name: Name
    doc: Doc | None
    span: Span


@node
class TypeDecl:
    name: Name
    type: TypeExpr
    doc: Doc | None
    span: Span
    #: The attributes written before it, in order.
    attributes: tuple[Attribute, ...] = ()


@node
class InterfaceDecl:
    name: Name
    id: StringLiteral
    revision: StringLiteral
    members: tuple[Member, ...]
    doc: Doc | None
    span: Span
    #: The attributes written before it, in order.
    attributes: tuple[Attribute, ...] = ()


Decl = Union[AtomDecl, ImportDecl, TypeDecl, InterfaceDecl]


@node
class File:
    path: str
    decls: tuple[Decl, ...]
    comments: tuple[Comment, ...] = ()
    #: The file's line ending as written ("\n" or "\r\n"), for the formatter.
    newline: str = "\n"
    #: Whether an attribute (`@unstable(…)`) is written anywhere in it: a file without any
    #: is the same in every view (`idlc.semantics.stability`).
    has_attributes: bool = False
