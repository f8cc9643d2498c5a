"""The resolved model of one compilation: what the files mean, ready for code generation.

Every name here is known to resolve: a `TypeRef` names a typedef of the model (an entry of
the arena `Model.typedefs`, which knows what each name stands for: `idlc.semantics.facts`),
an `AtomRef` an atom, an `InterfaceRef` an interface (declared, or opaque when it was only
imported). Nodes keep the span of the text they came from, so later stages (code
generation's own checks, `idlc breaking`) can still point at the source.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Union

from idlc.nodes import node
from idlc.source import Span

if TYPE_CHECKING:
    from idlc.semantics.facts import Typedefs


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
        return INTEGER_RANGES.get(self)


INTEGER_RANGES: dict[PrimitiveKind, tuple[int, int]] = {
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
class Unstable:
    """`@unstable(feature = name)`: the declaration (member, field, enum value, case) is part
    of feature `name`'s unstable surface (docs/language.md, "Stability")."""

    feature: str
    span: Span


# -- types --------------------------------------------------------------------------------


@node
class Primitive:
    kind: PrimitiveKind
    span: Span


@node
class Optional:
    """`optional<T>`: a T, or nothing (absent or `null`). With `nullable`, `nullable<T>`: a
    T or `null`, and a field of it is required like a T (docs/language.md, "Nullable and
    tri-state fields"). Both are `T | None` in Python; code that asks "may it be absent?"
    looks at `nullable` (`queries.optional_inner`)."""

    inner: Type
    span: Span
    nullable: bool = False


@node
class List:
    inner: Type
    span: Span


@node
class Map:
    """`map<string, T>`."""

    value: Type
    span: Span


@node
class AtomRef:
    atom: str  # the name of an atom of the model
    span: Span


@node
class InterfaceRef:
    interface: str  # the name of an interface of the model (maybe opaque)
    span: Span


@node
class TypeRef:
    """A use of a typedef by name."""

    name: str  # the name of a typedef of the model
    span: Span


class EmptyObject(enum.Enum):
    """The default `{}`: the empty map, or a record with every field at its default
    (docs/language.md, "Records and field defaults")."""

    VALUE = "{}"


EMPTY_OBJECT = EmptyObject.VALUE


@node
class Literal:
    """A field default as written: bool, int, float, str, an empty list (`[]` → `()`) or
    `{}` (`EMPTY_OBJECT`)."""

    value: bool | int | float | str | tuple[()] | EmptyObject
    raw: str
    span: Span


@node
class Field:
    name: str  # as written in the IDL; also the wire name
    type: Type
    default: Literal | None
    doc: str | None
    span: Span
    #: `lenient` / `skip-invalid` / `null-default` (docs/language.md, "Forward-compatible
    #: fields"): where the modifier is written, None when it is not.
    lenient: Span | None = None
    skip_invalid: Span | None = None
    null_default: Span | None = None
    #: `@unstable(feature = …)`, or None: stable.
    unstable: Unstable | None = None


@node
class Record:
    fields: tuple[Field, ...]
    span: Span
    #: `open record`: undeclared members are kept (docs/language.md, "Open records").
    open: bool = False


@node
class EnumValue:
    value: str
    doc: str | None
    span: Span
    #: The string literal as written (`"read-only"`), for messages.
    raw: str
    #: `@unstable(feature = …)`, or None: stable.
    unstable: Unstable | None = None


@node
class Enum:
    open: bool
    values: tuple[EnumValue, ...]
    span: Span


@node
class Case:
    """A variant case: `tag` is the string the tag field carries, None for `default:`.

    Its type is a `Record`, a `TypeRef` to a record, or `unit` (checked by the resolver).
    """

    tag: str | None
    type: Type
    doc: str | None
    span: Span
    #: The tag (or the `default` keyword) alone.
    name_span: Span | None = None
    #: `unknown: T;` (`Variant.unknown`), not a case of its own.
    unknown: bool = False
    #: The tag's string literal as written (`"http"`), for messages; None for `default:`
    #: and `unknown:`.
    raw: str | None = None
    #: `@unstable(feature = …)`, or None: stable.
    unstable: Unstable | None = None


