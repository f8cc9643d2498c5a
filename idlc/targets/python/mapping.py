"""The Python mapping, decided and checked before any code is written (E0201–E0205).

`plan` gives every type that needs a class its Python name and module, every union of
records the base classes it needs, and the facts code generation would otherwise ask the
model for (a variant case's classes and records, an input's style, a field's default),
reporting what cannot be mapped to Python: two things
with one generated name (E0201), a name the generated code keeps for itself (E0202), a
union msgspec cannot decode (E0203), a type alias that refers to itself (E0204), a shared
field of an open variant named like an attribute of its unknown case (E0205).

The resolver runs it, so `idlc check` reports all of these; code generation
(`idlc.codegen.build`) builds on the same plan, so `idlc generate` never finds a problem
that `check` did not. Names come from `idlc.targets.python.naming` only. See docs/python-mapping.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal, assert_never

from idlc.diagnostics import Diagnostics, Related, codes
from idlc.nodes import ByNode, NodeSet, field, node
from idlc.semantics import model as m
from idlc.semantics import queries, shapes
from idlc.semantics.shapes import (
    catch_all_union,
    is_object_shaped,
    is_record,
    is_unit,
    list_union,
    union_case,
    variant_case,
)
from idlc.semantics.types import name_span
from idlc.source import Span
from idlc.targets.python import naming
from idlc.targets.python.decoding import hooked, native_union
from idlc.targets.python.definitions import (
    NAMED_KINDS,
    Definition,
    EnumDefinition,
    RecordDefinition,
    UnionDefinition,
    VariantDefinition,
    definitions,
)
from idlc_runtime.contract import RESERVED_NAMES

if TYPE_CHECKING:
    from idlc.targets.python.hints import FieldFacts
    from idlc.targets.python.leniency import ForwardCompatible

TYPES_MODULE = naming.TYPES_MODULE
REFS_MODULE = naming.REFS_MODULE
#: `_refs`'s table of every atom's id (`ATOMS`)
ATOMS = naming.ATOMS
#: the attribute of an open record's class keeping what it does not declare
OPEN_RECORD_EXTRA = naming.OPEN_RECORD_EXTRA


#: The types that are, or may hold, one of them (the others need no name: a quick test).
_MAY_HOLD_INLINE = (*NAMED_KINDS, m.Optional, m.List, m.Map)
#: What the unknown case of an open variant has itself (`idlc_runtime.hooks.UnknownCase`):
#: its shared fields cannot be attributes of these names (E0205).
UNKNOWN_CASE_ATTRIBUTES = frozenset({"data", "tag"})


@node(frozen=False)
class Place:
    name: str
    module: str
    span: Span
    what: str


#: How a member's input travels (docs/wire.md §4) and how Python passes it:
#: `none` (a unit input, or no input: no params), `fields` (an inline closed record: its
#: fields are keyword arguments, sent as the record), `object` (a named record, an open
#: record or a variant: one argument `input`, sent as the params object itself), `wrapped`
#: (anything else: `input`, sent as `{"input": …}` in the params wrapper class).
InputStyle = Literal["none", "fields", "object", "wrapped"]


@node
class MemberNames:
    """What one interface member is called in Python, and how its input is passed."""

    #: the skeleton's and the proxy's method (`create_agent`)
    method: str
    #: the adapter function the dispatch table calls (`_invoke_create_agent`)
    invoke: str
    #: the `{"input": …}` params class of an input that is not an object
    #: (docs/wire.md §4), or None
    params: str | None
    input_style: InputStyle = "none"
    #: The `fields` style: the inline record's fields, its keyword arguments.
    input_fields: tuple[m.Field, ...] = ()


@node
class InterfaceNames:
    """What one interface is called in Python: its module, its classes, its members'."""

    module: str
    skeleton: str
    proxy: str
    #: by the member's IDL name
    members: dict[str, MemberNames]


@node
class CaseClass:
    """One class a variant case is written as, and where its fields come from."""

    name: str
    #: The record whose fields the class declares itself: the case's inline record, or the
    #: record of a typedef whose class this is (`Plan.case_records`); None for no fields.
    record: m.Record | None = None
    #: The named record (the type as written) the class derives from instead, and that
    #: record's fields, which it inherits; None when it derives from no record.
    parent: m.Type | None = None
    inherited: tuple[m.Field, ...] = ()
    #: The class's doc comment.
    doc: str | None = None


