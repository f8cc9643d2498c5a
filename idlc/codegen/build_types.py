"""Type definitions as views: records, enums, variants, unions and aliases.

Each definition of the Python mapping's plan (`idlc.targets.python.definitions`: a
typedef's or an interface's own and those of the inline types inside it, in order) goes
into the module the plan chose for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from idlc.codegen.expressions import ModuleContext
from idlc.codegen.layout import python_string
from idlc.codegen.typeexpr import TypeExpr
from idlc.codegen.views import (
    AliasView,
    CaseView,
    ClassView,
    Doc,
    EnumMemberView,
    FieldView,
    ForwardCompatibleView,
    ModuleView,
    UnionInfoView,
    VariantInfoView,
    doc_of,
)
from idlc.semantics import model as m
from idlc.targets.python import mapping as python_mapping
from idlc.targets.python.definitions import (
    AliasDefinition,
    Definition,
    EnumDefinition,
    RecordDefinition,
    UnionDefinition,
    VariantDefinition,
)
from idlc.targets.python.hints import PLAIN
from idlc.targets.python.mapping import OPEN_RECORD_EXTRA, CaseClass, CaseNames


class TypeBuilder:
    """Builds the views of type definitions from the plan (and the declarations' nodes it
    refers to): it holds no model to ask."""

    def __init__(
        self,
        plan: python_mapping.Plan,
        borrowed: dict[str, str] | None = None,
    ) -> None:
        self.plan = plan
        #: record class name → union base classes it must derive from
        self.extra_bases = plan.union_bases
        #: name → the stable package's module it is imported from (`idlc.targets.python.overlay`)
        self.borrowed: dict[str, str] = {} if borrowed is None else borrowed

    def context(self, module: ModuleView) -> ModuleContext:
        return ModuleContext(self.plan, module, self.borrowed)

    # -- records --

    def field_view(self, ctx: ModuleContext, field_: m.Field) -> FieldView:
        attribute = self.plan.attributes[field_.name]
        annotation = ctx.expr(field_.type)
        default: str | None = None
        factory: str | None = None
        facts = self.plan.fields.get(field_, PLAIN)
        if facts.tristate:
            # Absent, `null` and a value apart (docs/language.md, "Nullable and tri-state
            # fields"): absent is `msgspec.UNSET`, which msgspec never encodes.
            annotation = annotation.or_none().or_unset()
            default = "msgspec.UNSET"
        elif facts.default is not None:
            assert field_.default is not None
            default, factory = ctx.literal(facts.default, field_.default)
        elif annotation.optional or annotation.is_none:
            if field_ not in self.plan.nullable_fields:  # `nullable<T>`: required, `null`
                default = "None"
        renamed = attribute != field_.name
        return FieldView(
            attribute=attribute,
            annotation=annotation,
            wire=field_.name,
            renamed=renamed,
            default=default,
            factory=factory,
            doc=None if field_.doc is None else Doc(field_.doc),
        )

    def record_class(
        self,
        ctx: ModuleContext,
        name: str,
        record: m.Record | None,
        doc: str | None,
        *,
        parent: str | None = None,
        marker: str | None = None,
        tag: tuple[str, str] | None = None,
        shared: tuple[m.Field, ...] = (),
    ) -> ClassView:
        """The struct of a record or of a variant case (deriving from the case's record class
        `parent` and from the variant's `marker`, with its `tag`: field and value, and the
        variant's `shared` fields first)."""
        union_bases = self.extra_bases.get(name, [])
        choices = [*([] if marker is None else [marker]), *union_bases]
        after = (*([] if parent is None else [parent]), *choices)
        written = shared + (record.fields if record is not None else ())
        fields = [self.field_view(ctx, field_) for field_ in written]
        registration = self.plan.forward_compatible.get(name)
        if registration is not None:  # (the plan's: `idlc.targets.python.leniency`)
            ctx.module.registrations.append(
                ForwardCompatibleView(
                    name,
                    [python_string(attribute) for attribute in registration.lenient],
                    [python_string(attribute) for attribute in registration.skip_invalid],
                    [python_string(attribute) for attribute in registration.null_default],
                )
            )
        # A `{}` default calls the record's class when the class statement runs.
        factories = tuple(
            f.factory for f in fields if f.factory is not None and f.factory not in ("list", "dict")
        )
        return ClassView(
            name,
            "struct",
            doc_of(doc),
            fields,
            tag_field=None if tag is None else python_string(tag[0]),
            tag=None if tag is None else python_string(tag[1]),
            after=after + factories,
            parent=parent,
            choices=choices,
        )

    # -- definitions --

    def define_all(self, module: ModuleView, definitions: Sequence[Definition]) -> None:
        """Emit `definitions` (the plan's, of a typedef or an interface) into `module`."""
        for definition in definitions:
            self.define(module, definition)

    def define(self, module: ModuleView, definition: Definition) -> None:
        """Emit one definition of the plan (a typedef's, or an inline type's) into `module`."""
        ctx = self.context(module)
        match definition:
            case RecordDefinition(name, record, fields_class, doc):
                if fields_class is not None:
                    self.define_open_record(ctx, record, name, fields_class, doc)
                    return
                module.classes.append(self.record_class(ctx, name, record, doc))
                module.public.append(name)
            case EnumDefinition(name, enum, doc):
                members = [
                    # Unique: the front end reports values with one member name (E0113).
                    EnumMemberView(
                        self.plan.enum_members[value.value],
                        python_string(value.value),
                        doc_of(value.doc),
                    )
                    for value in enum.values
                ]
                module.classes.append(
                    ClassView(name, "enum", doc_of(doc), members=members, open=enum.open)
                )
                module.public.append(name)
            case VariantDefinition():
                self.define_variant(ctx, definition)
            case UnionDefinition():
                self.define_union(ctx, definition)
            case AliasDefinition(name, type_, doc):
                expression = ctx.expr(type_)
                module.aliases.append(
                    AliasView(
                        name, [expression], None, doc_of(doc), frozenset(ctx.depends), type_.span
                    )
                )
                module.public.append(name)
            case _:
                assert_never(definition)

    def define_open_record(
        self, ctx: ModuleContext, record: m.Record, name: str, fields_class: str, doc: str | None
    ) -> None:
        """An `open record` (docs/language.md, "Open records"): a private struct of its
        declared fields, decoded and encoded as any record's, and the public class wrapping
        it, which keeps the undeclared members in `extra` (`hooks.OpenRecord`)."""
        module = ctx.module
        struct = self.record_class(
            ctx, fields_class, record, f"The declared fields of `{name}`, which it wraps."
        )
        module.classes.append(struct)
        union_bases = self.extra_bases.get(name, [])
        extra = FieldView(
            attribute=OPEN_RECORD_EXTRA,
            annotation=TypeExpr("dict", (TypeExpr("str"), TypeExpr("_hooks.JsonValue"))),
            wire=OPEN_RECORD_EXTRA,
            renamed=False,
            default=None,
            factory="dict",
            doc=Doc("The members the record does not declare, as received (JSON values)."),
        )
        module.classes.append(
            ClassView(
                name,
                "open",
                doc_of(doc),
                [*(self.field_view(ctx, field_) for field_ in record.fields), extra],
                after=(fields_class, *union_bases, *struct.after),
                fields_class=fields_class,
                choices=list(union_bases),
            )
        )
        module.public.append(name)

    def define_variant(self, ctx: ModuleContext, definition: VariantDefinition) -> None:
        module = ctx.module
        variant, name, names, doc = (
            definition.variant,
            definition.name,
            definition.classes,
            definition.doc,
        )
        assert names is not None  # (the mapping names every variant it notes)
        marker = names.marker
        cases: list[tuple[str | None, str]] = []
        classes: list[str] = []  # what the variant's alias is a union of
        shared = variant.shared.fields if variant.shared is not None else ()
        for case, case_names in zip(variant.cases, names.cases, strict=True):
            tag = None if case.tag is None else (variant.tag_field, case.tag)
            if case_names.union is not None:
                assert marker is not None and tag is not None  # hooked, tagged
                cases.append(
                    (case.tag, self.define_union_case(ctx, case_names, marker, tag, shared))
                )
                classes += [class_.name for class_ in case_names.classes]
                continue
            if case_names.variant is not None:
                assert marker is not None and tag is not None  # hooked, tagged
                case_base, nested_classes = self.define_variant_case(
                    ctx, case_names, case_names.variant, [marker], tag, shared
                )
                cases.append((case.tag, case_base))
                classes += nested_classes
                continue
            (case_class,) = case_names.classes
            cases.append((case.tag, case_class.name))
            classes.append(case_class.name)
            module.classes.append(
                self.case_class(ctx, case_class, marker=marker, tag=tag, shared=shared)
            )
            module.public.append(case_class.name)
        alternatives = [TypeExpr(class_name) for class_name in classes]
        if marker is None:
            module.aliases.append(
                AliasView(
                    name,
                    alternatives,
                    None,
                    doc_of(doc),
                    frozenset(classes),
                )
            )
            module.public.append(name)
            return
        module.classes.append(ClassView(marker, "marker"))
        unknown: str | None = None
        fields: str | None = None
        unknown_type: str | None = None
        if names.unknown is not None:
            unknown = names.unknown
            alternatives.append(TypeExpr(unknown))
            fields, unknown_type = self.define_unknown_case(
                ctx,
                name,
                unknown,
                [marker],
                shared,
                variant,
                names.shared_fields,
                names.unknown_fields,
            )
        module.registrations.append(
            VariantInfoView(
                marker,
                python_string(variant.tag_field),
                [CaseView(python_string(tag), class_) for tag, class_ in cases if tag is not None],
                default=next((class_ for tag, class_ in cases if tag is None), None),
                unknown=unknown,
                fields=fields,
                unknown_type=unknown_type,
            )
        )
        module.aliases.append(AliasView(name, alternatives, marker, doc_of(doc), frozenset()))
        module.public.append(name)

    def case_class(
        self,
        ctx: ModuleContext,
        case_class: CaseClass,
        *,
        marker: str | None,
        tag: tuple[str, str] | None,
        shared: tuple[m.Field, ...],
    ) -> ClassView:
        """The struct of one class of a variant case (`CaseClass`)."""
        parent = None if case_class.parent is None else str(ctx.expr(case_class.parent))
        return self.record_class(
            ctx,
            case_class.name,
            case_class.record,
            case_class.doc,
            parent=parent,
            marker=marker,
            tag=tag,
            shared=shared,
        )

    def define_unknown_case(
        self,
        ctx: ModuleContext,
        variant: str,
        unknown: str,
        markers: list[str],
        shared: tuple[m.Field, ...],
        declared: m.Variant,
        shared_fields: str | None,
        typed_fields: tuple[m.Field, ...],
    ) -> tuple[str | None, str | None]:
        """The class keeping an unknown tag of open variant (or variant case) `variant`,
        deriving from its `markers`; with `shared` fields it carries them decoded, as every
        case does (docs/language.md, "Variants"): a private struct of them, read through
        properties, whose name it returns for the variant's registration — with the type of
        the `declared` variant's `unknown: T;`, whose value it also carries, exposing the
        fields T always has (`typed_fields`). `shared_fields`: that struct's name
        (`VariantNames`)."""
        module = ctx.module
        view = ClassView(
            unknown,
            "unknown",
            Doc(None, f"A case of `{variant}` with a tag this version does not know."),
            after=tuple(markers),
            choices=list(markers),
        )
        fields: str | None = None
        if shared:
            assert shared_fields is not None  # the plan names it wherever there are some
            fields = shared_fields
            module.classes.append(
                self.record_class(
                    ctx,
                    fields,
                    None,
                    f"The shared fields of `{variant}`, as its unknown case holds them.",
                    shared=shared,
                )
            )
            view.fields = [self.field_view(ctx, field_) for field_ in shared]
            view.shared = fields
            view.after += (fields,)
        unknown_type: str | None = None
        if declared.unknown is not None:
            if declared.unknown.doc is not None:  # the `unknown:` case's own doc comes first
                view.doc = Doc(declared.unknown.doc, view.doc.note if view.doc else None)
            view.typed = ctx.expr(declared.unknown.type)
            unknown_type = str(view.typed)
            view.typed_fields = [self.field_view(ctx, field_) for field_ in typed_fields]
        module.classes.append(view)
        module.public.append(unknown)
        return fields, unknown_type

    def define_union_case(
        self,
        ctx: ModuleContext,
        names: CaseNames,
        marker: str,
        tag: tuple[str, str],
        shared: tuple[m.Field, ...],
    ) -> str:
        """The classes of a tagged case that is a union of records (docs/language.md,
        "Variants"): one per alternative, carrying the tag, deriving from the case's own
        union base, whose name it returns (the variant's decoding maps the tag to it; the
        union's decoding then tries the alternatives in order)."""
        module = ctx.module
        case_base = names.base
        assert case_base is not None  # a union case has its own base
        module.classes.append(ClassView(case_base, "marker", marks="union"))
        alternatives: list[TypeExpr] = []
        for case_class in names.classes:
            view = self.case_class(ctx, case_class, marker=marker, tag=tag, shared=shared)
            view.choices.append(case_base)
            view.after += (case_base,)
            module.classes.append(view)
            module.public.append(case_class.name)
            alternatives.append(TypeExpr(case_class.name))
        module.registrations.append(UnionInfoView(case_base, alternatives))
        return case_base

    def define_variant_case(
        self,
        ctx: ModuleContext,
        case_names: CaseNames,
        inner: m.Variant,
        markers: list[str],
        tag: tuple[str, str],
        shared: tuple[m.Field, ...],
        tags: tuple[tuple[str, str], ...] = (),
    ) -> tuple[str, list[str]]:
        """The classes of a tagged case that is a variant on another tag field
        (docs/language.md, "Variants"): one per case of the inner variant,
        `<Case><InnerTag>`, carrying the outermost variant's tag (msgspec's) and the inner
        tags (fields always encoded: `tags`, those of the levels above, then this one's),
        the shared fields of every level (`shared`, those above) and the inner case's own;
        an open inner variant adds its unknown-tag class; a case of it that is a variant
        again has classes of its own the same way, one level down. They derive from the
        `markers` (the outermost variant's base, then the case bases of the levels above)
        and from the case's own variant base, returned with their names: the variant above
        maps the tag to that base, whose decoding then reads the inner tag."""
        module = ctx.module
        case_name, case_base = case_names.name, case_names.base
        assert case_base is not None  # a variant case has its own base
        module.classes.append(ClassView(case_base, "marker"))
        all_shared = shared + (inner.shared.fields if inner.shared is not None else ())
        bases = [*markers[1:], case_base]  # beside the outermost's marker, msgspec's tag
        names: list[str] = []
        cases: list[tuple[str | None, str]] = []
        for inner_case, names_of in zip(inner.cases, case_names.cases, strict=True):
            case_tags = (
                tags if inner_case.tag is None else (*tags, (inner.tag_field, inner_case.tag))
            )
            if names_of.variant is not None:
                nested_base, nested = self.define_variant_case(
                    ctx,
                    names_of,
                    names_of.variant,
                    [*markers, case_base],
                    tag,
                    all_shared,
                    case_tags,
                )
                names += nested
                cases.append((inner_case.tag, nested_base))
                continue
            (case_class,) = names_of.classes
            class_name = case_class.name
            view = self.case_class(ctx, case_class, marker=markers[0], tag=tag, shared=all_shared)
            view.fields[0:0] = [
                _constant_field(wire, self.plan.attributes[wire], value)
                for wire, value in case_tags
            ]
            view.choices += bases
            view.after += tuple(bases)
            module.classes.append(view)
            module.public.append(class_name)
            names.append(class_name)
            cases.append((inner_case.tag, class_name))
        unknown: str | None = None
        fields: str | None = None
        unknown_type: str | None = None
        if case_names.unknown is not None:
            unknown = case_names.unknown
            fields, unknown_type = self.define_unknown_case(
                ctx,
                case_name,
                unknown,
                [*reversed(bases), markers[0]],
                all_shared,
                inner,
                case_names.shared_fields,
                case_names.unknown_fields,
            )
            names.append(unknown)
        module.registrations.append(
            VariantInfoView(
                case_base,
                python_string(inner.tag_field),
                [CaseView(python_string(t), class_) for t, class_ in cases if t is not None],
                default=next((class_ for t, class_ in cases if t is None), None),
                unknown=unknown,
                fields=fields,
                unknown_type=unknown_type,
            )
        )
        return case_base, names

    def define_union(self, ctx: ModuleContext, definition: UnionDefinition) -> None:
        module = ctx.module
        union, name, marker, doc = (
            definition.union,
            definition.name,
            definition.marker,
            definition.doc,
        )
        self.define_all(module, definition.alternatives)
        expressions = [ctx.expr(alternative) for alternative in union.alternatives]
        if marker is None:  # msgspec decodes it natively
            module.aliases.append(
                AliasView(name, expressions, None, doc_of(doc), frozenset(ctx.depends))
            )
            module.public.append(name)
            return
        # The plan reported any other union (E0203): these are all records, or all lists.
        # A union of lists decodes to an instance of the marker, which is then a list
        # (msgspec checks what the hook returns against the annotation; it encodes a list
        # subclass).
        module.classes.append(
            ClassView(
                marker,
                "marker",
                marks="union",
                of_lists=definition.of_lists,
                catch_all=definition.catch_all,
            )
        )
        module.registrations.append(UnionInfoView(marker, expressions))
        module.aliases.append(AliasView(name, expressions, marker, doc_of(doc), frozenset()))
        module.public.append(name)


def _constant_field(wire: str, attribute: str, value: str) -> FieldView:
    """The inner tag of a case of a variant inside a variant case: a field whose only value
    is `value`, filled in by a factory so that it is always encoded (msgspec leaves out a
    plain default; docs/language.md, "Variants")."""
    literal = python_string(value)
    return FieldView(
        attribute=attribute,
        annotation=TypeExpr("typing.Literal", (TypeExpr(literal),)),
        wire=wire,
        renamed=attribute != wire,
        default=literal,
        factory=f"lambda: {literal}",
        doc=None,
    )
