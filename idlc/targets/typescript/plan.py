"""The TypeScript plan: every module, type, codec, member and method name the generated
package has, and each type's structure as the generator writes it (`TsType`), decided by the
mapping stage (`mapping.py`). Facts only: no TypeScript text but names and JSON literals."""

from __future__ import annotations

from typing import Literal, Union

from idlc.nodes import field, node

#: The primitive kinds: the IDL's, one codec each in the runtime (`$c.<kind>`).
PrimitiveName = Literal[
    "string",
    "bool",
    "float64",
    "bytes",
    "json",
    "unit",
    "int8",
    "int16",
    "int32",
    "uint8",
    "uint16",
    "uint32",
    "int64",
    "uint64",
]


@node
class Prim:
    kind: PrimitiveName


@node
class Named:
    """A type the package defines (typedef, inline type, reference): its TypeScript name;
    its codec is `codec`."""

    name: str
    codec: str
    module: str


@node
class Opt:
    """`optional<T>` where it is not a field's own: `T | null`."""

    inner: TsType


@node
class Nullable:
    inner: TsType


@node
class ListOf:
    inner: TsType


@node
class UniqueOf:
    """A `many-unique` relation's result: `readonly T[]`, entries distinct."""

    inner: TsType


@node
class MapOf:
    inner: TsType


TsType = Union[Prim, Named, Opt, Nullable, ListOf, UniqueOf, MapOf]

Presence = Literal["required", "optional", "tristate", "default"]


@node
class FieldPlan:
    """A record's (or a variant's shared) field: `wire` is the TypeScript property too."""

    wire: str
    type: TsType  # the property's type (a field's own `optional<…>` taken off)
    presence: Presence
    doc: str | None = None
    #: The default's JSON text (`default`), or the JSON a lenient field falls back to.
    default: str | None = None
    omit_default: bool = False
    fallback: str | None = None
    lenient: bool = False
    skip_invalid: bool = False
    null_default: bool = False


@node
class RecordPlan:
    name: str
    codec: str
    fields: tuple[FieldPlan, ...]
    open: bool
    doc: str | None


@node
class EnumValuePlan:
    key: str  # the const object's member
    value: str
    doc: str | None


@node
class EnumPlan:
    name: str
    codec: str
    values: tuple[EnumValuePlan, ...]
    open: bool
    doc: str | None


CaseKind = Literal["unit", "record", "union", "variant"]


@node
class CasePlan:
    tag: str | None  # None: the `default:` case
    kind: CaseKind
    type: TsType | None  # None for unit
    doc: str | None


@node
class VariantPlan:
    name: str
    codec: str
    tag: str
    open: bool
    shared: tuple[FieldPlan, ...]
    cases: tuple[CasePlan, ...]  # the tagged ones
    default: CasePlan | None
    unknown: TsType | None  # `unknown: T;`
    doc: str | None


@node
class UnionPlan:
    name: str
    codec: str
    alternatives: tuple[TsType, ...]
    doc: str | None


@node
class AliasPlan:
    name: str
    codec: str
    type: TsType
    doc: str | None


Definition = Union[RecordPlan, EnumPlan, VariantPlan, UnionPlan, AliasPlan]


@node
class RefPlan:
    name: str
    codec: str
    kind: Literal["atom", "interface"]
    declaration: str  # the atom's or interface's IDL name


@node
class AtomPlan:
    name: str  # the IDL name: the key of ATOMS
    id: str


#: How an operation's input travels (the runtime's `InputShape`, docs/wire.md §4).
InputShape = Literal["record", "variant", "unit", "wrapped"]


@node
class MethodPlan:
    name: str  # the TypeScript method
    member: str  # the IDL member
    wire: str
    shape: InputShape
    notify: bool
    required: bool
    input: TsType | None  # None for unit
    output: TsType  # Prim("unit") for none
    doc: str | None


@node
class InterfacePlan:
    name: str  # the skeleton class
    proxy: str
    module: str
    id: str
    revision: str
    methods: tuple[MethodPlan, ...]
    definitions: tuple[Definition, ...]  # its inline types, in written order
    doc: str | None


@node(frozen=False)
class Plan:
    """Every name of one TypeScript package, and what each module defines."""

    refs: list[RefPlan] = field(default_factory=list)
    atoms: list[AtomPlan] = field(default_factory=list)
    #: The `_types` module's definitions, in written order.
    definitions: list[Definition] = field(default_factory=list)
    interfaces: list[InterfacePlan] = field(default_factory=list)