@node
class CaseNames:
    """The classes of one variant case, and what the case holds."""

    #: The case's class (`McpServerHttp`); for a union case or a variant case, the name its
    #: classes are named after.
    name: str
    #: A union case's or a variant case's own base class (`_McpServerHttpBase`), else None.
    base: str | None = None
    #: The classes the case is written as: the case class; for a union case one per
    #: alternative (`<Case>Option1`, …); none for a variant case (`cases`).
    classes: tuple[CaseClass, ...] = ()
    #: A union case: the union of records it holds (through typedef names), else None.
    union: m.Union_ | None = None
    #: A variant case: the variant on another tag field it holds, else None; and the
    #: names of its cases, in its order (`<Case><InnerTag>`; one that is a variant again
    #: has cases of its own, `<Case><InnerTag><InnerInnerTag>`, and so on).
    variant: m.Variant | None = None
    cases: tuple[CaseNames, ...] = ()
    #: A variant case whose inner variant is open: its unknown-tag class, and the struct of
    #: the shared fields that class carries (None when there are none).
    unknown: str | None = None
    shared_fields: str | None = None
    #: The fields of the inner variant's `unknown: T;` its unknown-tag class exposes.
    unknown_fields: tuple[m.Field, ...] = ()


@node
class VariantNames:
    """The classes of one variant (other than its cases' inline records, in `Plan.inline`)."""

    #: The marker base class of a hooked variant (`_ShapeBase`); None for a native one,
    #: which is an alias of its cases' union.
    marker: str | None
    #: In the order of `Variant.cases`.
    cases: tuple[CaseNames, ...]
    #: An open variant: its unknown-tag class, and the struct of the shared fields that class
    #: carries (None when there are none).
    unknown: str | None = None
    shared_fields: str | None = None
    #: The fields of the variant's `unknown: T;` its unknown-tag class exposes (those T
    #: always has: `queries.unknown_case_fields`).
    unknown_fields: tuple[m.Field, ...] = ()


@node(frozen=False)
class Plan:
    """What code generation needs from the mapping: every name the package declares at the
    level of a module (a class, an alias or a function), where it lives, how classes
    relate, and how each type's Python form is written: code generation reads these facts
    and asks the model no question (`tests/test_layers.py`)."""

    #: type node → (class name, module), for every inline record, enum, variant, union
    inline: ByNode[m.Type, tuple[str, str]] = field(default_factory=ByNode)
    #: atom or interface (also an imported one) → its reference class, in `_refs`
    refs: dict[str, str] = field(default_factory=dict)
    #: typedef → its class or alias, in `_types`
    typedefs: dict[str, str] = field(default_factory=dict)
    #: interface (defined here) → its names
    interfaces: dict[str, InterfaceNames] = field(default_factory=dict)
    #: variant node → its classes, for every variant (inline or a typedef)
    variants: ByNode[m.Variant, VariantNames] = field(default_factory=ByNode)
    #: union node → the marker base class of a union msgspec cannot decode natively
    union_markers: ByNode[m.Union_, str] = field(default_factory=ByNode)
    #: the unions with a marker whose alternatives are all lists: tried in order, into a
    #: list (docs/language.md, "Unions")
    list_unions: NodeSet[m.Union_] = field(default_factory=NodeSet)
    #: open record node → the private struct of its declared fields
    open_record_fields: ByNode[m.Record, str] = field(default_factory=ByNode)
    #: a field's wire name → its attribute (also its keyword argument), for every field
    attributes: dict[str, str] = field(default_factory=dict)
    #: field node → how it is written beside its name and type, for every field that is
    #: not `hints.PLAIN` (most are)
    fields: ByNode[m.Field, FieldFacts] = field(default_factory=ByNode)
    #: the optionals whose inner type's expression is `None` itself (`unit`…, through
    #: aliases): theirs is the inner one (`None | None` would not load)
    optional_of_none: NodeSet[m.Optional] = field(default_factory=NodeSet)
    #: the fields whose type is written `nullable<T>`: required (no default), their `None`
    #: sent as `null`
    nullable_fields: NodeSet[m.Field] = field(default_factory=NodeSet)
    #: an enum value → its enum member, for every value of every enum
    enum_members: dict[str, str] = field(default_factory=dict)
    #: an integer kind (`"uint8"`) → the module-level alias bounding it (`_UInt8`)
    integer_aliases: dict[str, str] = field(default_factory=dict)
    #: record class name → the union base classes it must derive from
    union_bases: dict[str, list[str]] = field(default_factory=dict)
    #: Record typedefs (Python names) whose class is a variant's case class: named like
    #: that case class and used nowhere else (docs/language.md, "Variants").
    case_records: set[str] = field(default_factory=set)
    #: typedef → the definitions it writes into `_types`, in order: its own (none for a
    #: record that is a variant's case class: the variant writes it), then those of the
    #: inline types inside it (`idlc.targets.python.definitions`)
    typedef_definitions: dict[str, tuple[Definition, ...]] = field(default_factory=dict)
    #: interface (defined here) → the definitions of its members' inline types, in order
    interface_definitions: dict[str, tuple[Definition, ...]] = field(default_factory=dict)
    #: record class name → the attributes it registers as forward-compatible with the
    #: runtime, for every class with such fields (`idlc.targets.python.leniency`)
    forward_compatible: dict[str, ForwardCompatible] = field(default_factory=dict)
    #: Whether the facts only code generation reads were made: `fields`, `nullable_fields`,
    #: `optional_of_none`, the definitions and `forward_compatible` (`plan(…, facts=True)`).
    #: `idlc check` plans without them; no diagnostic comes from them.
    has_facts: bool = False