@node
class Variant:
    open: bool
    tag_field: str
    cases: tuple[Case, ...]
    span: Span
    #: `fields { … }`: the fields every case carries beside its own (docs/language.md,
    #: "Variants"), or None.
    shared: Record | None = None
    #: `unknown: T;`: what the object of a tag an open variant does not know must also be
    #: (docs/language.md, "Variants"), or None.
    unknown: Case | None = None


@node
class Union_:
    alternatives: tuple[Type, ...]
    span: Span


Type = Union[
    Primitive, Optional, List, Map, AtomRef, InterfaceRef, TypeRef, Record, Enum, Variant, Union_
]


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


@node
class Binding:
    verb: Verb
    id: str  # the JSON-RPC method name
    execution: Execution | None  # None for `notify`
    span: Span

    @property
    def notify(self) -> bool:
        return self.verb is Verb.NOTIFY


@node
class AtomTarget:
    atom: str
    span: Span


@node
class InterfaceTarget:
    interface: str
    span: Span


@node
class Value:
    name: str
    id: str
    required: bool
    type: Type
    binding: Binding
    doc: str | None
    span: Span
    #: The declaration's name (the span above covers the whole declaration).
    name_span: Span | None = None
    #: `@unstable(feature = …)`, or None: stable.
    unstable: Unstable | None = None


@node
class Relation:
    name: str
    id: str
    required: bool
    cardinality: Cardinality
    target: AtomTarget | InterfaceTarget
    binding: Binding
    doc: str | None
    span: Span
    #: The declaration's name (the span above covers the whole declaration).
    name_span: Span | None = None
    #: `@unstable(feature = …)`, or None: stable.
    unstable: Unstable | None = None


@node
class Operation:
    name: str
    id: str
    required: bool
    input: Type
    output: Type
    binding: Binding
    doc: str | None
    span: Span
    #: The declaration's name (the span above covers the whole declaration).
    name_span: Span | None = None
    #: `@unstable(feature = …)`, or None: stable.
    unstable: Unstable | None = None


Member = Union[Value, Relation, Operation]


# -- declarations -------------------------------------------------------------------------


@node
class Atom:
    name: str
    id: str
    doc: str | None
    #: Every declaration of the atom (identical declarations in several files are one atom).
    spans: tuple[Span, ...]
    #: The name in its first declaration.
    name_span: Span | None = None
    #: `@unstable(feature = …)`, or None: stable.
    unstable: Unstable | None = None


@node
class Typedef:
    name: str
    type: Type
    doc: str | None
    span: Span
    #: The declaration's name (the span above covers the whole declaration).
    name_span: Span | None = None
    #: `@unstable(feature = …)`, or None: stable.
    unstable: Unstable | None = None


@node
class Interface:
    name: str
    id: str
    revision: str
    members: tuple[Member, ...]
    doc: str | None
    span: Span
    #: The declaration's name (the span above covers the whole declaration).
    name_span: Span | None = None
    #: `@unstable(feature = …)`, or None: stable.
    unstable: Unstable | None = None


@node
class OpaqueInterface:
    """An interface that was imported but is defined in no file of the compilation."""

    name: str
    #: Every `import interface` that named it.
    spans: tuple[Span, ...]


@node
class SourceInfo:
    path: str  # display path
    sha256: str  # of the file's bytes


@node
class Model:
    """One compilation. Every mapping is in declaration order (files in the order given)."""

    sources: tuple[SourceInfo, ...]
    atoms: dict[str, Atom]
    #: The arena `TypeRef`s name, with what each name stands for worked out once.
    typedefs: Typedefs
    interfaces: dict[str, Interface]
    opaque_interfaces: dict[str, OpaqueInterface]
    #: Every record, enum and variant written in the files, inline ones and those of a
    #: declaration that lost to another of its name (E0105) too, in the order converted:
    #: the scopes of names (fields, values, cases) a target checks for its own clashes.
    scopes: tuple[Record | Enum | Variant, ...]
