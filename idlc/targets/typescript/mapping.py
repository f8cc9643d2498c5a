"""The TypeScript target's mapping stage: a model without errors → the TypeScript `Plan`.

It names every type, codec, reference, skeleton, proxy, module and method of the package
(`naming.py`), decides each type's structure as the generator writes it (`plan.TsType`,
typedef names followed where the wire form depends on them: a field's `optional<…>`, an
input's shape), and reports what TypeScript cannot hold: two things getting one exported
name (E0201), a derived name that is a global the generated code uses (E0202), two interface
modules of one name or an interface module named like the package's own (E0201).
"""

from __future__ import annotations

import json
from typing import assert_never

from idlc.diagnostics import Diagnostics, Related, codes
from idlc.semantics import model as m
from idlc.semantics import queries, shapes
from idlc.semantics.types import name_span
from idlc.source import Span
from idlc.targets.typescript import naming
from idlc.targets.typescript.plan import (
    AliasPlan,
    AtomPlan,
    CasePlan,
    Definition,
    EnumPlan,
    EnumValuePlan,
    FieldPlan,
    InputShape,
    InterfacePlan,
    ListOf,
    MapOf,
    MethodPlan,
    Named,
    Nullable,
    Opt,
    Plan,
    Prim,
    RecordPlan,
    RefPlan,
    TsType,
    UnionPlan,
    UniqueOf,
    VariantPlan,
)

_NAMED_KINDS = (m.Record, m.Enum, m.Variant, m.Union_)


def plan(model: m.Model, diagnostics: Diagnostics) -> Plan:
    """The TypeScript plan of `model` (which has no errors); its problems go to
    `diagnostics` (the plan is then not to be generated from)."""
    return _Mapper(model, diagnostics).run()