def plan(model: m.Model, diagnostics: Diagnostics, *, facts: bool = True) -> Plan:
    """The names and union bases of the package generated from `model`; every problem is
    added to `diagnostics`. With `facts`, and no error, also how code generation writes
    each field, type and definition (`Plan.has_facts`); a command that writes nothing
    (`idlc check`) leaves them out: it reports the same problems."""
    namer = _Namer(model, diagnostics)
    namer.run()
    result = Plan(
        namer.inline,
        namer.refs,
        namer.typedefs,
        namer.interfaces,
        namer.variants,
        namer.union_markers,
        namer.list_unions,
        namer.open_record_fields,
        namer.attributes,
        enum_members=namer.enum_members,
        integer_aliases={
            kind.value: naming.integer_alias_name(kind.value) for kind in m.INTEGER_RANGES
        },
        case_records=namer.case_records,
    )
    _collect_union_bases(model, namer, result, diagnostics)
    _check_unions(model, namer, diagnostics)
    _check_alias_cycles(model, namer, diagnostics)
    if facts and not diagnostics.has_errors:
        # (Imported here: `idlc check` plans without these facts, and loads neither.)
        from idlc.targets.python import hints
        from idlc.targets.python.leniency import forward_compatible

        # The facts of how types are written look through aliases and unions: only once
        # the checks above found every type one Python can hold (no alias of itself).
        for field_ in namer.named_fields:
            written = hints.field_facts(model, field_)
            if written is not hints.PLAIN:
                result.fields[field_] = written
            type_ = field_.type
            if isinstance(type_, m.Optional) and type_.nullable:
                result.nullable_fields.add(field_)
        result.optional_of_none = NodeSet(
            optional for optional in namer.optionals if hints.is_none(model, optional.inner)
        )
        result.typedef_definitions, result.interface_definitions = definitions(
            model, namer.typedef_order, namer.interface_order, result
        )
        result.forward_compatible = forward_compatible(result)
        result.has_facts = True
    return result


# -- naming ---------------------------------------------------------------------------------


def _survey(model: m.Model) -> tuple[dict[str, int], list[m.Optional]]:
    """How many times each typedef is named, in typedefs and interface members; and every
    optional written (for `Plan.optional_of_none`): one walk over every type written."""
    counts: dict[str, int] = {}
    optionals: list[m.Optional] = []
    pending: list[m.Type] = [typedef.type for typedef in model.typedefs.values()]
    for interface in model.interfaces.values():
        for member in interface.members:
            if isinstance(member, m.Operation):
                pending += [member.input, member.output]
            elif isinstance(member, m.Value):
                pending.append(member.type)
    while pending:
        type_ = pending.pop()
        kind = type(type_)
        if kind is m.TypeRef:
            counts[type_.name] = counts.get(type_.name, 0) + 1  # type: ignore[union-attr]
        elif kind not in _LEAVES:
            if kind is m.Optional:
                optionals.append(type_)  # type: ignore[arg-type]
            pending.extend(queries.children(type_))
    return counts, optionals


#: The types of the fields without a default that may be other than `hints.PLAIN` (a
#: tri-state field is an optional, or a name of one): only those are asked about.
_MAY_HAVE_FACTS = frozenset({m.Optional, m.TypeRef})
#: The types with nothing written inside (`queries.children` is empty): most of a schema's.
_LEAVES = frozenset({m.Primitive, m.AtomRef, m.InterfaceRef, m.Enum})


