"""Type expressions: AST → model, resolving names and checking what one expression alone shows.

Checks that need other declarations (a default against an aliased type, a variant case
through a typedef) wait until every typedef is converted; see `checks.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from idlc.diagnostics import Diagnostics, Related, codes
from idlc.semantics import model
from idlc.semantics.scope import Kind, Scope
from idlc.semantics.stability import unstable_of
from idlc.semantics.unique import UniqueNames, Wording
from idlc.source import Span
from idlc.suggest import did_you_mean
from idlc.syntax import ast

PRIMITIVE_NAMES = tuple(kind.value for kind in ast.PrimitiveKind)
_PRIMITIVES = {kind: model.PrimitiveKind(kind.value) for kind in ast.PrimitiveKind}


def name_span(span: Span, name: str) -> Span:
    """The span of a name that starts `span` (a field, say) and is one token long."""
    return span.head(len(name))


_FIELD_WORDING = Wording(
    codes.DUPLICATE_FIELD,
    lambda shown: f"field {shown} is declared twice in this record",
    "declared again here",
    "rename or remove one of the two fields",
    "first declared here",
)
_ENUM_WORDING = Wording(
    codes.DUPLICATE_ENUM_VALUE,
    lambda shown: f"enum value {shown} is listed twice",
    "listed again here",
    "remove one of the two",
    "first listed here",
)


class TypeConverter:
    def __init__(self, scope: Scope, diagnostics: Diagnostics) -> None:
        self.scope = scope
        self.diagnostics = diagnostics
        #: Built while converting, for the checks that need every typedef (checks.py).
        self.fields_with_defaults: list[model.Field] = []
        self.forward_compatible_fields: list[model.Field] = []
        self.variants: list[model.Variant] = []
        #: Every record, enum and variant converted, in order (`Model.scopes`).
        self.scopes: list[model.Record | model.Enum | model.Variant] = []
        self.unions: list[model.Union_] = []
        self.nullables: list[model.Optional] = []

    # -- references ----------------------------------------------------------------------

    def atom(self, name: ast.Name, usage: str) -> str:
        entry = self.scope.get(name.value)
        if entry is None:
            self.diagnostics.add(
                codes.UNKNOWN_ATOM,
                f"unknown atom `{name.value}`",
                name.span,
                label="no atom of this name",
                help=did_you_mean(name.value, self.scope.names(Kind.ATOM))
                or f'declare it: `external atom {name.value} id "…";`',
            )
        elif entry.kind is not Kind.ATOM:
            help = None
            if entry.kind in (Kind.INTERFACE, Kind.OPAQUE):
                help = (
                    f"to refer to an object implementing interface `{name.value}`, write "
                    + ("`interface-ref<" if usage == "atom-ref" else "`interface ")
                    + name.value
                    + (">`" if usage == "atom-ref" else "`")
                )
            help = help or did_you_mean(name.value, self.scope.names(Kind.ATOM))
            self.diagnostics.add(
                codes.WRONG_KIND,
                f"`{name.value}` is {entry.kind.described()}, not an atom",
                name.span,
                label=f"`{usage}` needs an atom",
                help=help,
                related=[Related(f"`{name.value}` is declared here", entry.span)],
            )
        return name.value

    def interface(self, name: ast.Name, usage: str) -> str:
        entry = self.scope.get(name.value)
        if entry is None:
            self.diagnostics.add(
                codes.UNKNOWN_INTERFACE,
                f"unknown interface `{name.value}`",
                name.span,
                label="no interface of this name",
                help=did_you_mean(name.value, self.scope.names(Kind.INTERFACE, Kind.OPAQUE))
                or f"declare it, or import it: `import interface {name.value};`",
            )
        elif entry.kind not in (Kind.INTERFACE, Kind.OPAQUE):
            help = None
            if entry.kind is Kind.ATOM:
                help = "to refer to an atom, write " + (
                    f"`atom-ref<{name.value}>`"
                    if usage == "interface-ref"
                    else f"`atom {name.value}`"
                )
            help = help or did_you_mean(name.value, self.scope.names(Kind.INTERFACE, Kind.OPAQUE))
            self.diagnostics.add(
                codes.WRONG_KIND,
                f"`{name.value}` is {entry.kind.described()}, not an interface",
                name.span,
                label=f"`{usage}` needs an interface",
                help=help,
                related=[Related(f"`{name.value}` is declared here", entry.span)],
            )
        return name.value

    def named(self, name: ast.Name) -> model.TypeRef:
        entry = self.scope.get(name.value)
        if entry is None:
            self.diagnostics.add(
                codes.UNKNOWN_TYPE,
                f"unknown type `{name.value}`",
                name.span,
                label="no type of this name",
                help=did_you_mean(name.value, self.scope.names(Kind.TYPEDEF, first=PRIMITIVE_NAMES))
                or f"declare it: `type {name.value} = …;`",
            )
        elif entry.kind is Kind.OPAQUE:
            self.diagnostics.add(
                codes.OPAQUE_INTERFACE_USE,
                f"`{name.value}` is an imported interface defined in no file of the compilation; "
                "it cannot be used as a type",
                name.span,
                label="used as a type",
                help=f"to refer to an object implementing it, write `interface-ref<{name.value}>`",
                related=[Related("imported here", entry.span)],
            )
        elif entry.kind is not Kind.TYPEDEF:
            help = (
                f"to refer to an object implementing it, write `interface-ref<{name.value}>`"
                if entry.kind is Kind.INTERFACE
                else f"to refer to an object of this atom, write `atom-ref<{name.value}>`"
            )
            self.diagnostics.add(
                codes.WRONG_KIND,
                f"`{name.value}` is {entry.kind.described()}, not a type",
                name.span,
                label="used as a type",
                help=help,
                related=[Related(f"`{name.value}` is declared here", entry.span)],
            )
        return model.TypeRef(name.value, name.span)

    # -- type expressions ----------------------------------------------------------------

    def convert(self, node: ast.TypeExpr) -> model.Type:
        # One dictionary lookup on the node's class rather than a chain of `isinstance`
        # (tens of thousands of type expressions in a large schema; node classes have no
        # subclasses, see `idlc.nodes`).
        convert = _CONVERTERS.get(type(node))
        if convert is None:
            raise AssertionError(f"unknown type node {node!r}")
        return convert(self, node)

    def _primitive(self, node: ast.PrimitiveType) -> model.Type:
        return model.Primitive(_PRIMITIVES[node.kind], node.span)

    def _named_type(self, node: ast.NamedType) -> model.Type:
        return self.named(node.name)

    def _optional(self, node: ast.OptionalType) -> model.Type:
        optional = model.Optional(self.convert(node.inner), node.span, node.nullable)
        if optional.nullable:
            self.nullables.append(optional)
        elif (
            isinstance(optional.inner, model.Optional)
            and _is_json(optional.inner.inner)
            and self.nullables
            and self.nullables[-1] is optional.inner
        ):
            # `optional<nullable<json>>` is the tri-state of `json` (absent, `null`, a
            # value): `nullable` adds nothing to `json` alone (E0129), but inside
            # `optional<…>` it tells `null` from absent (docs/language.md, "Nullable and
            # tri-state fields").
            self.nullables.pop()
        return optional

    def _list(self, node: ast.ListType) -> model.Type:
        return model.List(self.convert(node.inner), node.span)

    def _atom_ref(self, node: ast.AtomRefType) -> model.Type:
        return model.AtomRef(self.atom(node.atom, "atom-ref"), node.span)

    def _interface_ref(self, node: ast.InterfaceRefType) -> model.Type:
        return model.InterfaceRef(self.interface(node.interface, "interface-ref"), node.span)

    def _map(self, node: ast.MapType) -> model.Type:
        return model.Map(self.convert(node.value), node.span)

    def _union(self, node: ast.UnionType) -> model.Type:
        if not node.alternatives:
            self._empty_choice(node.span, "union", "alternative")
        union = model.Union_(tuple(self.convert(alt) for alt in node.alternatives), node.span)
        self.unions.append(union)
        return union

    def _empty_choice(self, span: Span, what: str, part: str) -> None:
        # No JSON value is one of these, so no message holding one could ever be decoded.
        self.diagnostics.add(
            codes.EMPTY_CHOICE,
            f"this {what} has no {part}: no value could ever have this type",
            span,
            label=f"empty {what}",
            help=f"list at least one {part}"
            + (
                ", or make it an `open variant` to keep every tagged object"
                if what == "variant"
                else ""
            ),
        )

    def record(self, node: ast.RecordType) -> model.Record:
        fields: list[model.Field] = []
        names = UniqueNames(_FIELD_WORDING, self.diagnostics)
        for item in node.fields:
            name = item.name
            names.add(name.value, f"`{name.value}`", name.span)
            default = None
            if item.default is not None:
                literal = item.default
                value: bool | int | float | str | tuple[()] | model.EmptyObject
                if literal.kind is ast.LiteralKind.EMPTY_LIST:
                    value = ()
                elif literal.kind is ast.LiteralKind.EMPTY_OBJECT:
                    value = model.EMPTY_OBJECT
                else:
                    value = literal.value  # type: ignore[assignment]
                default = model.Literal(value, literal.raw, literal.span)
            converted = model.Field(
                name.value,
                self.convert(item.type),
                default,
                item.doc.text if item.doc is not None else None,
                item.span,
                item.lenient,
                item.skip_invalid,
                item.null_default,
                unstable_of(item.attributes, self.diagnostics),
            )
            if default is not None:
                self.fields_with_defaults.append(converted)
            if item.lenient or item.skip_invalid or item.null_default:
                self.forward_compatible_fields.append(converted)
            fields.append(converted)
        record = model.Record(tuple(fields), node.span, node.open)
        self.scopes.append(record)
        return record

    def enum(self, node: ast.EnumType) -> model.Enum:
        values: list[model.EnumValue] = []
        names = UniqueNames(_ENUM_WORDING, self.diagnostics)
        for item in node.values:
            literal = item.value
            names.add(literal.value, literal.raw, literal.span)
            values.append(
                model.EnumValue(
                    literal.value,
                    item.doc.text if item.doc is not None else None,
                    item.span,
                    literal.raw,
                    unstable_of(item.attributes, self.diagnostics),
                )
            )
        enum = model.Enum(node.open, tuple(values), node.span)
        self.scopes.append(enum)
        return enum

    def variant(self, node: ast.VariantType) -> model.Variant:
        if not any(not case.unknown for case in node.cases) and not node.open:
            self._empty_choice(node.span, "variant", "case")
        cases: list[model.Case] = []
        seen: dict[str, ast.VariantCase] = {}
        default: ast.VariantCase | None = None
        unknown: model.Case | None = None
        for item in node.cases:
            tag = item.tag
            if item.unknown:
                span = _keyword_span(item.span, "unknown")
                converted = self.convert(item.type)
                if not node.open or unknown is not None:
                    self.diagnostics.add(
                        codes.MISPLACED_UNKNOWN_CASE,
                        (
                            "this variant has a second `unknown` case"
                            if unknown is not None
                            else "a closed variant has no unknown tags: `unknown` is for an "
                            "`open variant`"
                        ),
                        span,
                        label="`unknown` case",
                        help="a variant has at most one `unknown` case, and only an `open "
                        "variant` keeps unknown tags",
                        related=(
                            [Related("first `unknown` case", unknown.name_span or unknown.span)]
                            if unknown is not None
                            else []
                        ),
                    )
                else:
                    doc = item.doc.text if item.doc is not None else None
                    unknown = model.Case(None, converted, doc, item.span, span, unknown=True)
                continue
            if tag is None:
                if default is not None:
                    self.diagnostics.add(
                        codes.DUPLICATE_DEFAULT_CASE,
                        "this variant has a second `default` case",
                        _keyword_span(item.span, "default"),
                        label="second `default` case",
                        help="a variant has at most one `default` case: its untagged case, "
                        "used when the tag field is absent and as the fallback",
                        related=[
                            Related("first `default` case", _keyword_span(default.span, "default"))
                        ],
                    )
                else:
                    default = item
            else:
                first = seen.get(tag.value)
                if first is not None:
                    assert first.tag is not None
                    self.diagnostics.add(
                        codes.DUPLICATE_CASE,
                        f"variant case {tag.raw} is listed twice",
                        tag.span,
                        label="listed again here",
                        help="each case needs its own tag",
                        related=[Related("first listed here", first.tag.span)],
                    )
                else:
                    seen[tag.value] = item
            cases.append(
                model.Case(
                    tag.value if tag is not None else None,
                    self.convert(item.type),
                    item.doc.text if item.doc is not None else None,
                    item.span,
                    _case_span(item),
                    raw=tag.raw if tag is not None else None,
                    unstable=unstable_of(item.attributes, self.diagnostics),
                )
            )
        shared = self.record(node.shared) if node.shared is not None else None
        variant = model.Variant(
            node.open, node.tag_field.value, tuple(cases), node.span, shared, unknown
        )
        self.variants.append(variant)
        self.scopes.append(variant)
        return variant


def _case_span(case: ast.VariantCase) -> Span:
    return case.tag.span if case.tag is not None else _keyword_span(case.span, "default")


def _keyword_span(span: Span, keyword: str) -> Span:
    return name_span(span, keyword)


def _is_json(type_: model.Type) -> bool:
    return isinstance(type_, model.Primitive) and type_.kind is model.PrimitiveKind.JSON


#: `TypeConverter.convert`'s method for each kind of type expression.
_CONVERTERS: dict[type, Callable[[TypeConverter, Any], model.Type]] = {
    ast.PrimitiveType: TypeConverter._primitive,
    ast.NamedType: TypeConverter._named_type,
    ast.OptionalType: TypeConverter._optional,
    ast.ListType: TypeConverter._list,
    ast.RecordType: TypeConverter.record,
    ast.AtomRefType: TypeConverter._atom_ref,
    ast.InterfaceRefType: TypeConverter._interface_ref,
    ast.MapType: TypeConverter._map,
    ast.EnumType: TypeConverter.enum,
    ast.VariantType: TypeConverter.variant,
    ast.UnionType: TypeConverter._union,
}