class _Mapper:
    def __init__(self, model: m.Model, diagnostics: Diagnostics) -> None:
        self.model = model
        self.diagnostics = diagnostics
        #: exported name → (what, span)
        self.names: dict[str, tuple[str, Span]] = {}
        self.modules: dict[str, tuple[str, Span | None]] = {
            naming.INDEX_MODULE: ("the package's index module", None),
            naming.TYPES_MODULE: ("the package's types module", None),
            naming.REFS_MODULE: ("the package's references module", None),
        }
        self.typedef_names: dict[str, str] = {}
        self.refs: dict[str, str] = {}  # atom or interface IDL name → ref type name
        self.out: list[Definition] = []
        self.module = naming.TYPES_MODULE

    # -- names -------------------------------------------------------------------------

    def claim(self, name: str, span: Span, what: str) -> None:
        if name in naming.RESERVED_NAMES:
            self.diagnostics.add(
                codes.RESERVED_GENERATED_NAME,
                f"{what} would be named `{name}` in TypeScript, a global name the generated "
                "code uses",
                span,
                label=f"becomes `{name}`",
                help="rename it in the IDL",
            )
            return
        first = self.names.get(name)
        if first is not None:
            self.diagnostics.add(
                codes.GENERATED_NAME_COLLISION,
                f"{what} and {first[0]} would both be the TypeScript name `{name}`",
                span,
                label=f"becomes `{name}`",
                help="rename one of them in the IDL",
                related=(Related(f"{first[0]} is here", first[1]),),
            )
            return
        self.names[name] = (what, span)

    def claim_type(self, name: str, span: Span, what: str) -> Named:
        self.claim(name, span, what)
        codec = naming.codec_name(name)
        self.claim(codec, span, f"the codec of {what}")
        return Named(name, codec, self.module)

    # -- the package ---------------------------------------------------------------------

    def run(self) -> Plan:
        model = self.model
        result = Plan()
        for typedef in model.typedefs.values():
            self.typedef_names[typedef.name] = naming.declared_name(typedef.name)
        for atom in model.atoms.values():
            span = atom.name_span or atom.spans[0]
            result.refs.append(self.ref(atom.name, "atom", span))
            result.atoms.append(AtomPlan(atom.name, atom.id))
        for interface in model.interfaces.values():
            span = interface.name_span or interface.span
            result.refs.append(self.ref(interface.name, "interface", span))
        for opaque in model.opaque_interfaces.values():
            result.refs.append(self.ref(opaque.name, "interface", opaque.spans[0]))
        for typedef in model.typedefs.values():
            self.typedef(typedef)
        result.definitions = self.out
        for interface in model.interfaces.values():
            result.interfaces.append(self.interface(interface))
        return result

    def ref(self, declaration: str, kind: str, span: Span) -> RefPlan:
        name = naming.ref_name(declaration)
        self.refs[declaration] = name
        what = f"the reference type of {kind} `{declaration}`"
        self.module = naming.REFS_MODULE
        named = self.claim_type(name, span, what)
        self.module = naming.TYPES_MODULE
        return RefPlan(name, named.codec, "atom" if kind == "atom" else "interface", declaration)

    def typedef(self, typedef: m.Typedef) -> None:
        name = self.typedef_names[typedef.name]
        span = typedef.name_span or typedef.span
        type_ = typedef.type
        if isinstance(type_, _NAMED_KINDS):
            self.define(type_, name, span, f"type `{typedef.name}`", typedef.doc)
            return
        named = self.claim_type(name, span, f"type `{typedef.name}`")
        container = "map" if isinstance(type_, m.Map) else "list"
        if isinstance(type_, m.Optional):
            container = "optional"
        inner = self.ts(type_, naming.element_name(name, container), span, f"`{typedef.name}`")
        self.out.append(AliasPlan(named.name, named.codec, inner, typedef.doc))

    def interface(self, interface: m.Interface) -> InterfacePlan:
        span = interface.name_span or interface.span
        module = naming.module_name(interface.name)
        first = self.modules.get(module)
        if first is not None:
            self.diagnostics.add(
                codes.GENERATED_NAME_COLLISION,
                f"interface `{interface.name}` and {first[0]} would both be the TypeScript "
                f"module `{module}.ts`",
                span,
                label=f"becomes `{module}.ts`",
                help="rename the interface",
                related=(Related(f"{first[0]} is here", first[1]),) if first[1] else (),
            )
        self.modules[module] = (f"interface `{interface.name}`", span)
        name = naming.declared_name(interface.name)
        self.claim(name, span, f"interface `{interface.name}`")
        proxy = naming.proxy_name(interface.name)
        self.claim(proxy, span, f"the proxy of interface `{interface.name}`")
        self.module = module
        self.out = []
        methods: list[MethodPlan] = []
        taken: dict[str, str] = {}
        for member in interface.members:
            method = self.member(interface, member)
            other = taken.get(method.name)
            if other is not None:
                self.diagnostics.add(
                    codes.GENERATED_NAME_COLLISION,
                    f"members `{member.name}` and `{other}` of `{interface.name}` would both be "
                    f"the TypeScript method `{method.name}`",
                    member.name_span or member.span,
                    help="rename one of them",
                )
            taken[method.name] = member.name
            methods.append(method)
        definitions = tuple(self.out)
        self.module = naming.TYPES_MODULE
        return InterfacePlan(
            name,
            proxy,
            module,
            interface.id,
            interface.revision,
            tuple(methods),
            definitions,
            interface.doc,
        )

    def member(self, interface: m.Interface, member: m.Member) -> MethodPlan:
        span = member.name_span or member.span
        where = f"member `{member.name}` of `{interface.name}`"
        input_: TsType | None = None
        shape: InputShape = "unit"
        match member:
            case m.Value():
                output = self.ts(
                    member.type,
                    naming.value_name(interface.name, member.name),
                    span,
                    f"the type of {where}",
                )
            case m.Relation():
                target = member.target
                declaration = target.atom if isinstance(target, m.AtomTarget) else target.interface
                ref = self.refs[declaration]
                one: TsType = Named(ref, naming.codec_name(ref), naming.REFS_MODULE)
                if member.cardinality is m.Cardinality.MANY_UNIQUE:
                    output = UniqueOf(one)
                elif member.cardinality is m.Cardinality.OPTIONAL_ONE:
                    output = Opt(one)
                else:
                    output = one
            case m.Operation():
                if not shapes.is_unit(self.model, member.input):
                    input_ = self.ts(
                        member.input,
                        naming.input_name(interface.name, member.name),
                        span,
                        f"the input of {where}",
                    )
                    resolved = shapes.resolve_alias(self.model, member.input)
                    if isinstance(resolved, m.Record):
                        shape = "record"
                    elif isinstance(resolved, m.Variant):
                        shape = "variant"
                    else:
                        shape = "wrapped"
                output = self.ts(
                    member.output,
                    naming.output_name(interface.name, member.name),
                    span,
                    f"the output of {where}",
                )
                if shapes.is_unit(self.model, member.output):
                    output = Prim("unit")
            case _:
                assert_never(member)
        return MethodPlan(
            naming.method_name(member.name),
            member.name,
            member.binding.id,
            shape,
            member.binding.notify,
            member.required,
            input_,
            output,
            member.doc,
        )

    # -- types ---------------------------------------------------------------------------

    def ts(self, type_: m.Type, name: str, span: Span, what: str) -> TsType:
        """The TypeScript form of `type_`, standing where `name` describes; its inline types
        defined (named `name`, or after it)."""
        match type_:
            case m.Primitive():
                return Prim(type_.kind.value)
            case m.Optional():
                inner = self.ts(type_.inner, name, span, what)
                return Nullable(inner) if type_.nullable else Opt(inner)
            case m.List():
                return ListOf(self.ts(type_.inner, name, span, what))
            case m.Map():
                return MapOf(self.ts(type_.value, name, span, what))
            case m.AtomRef():
                ref = self.refs[type_.atom]
                return Named(ref, naming.codec_name(ref), naming.REFS_MODULE)
            case m.InterfaceRef():
                ref = self.refs[type_.interface]
                return Named(ref, naming.codec_name(ref), naming.REFS_MODULE)
            case m.TypeRef():
                declared = self.typedef_names[type_.name]
                return Named(declared, naming.codec_name(declared), naming.TYPES_MODULE)
            case m.Record() | m.Enum() | m.Variant() | m.Union_():
                return self.define(type_, name, span, f"the inline type of {what}", None)
            case _:
                assert_never(type_)

    def define(
        self,
        type_: m.Record | m.Enum | m.Variant | m.Union_,
        name: str,
        span: Span,
        what: str,
        doc: str | None,
    ) -> Named:
        named = self.claim_type(name, span, what)
        index = len(self.out)
        match type_:
            case m.Record():
                fields = self.fields(type_.fields, name)
                self.out.insert(index, RecordPlan(name, named.codec, fields, type_.open, doc))
            case m.Enum():
                values = tuple(
                    EnumValuePlan(naming.enum_key(value.value), value.value, value.doc)
                    for value in type_.values
                )
                self.out.insert(index, EnumPlan(name, named.codec, values, type_.open, doc))
            case m.Union_():
                alternatives = tuple(
                    self.ts(
                        alternative,
                        naming.union_alternative_name(name, position),
                        span,
                        f"alternative {position + 1} of `{name}`",
                    )
                    for position, alternative in enumerate(type_.alternatives)
                )
                self.out.insert(index, UnionPlan(name, named.codec, alternatives, doc))
            case m.Variant():
                self.out.insert(index, self.variant(type_, named, span, doc))
            case _:
                assert_never(type_)
        return named

    def variant(self, type_: m.Variant, named: Named, span: Span, doc: str | None) -> VariantPlan:
        name = named.name
        shared = self.fields(shapes.shared_fields(type_), name)
        cases: list[CasePlan] = []
        default: CasePlan | None = None
        for case in type_.cases:
            case_type: TsType | None = None
            kind: str = "unit"
            if not shapes.is_unit(self.model, case.type):
                label = "the default case" if case.tag is None else f"case {case.tag!r}"
                case_type = self.ts(
                    case.type,
                    naming.case_class_name(name, case.tag),
                    case.name_span or case.span,
                    f"{label} of `{name}`",
                )
                resolved = shapes.resolve_alias(self.model, case.type)
                kind = {m.Union_: "union", m.Variant: "variant"}.get(type(resolved), "record")
            plan = CasePlan(case.tag, kind, case_type, case.doc)  # type: ignore[arg-type]
            if case.tag is None:
                default = plan
            else:
                cases.append(plan)
        unknown: TsType | None = None
        if type_.unknown is not None:
            shape = naming.unknown_shape_name(
                naming.unknown_case_class_name(name, (case.tag for case in type_.cases))
            )
            unknown = self.ts(type_.unknown.type, shape, span, f"`unknown` of `{name}`")
        return VariantPlan(
            name,
            named.codec,
            type_.tag_field,
            type_.open,
            shared,
            tuple(cases),
            default,
            unknown,
            doc,
        )

    def fields(self, fields: tuple[m.Field, ...], owner: str) -> tuple[FieldPlan, ...]:
        return tuple(self.field(field_, owner) for field_ in fields)

    def field(self, field_: m.Field, owner: str) -> FieldPlan:
        model = self.model
        span = name_span(field_.span, field_.name)
        inline_name = naming.nested_name(owner, field_.name)
        what = f"field `{field_.name}` of `{owner}`"
        default: str | None = None
        omit = False
        fallback: str | None = None
        inner, optional = queries.optional_inner(field_.type, model.typedefs)
        if field_.default is not None:
            presence = "default"
            facts = queries.default_facts(field_, model.typedefs)
            stands_for = facts.stands_for if facts is not None else "value"
            if stands_for == "empty-list":
                default, omit = "[]", True
            elif stands_for in ("empty-map", "empty-record"):
                default, omit = "{}", stands_for == "empty-map"
            else:
                default, omit = json.dumps(field_.default.value, ensure_ascii=True), True
            type_ = self.ts(inner if optional else field_.type, inline_name, span, what)
        elif queries.is_tristate(field_.type, model.typedefs):
            presence = "tristate"
            type_ = self.ts(inner, inline_name, span, what)
        elif optional:
            presence = "optional"
            type_ = self.ts(inner, inline_name, span, what)
        else:
            presence = "required"
            type_ = self.ts(field_.type, inline_name, span, what)
            if field_.lenient or field_.null_default:
                resolved = shapes.resolve_alias(model, field_.type)
                if isinstance(resolved, m.List):
                    fallback = "[]"
                elif isinstance(resolved, m.Map):
                    fallback = "{}"
        return FieldPlan(
            field_.name,
            type_,
            presence,  # type: ignore[arg-type]
            field_.doc,
            default,
            omit,
            fallback,
            field_.lenient is not None,
            field_.skip_invalid is not None,
            field_.null_default is not None,
        )