class _Namer:
    """Gives every inline record, enum, variant and union its class name and module."""

    def __init__(self, model: m.Model, diagnostics: Diagnostics) -> None:
        self.model = model
        self.diagnostics = diagnostics
        #: type node → (name, module)
        self.inline: ByNode[m.Type, tuple[str, str]] = ByNode()
        #: every named type node, with the span of what names it (for diagnostics)
        self.named: list[tuple[m.Type, str, Span]] = []
        #: the definitions of the types named in the typedef or interface being named, in
        #: the order they are written, and those of each typedef and interface
        self.order: list[Definition] = []
        self.typedef_order: dict[str, list[Definition]] = {}
        self.interface_order: dict[str, list[Definition]] = {}
        #: Python name → where it was given (package namespace: everything is re-exported)
        self.package_names: dict[str, Place] = {}
        #: interface module names
        self.modules: dict[str, Place] = {}
        #: typedef name → how many times a type names it
        self.uses, self.optionals = _survey(model)
        #: see `Plan.case_records`
        self.case_records: set[str] = set()
        #: see `Plan.refs`, `Plan.typedefs`, `Plan.interfaces`
        self.refs: dict[str, str] = {}
        self.typedefs: dict[str, str] = {}
        self.interfaces: dict[str, InterfaceNames] = {}
        #: see `Plan.variants` and the rest of `Plan`'s names of types
        self.variants: ByNode[m.Variant, VariantNames] = ByNode()
        self.union_markers: ByNode[m.Union_, str] = ByNode()
        self.list_unions: NodeSet[m.Union_] = NodeSet()
        self.open_record_fields: ByNode[m.Record, str] = ByNode()
        self.attributes: dict[str, str] = {}
        #: the fields named that may have facts, for `Plan.fields`
        self.named_fields: list[m.Field] = []
        self.enum_members: dict[str, str] = {}

    def claim(self, name: str, module: str, span: Span, what: str) -> None:
        # The names generated modules take for themselves, as their runtime lists them:
        # `naming.declared_name` keeps declared names clear of them; derived names are checked.
        if name in RESERVED_NAMES or name.startswith("_"):
            self.diagnostics.add(
                codes.RESERVED_GENERATED_NAME,
                f"{what} would be named `{name}`, a name the generated code keeps for itself",
                span,
                label=f"becomes `{name}`",
                help="give it a name with a letter before any digit",
            )
            return
        first = self.package_names.get(name)
        if first is not None:
            self.diagnostics.add(
                codes.GENERATED_NAME_COLLISION,
                f"{what} and {first.what} would both be the Python name `{name}`",
                span,
                label=f"becomes `{name}`",
                help="rename one of them in the IDL"
                + (
                    ", or name the inline type with `type`" if "inline" in what + first.what else ""
                ),
                related=(Related(f"{first.what} is here", first.span),),
            )
            return
        self.package_names[name] = Place(name, module, span, what)

    def check_unknown_case_fields(self, carried: tuple[m.Field, ...], owner: str) -> None:
        """The unknown case of an open variant carries its shared fields (and the fields of
        its `unknown: T` type) as attributes beside its own `data` and `tag` (docs/language.md,
        "Variants"): none may be named so."""
        for field_ in carried:
            attribute = naming.attribute_name(field_.name)
            if attribute in UNKNOWN_CASE_ATTRIBUTES:
                self.diagnostics.add(
                    codes.UNKNOWN_CASE_ATTRIBUTE,
                    f"field `{field_.name}` of {owner}, which its unknown case carries, would "
                    f"be the attribute `{attribute}` the unknown case keeps for itself",
                    name_span(field_.span, field_.name),
                    label=f"becomes `{attribute}`",
                    help="rename the field, or make the variant closed",
                )

    def name_fields(
        self, fields: tuple[m.Field, ...], owner: str, module: str, kind: str = "field"
    ) -> None:
        """Name `fields`' attributes, and the inline types in them, each after its field
        (`<Owner><Field>`)."""
        attributes = self.attributes
        for field_ in fields:
            if field_.name not in attributes:
                attributes[field_.name] = naming.attribute_name(field_.name)
            if field_.default is not None or type(field_.type) in _MAY_HAVE_FACTS:
                self.named_fields.append(field_)
            if isinstance(field_.type, _MAY_HOLD_INLINE):
                self.name_inline(
                    field_.type,
                    naming.nested_name(owner, field_.name),
                    module,
                    f"the inline type of {kind} `{field_.name}`",
                    name_span(field_.span, field_.name),
                )

    def name_inline(
        self,
        type_: m.Type,
        name: str,
        module: str,
        what: str,
        span: Span | None = None,
        into: list[Definition] | None = None,
    ) -> None:
        """Name the inline types in `type_`, which stands where `name` describes; `span` is
        the name it is named after (default: the type itself). Each named type's definition
        is noted in `order` before those of the types inside it (the order they are
        written); `into`: where it is noted instead (a union's alternatives)."""
        if isinstance(type_, NAMED_KINDS):
            self.inline[type_] = (name, module)
            self.named.append((type_, name, span or type_.span))
            self.claim(name, module, span or type_.span, what)
            noted = self.order if into is None else into
        match type_:
            case m.Record():
                fields_class = None
                if type_.open:
                    fields_class = naming.open_record_fields_class_name(name)
                    self.open_record_fields[type_] = fields_class
                noted.append(RecordDefinition(name, type_, fields_class))
                self.name_fields(type_.fields, name, module)
            case m.Optional() | m.List():
                self.name_inline(type_.inner, name, module, what, span)
            case m.Map():
                self.name_inline(type_.value, name, module, what, span)
            case m.Variant():
                variant = VariantDefinition(name, type_)
                noted.append(variant)
                self.name_variant(type_, name, module, span)
                variant.classes = self.variants[type_]
            case m.Union_():
                marker = None
                of_lists = False
                if not native_union(self.model, type_):
                    marker = self.union_markers[type_] = naming.choice_base_name(name)
                    if list_union(self.model, type_):
                        self.list_unions.add(type_)
                        of_lists = True
                union = UnionDefinition(name, type_, marker, of_lists)
                if marker is not None and catch_all_union(self.model, type_):
                    union.catch_all = True
                noted.append(union)
                for index, alternative in enumerate(type_.alternatives):
                    self.name_inline(
                        alternative,
                        naming.union_alternative_name(name, index),
                        module,
                        f"alternative {index + 1} of `{name}`",
                        into=union.alternatives,
                    )
            case m.Enum():
                noted.append(EnumDefinition(name, type_))
                for value in type_.values:
                    self.enum_members[value.value] = naming.enum_attribute_name(value.value)
            case m.Primitive() | m.AtomRef() | m.InterfaceRef() | m.TypeRef():
                pass  # nothing inline to name: a name, or a leaf
            case _:
                assert_never(type_)

    def name_variant(self, type_: m.Variant, name: str, module: str, span: Span | None) -> None:
        """The classes of variant `type_`, named `name` (`VariantNames`), and the inline
        types of its cases and fields."""
        shared = shapes.shared_fields(type_)
        self.name_fields(shared, name, module, "shared field")
        cases: list[CaseNames] = []
        for case in type_.cases:
            case_name = naming.case_class_name(name, case.tag)
            label = "the default case" if case.tag is None else f"case {case.tag!r}"
            records = union_case(self.model, case)
            if records is not None:
                cases.append(self.name_union_case(case, records, case_name, module, label, name))
                continue
            inner = variant_case(self.model, case)
            if inner is not None:
                cases.append(
                    self.name_variant_case(
                        case, inner, case_name, module, f"{label} of `{name}`", shared
                    )
                )
                continue
            cases.append(CaseNames(case_name, classes=(self.case_class(case, case_name),)))
            if case_name in self.case_records:
                continue  # its typedef has claimed the name
            if isinstance(case.type, m.Record):
                # The case class is the inline record itself.
                self.inline[case.type] = (case_name, module)
                self.name_fields(case.type.fields, case_name, module)
            self.claim(
                case_name,
                module,
                case.name_span or case.span,
                f"the class of {label} of `{name}`",
            )
        unknown = shared_fields = None
        unknown_fields: tuple[m.Field, ...] = ()
        if type_.open:
            unknown = naming.unknown_case_class_name(name, (case.tag for case in type_.cases))
            if shared:
                shared_fields = naming.shared_fields_class_name(name)
            self.claim(unknown, module, span or type_.span, f"the unknown case of `{name}`")
            unknown_fields = queries.unknown_case_fields(type_, self.model.typedefs)
            self.check_unknown_case_fields(shared + unknown_fields, f"open variant `{name}`")
            if type_.unknown is not None:  # `unknown: T;`, T written inline
                shape, what = naming.unknown_shape_name(unknown), f"`unknown` of `{name}`"
                self.name_inline(type_.unknown.type, shape, module, what, span)
        marker = naming.choice_base_name(name) if hooked(self.model, type_) else None
        self.variants[type_] = VariantNames(
            marker, tuple(cases), unknown, shared_fields, unknown_fields
        )

    def case_class(self, case: m.Case, case_name: str) -> CaseClass:
        """The class of a case that holds a record (or nothing), named `case_name`: the
        case's inline record, the class of the record typedef it names when that can be the
        case class (`is_case_record`), or one deriving from the named record."""
        type_ = case.type
        if isinstance(type_, m.Record):
            return CaseClass(case_name, type_, doc=case.doc)
        if isinstance(type_, m.TypeRef):
            typedef = self.model.typedefs[type_.name]
            if self.is_case_record(type_, case_name):
                # `"http": McpServerHttp` in `McpServer`: the record's class is the case
                # class (G7, docs/language.md "Variants").
                assert isinstance(typedef.type, m.Record)
                self.case_records.add(case_name)
                return CaseClass(case_name, typedef.type, doc=case.doc or typedef.doc)
            record = shapes.resolve_alias(self.model, type_)
            if isinstance(record, m.Record):
                return CaseClass(case_name, parent=type_, inherited=record.fields, doc=case.doc)
        return CaseClass(case_name, doc=case.doc)

    def name_variant_case(
        self,
        case: m.Case,
        inner: m.Variant,
        case_name: str,
        module: str,
        label: str,
        shared: tuple[m.Field, ...],
    ) -> CaseNames:
        """A tagged case (`case`, named `case_name`) that is the variant `inner` on another
        tag field: one class per case of `inner` (`define_variant_case`), `<Case><InnerTag>`,
        each carrying the fields of the record it holds; a case of `inner` that is a variant
        again is named the same way one level down, its classes carrying every level's
        `shared` fields (docs/language.md, "Variants")."""
        span = case.name_span or case.span
        self.claim(case_name, module, span, f"the name of {label}")
        self.attributes[inner.tag_field] = naming.attribute_name(inner.tag_field)
        all_shared = shared + shapes.shared_fields(inner)
        # The inner variant's own name, after which its case classes are named: whether an
        # inner case's record typedef is that case's class does not depend on naming order.
        _, inner_typedef = queries.typedef_chain(case.type, self.model.typedefs)
        assert inner_typedef is not None  # a variant case names its variant
        inner_name = naming.declared_name(inner_typedef)
        cases: list[CaseNames] = []
        for inner_case in inner.cases:
            class_name = naming.case_class_name(case_name, inner_case.tag)
            shown = "the default case" if inner_case.tag is None else f"case {inner_case.tag!r}"
            nested = variant_case(self.model, inner_case)
            if nested is not None:
                cases.append(
                    self.name_variant_case(
                        inner_case, nested, class_name, module, f"{shown} of {label}", all_shared
                    )
                )
                continue
            self.claim(class_name, module, span, f"the class of its {shown} of {label}")
            cases.append(
                CaseNames(
                    class_name, classes=(self.inner_case_class(inner_case, inner_name, class_name),)
                )
            )
        unknown = shared_fields = None
        unknown_fields: tuple[m.Field, ...] = ()
        if inner.open:  # its unknown tags carry every level's shared fields
            unknown = naming.unknown_case_class_name(case_name, [c.tag for c in inner.cases])
            self.claim(unknown, module, span, f"the class of its unknown tags of {label}")
            if all_shared:
                shared_fields = naming.shared_fields_class_name(case_name)
            unknown_fields = queries.unknown_case_fields(inner, self.model.typedefs)
            self.check_unknown_case_fields(
                all_shared + unknown_fields, f"{label} (an open variant)"
            )
        return CaseNames(
            case_name,
            naming.choice_base_name(case_name),
            variant=inner,
            cases=tuple(cases),
            unknown=unknown,
            shared_fields=shared_fields,
            unknown_fields=unknown_fields,
        )

    def inner_case_class(self, inner_case: m.Case, inner_name: str, class_name: str) -> CaseClass:
        """The class (named `class_name`) of a case of a variant (named `inner_name`)
        inside a variant case that holds a record or nothing: it carries the record's
        fields, deriving from it when it is a named record with a class of its own."""
        record = queries.follow_typedefs(inner_case.type, self.model.typedefs)
        if not isinstance(record, m.Record):
            return CaseClass(class_name, doc=inner_case.doc)
        if isinstance(inner_case.type, m.TypeRef) and not self.is_case_record(
            inner_case.type, naming.case_class_name(inner_name, inner_case.tag)
        ):
            # A named record: the class derives from it (its class has no tag).
            return CaseClass(
                class_name, parent=inner_case.type, inherited=record.fields, doc=inner_case.doc
            )
        return CaseClass(class_name, record, doc=inner_case.doc)

    def name_union_case(
        self,
        case: m.Case,
        union: m.Union_,
        case_name: str,
        module: str,
        label: str,
        variant: str,
    ) -> CaseNames:
        """A tagged case that is a union of records: one case class per alternative,
        `<Case>Option<n>` (the inline records of the case's own union are those classes)."""
        span = case.name_span or case.span
        self.claim(case_name, module, span, f"the name of {label} of `{variant}`")
        alternatives = []
        for index, alternative in enumerate(union.alternatives):
            alternative_name = naming.union_alternative_name(case_name, index)
            if isinstance(alternative, m.Record) and case.type is union:
                # The case's own inline union: its record is the class's.
                alternatives.append(CaseClass(alternative_name, alternative, doc=case.doc))
                self.inline[alternative] = (alternative_name, module)
                self.name_fields(alternative.fields, alternative_name, module)
            else:
                record = shapes.resolve_alias(self.model, alternative)
                assert isinstance(record, m.Record)  # (`union_case`)
                alternatives.append(
                    CaseClass(
                        alternative_name,
                        parent=alternative,
                        inherited=record.fields,
                        doc=case.doc,
                    )
                )
            self.claim(
                alternative_name,
                module,
                alternative.span,
                f"the class of alternative {index + 1} of {label} of `{variant}`",
            )
        return CaseNames(
            case_name,
            naming.choice_base_name(case_name),
            classes=tuple(alternatives),
            union=union,
        )

    def is_case_record(self, type_: m.Type, case_name: str) -> bool:
        """Whether case type `type_` names a record typedef called `case_name` that no
        other type names: its class can then be the case class."""
        if not isinstance(type_, m.TypeRef) or naming.declared_name(type_.name) != case_name:
            return False
        typedef = self.model.typedefs.get(type_.name)
        return (
            typedef is not None
            and isinstance(typedef.type, m.Record)
            and self.uses.get(type_.name, 0) == 1
        )

    def name_in_alias(self, type_: m.Type, alias: str, what: str, span: Span) -> None:
        """Name the inline types inside a typedef that is an alias (a list, map or optional):
        the alias has the declared name, so they are named after their container."""
        if isinstance(type_, m.Optional) and isinstance(type_.inner, (m.Optional, m.List, m.Map)):
            self.name_in_alias(type_.inner, alias, what, span)
        elif isinstance(type_, (m.Optional, m.List)):
            container = "list" if isinstance(type_, m.List) else "optional"
            self.name_inline(
                type_.inner,
                naming.element_name(alias, container),
                TYPES_MODULE,
                f"the {'items' if container == 'list' else 'value'} of {what}",
                span,
            )
        elif isinstance(type_, m.Map):
            self.name_inline(
                type_.value,
                naming.element_name(alias, "map"),
                TYPES_MODULE,
                f"the values of {what}",
                span,
            )

    def run(self) -> None:
        model = self.model
        for atom in model.atoms.values():
            ref = self.refs[atom.name] = naming.ref_name(atom.name)
            self.claim(
                ref,
                REFS_MODULE,
                atom.name_span or atom.spans[0],
                f"the reference class of atom `{atom.name}`",
            )
        for interface_name, span in all_interfaces(model):
            ref = self.refs[interface_name] = naming.ref_name(interface_name)
            self.claim(
                ref, REFS_MODULE, span, f"the reference class of interface `{interface_name}`"
            )
        for typedef in model.typedefs.values():
            self.order = self.typedef_order[typedef.name] = []
            name = self.typedefs[typedef.name] = naming.declared_name(typedef.name)
            span = typedef.name_span or typedef.span
            if isinstance(typedef.type, NAMED_KINDS):
                self.name_inline(typedef.type, name, TYPES_MODULE, f"type `{typedef.name}`", span)
            else:
                self.claim(name, TYPES_MODULE, span, f"type `{typedef.name}`")
                self.name_in_alias(typedef.type, name, f"type `{typedef.name}`", span)
        for interface in model.interfaces.values():
            self.name_interface(interface)

    def name_interface(self, interface: m.Interface) -> None:
        self.order = self.interface_order[interface.name] = []
        span = interface.name_span or interface.span
        module = naming.interface_module_name(interface.name)
        first = self.modules.get(module)
        if first is not None or module in (TYPES_MODULE, REFS_MODULE):
            self.diagnostics.add(
                codes.GENERATED_NAME_COLLISION,
                f"interface `{interface.name}` would be generated into module `{module}`, "
                + (f"like {first.what}" if first else "a module idlc needs"),
                span,
                label=f"becomes module `{module}`",
                help="rename one of the interfaces",
                related=(Related(f"{first.what} is here", first.span),) if first else (),
            )
        else:
            self.modules[module] = Place(module, module, span, f"interface `{interface.name}`")
        iname = naming.declared_name(interface.name)
        proxy = naming.proxy_name(interface.name)
        self.claim(iname, module, span, f"interface `{interface.name}`")
        self.claim(proxy, module, span, f"the proxy of interface `{interface.name}`")
        members: dict[str, MemberNames] = {}
        self.interfaces[interface.name] = InterfaceNames(module, iname, proxy, members)
        for member in interface.members:
            member_span = member.name_span or member.span
            where = f"`{interface.name}.{member.name}`"
            method = naming.member_name(member.name)
            params = None
            style: InputStyle = "none"
            fields: tuple[m.Field, ...] = ()
            if isinstance(member, m.Operation):
                style = input_style(self.model, member.input)
                if style == "wrapped":
                    params = naming.params_class_name(interface.name, member.name)
                elif style == "fields":
                    assert isinstance(member.input, m.Record)  # an inline closed record
                    fields = member.input.fields
            invoke = naming.invoke_function_name(method)
            members[member.name] = MemberNames(method, invoke, params, style, fields)
            if isinstance(member, m.Operation):
                self.name_inline(
                    member.input,
                    naming.input_class_name(interface.name, member.name),
                    module,
                    f"the input of {where}",
                    member_span,
                )
                if params is not None:
                    self.claim(params, module, member_span, f"the params class of {where}")
                self.name_inline(
                    member.output,
                    naming.output_class_name(interface.name, member.name),
                    module,
                    f"the output of {where}",
                    member_span,
                )
            elif isinstance(member, m.Value):
                self.name_inline(
                    member.type,
                    naming.value_class_name(interface.name, member.name),
                    module,
                    f"the type of {where}",
                    member_span,
                )


def input_style(model: m.Model, input_: m.Type) -> InputStyle:
    """How an operation's input of type `input_` is passed (`InputStyle`)."""
    if is_unit(model, input_):
        return "none"
    if isinstance(input_, m.Record) and not input_.open:
        # (An open record's kept members cannot be keyword arguments: it is passed whole,
        # as a named record is.)
        return "fields"
    if is_object_shaped(model, input_):
        return "object"  # a record or a variant is the params object itself
    return "wrapped"


def all_interfaces(model: m.Model) -> Iterator[tuple[str, Span]]:
    for interface in model.interfaces.values():
        yield interface.name, interface.name_span or interface.span
    for opaque in model.opaque_interfaces.values():
        yield opaque.name, opaque.spans[0]


# -- unions ---------------------------------------------------------------------------------


def _collect_union_bases(
    model: m.Model, namer: _Namer, result: Plan, diagnostics: Diagnostics
) -> None:
    """Each record alternative of a union msgspec cannot decode natively derives from the
    union's base class; it must then live in the union's module. (In naming order, which
    is the order the bases are listed in.)"""
    for union, name, _ in namer.named:
        if not isinstance(union, m.Union_) or native_union(model, union):
            continue
        if not all(is_record(model, alternative) for alternative in union.alternatives):
            continue  # a union of lists, or reported by _check_unions
        module = result.inline[union][1]
        for alternative in union.alternatives:
            _add_union_base(
                model, result, diagnostics, alternative, naming.choice_base_name(name), name, module
            )


def _add_union_base(
    model: m.Model,
    result: Plan,
    diagnostics: Diagnostics,
    alternative: m.Type,
    base: str,
    union: str,
    module: str,
) -> None:
    # The alternative's record class must derive from the union's base (the hook's result
    # has to be an instance of the annotated class). It may live in another module.
    target = alternative
    while isinstance(target, m.TypeRef) and not isinstance(
        model.typedefs[target.name].type, m.Record
    ):
        target = model.typedefs[target.name].type
    if isinstance(target, m.TypeRef):
        class_name, class_module = naming.declared_name(target.name), TYPES_MODULE
    else:
        class_name, class_module = result.inline[target]
    if class_module != module:
        diagnostics.add(
            codes.UNREPRESENTABLE_UNION,
            f"union `{union}` in module `{module}` has the record `{class_name}` of "
            f"module `{class_module}` as an alternative",
            alternative.span,
            label="defined in another module",
            help="declare the union as a named type",
        )
        return
    result.union_bases.setdefault(class_name, []).append(base)


def _check_unions(model: m.Model, namer: _Namer, diagnostics: Diagnostics) -> None:
    for type_, name, span in namer.named:
        if not isinstance(type_, m.Union_) or native_union(model, type_):
            continue
        if all(is_record(model, alternative) for alternative in type_.alternatives):
            continue
        if list_union(model, type_) or catch_all_union(model, type_):
            continue  # tried in order (the last a catch-all `json`)
        if not type_.alternatives:
            continue  # an empty union is reported by the front end
        diagnostics.add(
            codes.UNREPRESENTABLE_UNION,
            f"union `{name}` has alternatives msgspec cannot tell apart by their JSON "
            "kind, and not all of them are records",
            span,
            label="alternatives cannot be told apart",
            help="make every alternative a record, or give each a different JSON kind; a "
            "`json` alternative is allowed last, for any value no earlier one decodes",
        )


# -- aliases --------------------------------------------------------------------------------


def _check_alias_cycles(model: m.Model, namer: _Namer, diagnostics: Diagnostics) -> None:
    """A Python type alias cannot refer to itself here (msgspec evaluates them eagerly): a
    cycle of typedefs through aliases, lists, maps, optionals and native unions only."""
    aliases: dict[str, tuple[set[str], Span, str]] = {}
    for typedef in model.typedefs.values():
        type_ = typedef.type
        if not isinstance(type_, NAMED_KINDS):
            aliases[naming.declared_name(typedef.name)] = (
                _alias_uses(namer, type_),
                typedef.name_span or typedef.span,
                typedef.name,
            )
    for type_, name, span in namer.named:
        if isinstance(type_, m.Union_) and native_union(model, type_):
            uses: set[str] = set()
            for alternative in type_.alternatives:
                uses |= _alias_uses(namer, alternative)
            aliases[name] = (uses, span, name)
    for name, (_, span, shown) in aliases.items():
        if name in _reaches(aliases, name):
            diagnostics.add(
                codes.RECURSIVE_ALIAS,
                f"type `{shown}` refers to itself through aliases, lists, maps, optionals "
                "or unions only",
                span,
                label="refers to itself",
                help="put a record between: Python type aliases cannot be recursive here",
            )


def _alias_uses(namer: _Namer, type_: m.Type) -> set[str]:
    """The names the Python expression of `type_` refers to."""
    if isinstance(type_, (m.Optional, m.List)):
        return _alias_uses(namer, type_.inner)
    if isinstance(type_, m.Map):
        return _alias_uses(namer, type_.value)
    if isinstance(type_, m.TypeRef):
        return {naming.declared_name(type_.name)}
    if isinstance(type_, NAMED_KINDS):
        return {namer.inline[type_][0]}
    return set()


def _reaches(aliases: dict[str, tuple[set[str], Span, str]], start: str) -> set[str]:
    seen: set[str] = set()
    stack = [name for name in aliases[start][0] if name in aliases]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(dep for dep in aliases[name][0] if dep in aliases)
    return seen
