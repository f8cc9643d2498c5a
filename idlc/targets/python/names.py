"""Two IDL names of one scope that would be one Python name (E0113).

`fooBar` and `foo_bar` are two fields of a record but one Python attribute; `read-only` and
`read_only` are two enum values but one enum member; the cases `http` and `Http` of one
variant would give one class suffix. Each scope of `Model.scopes` is checked alone, so this
runs on the model also when it has other errors (a name that does not resolve is simply
not followed; the scopes of a declaration that lost to another of its name are checked
too), and the user sees these beside the front end's own. A name the IDL itself declares
twice is the front end's duplicate error, not checked again here.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Generic, TypeVar, assert_never

from idlc.diagnostics import Diagnostics, Related, codes
from idlc.nodes import node
from idlc.semantics import model as m
from idlc.semantics import queries
from idlc.semantics.checks import case_shown_short
from idlc.semantics.types import name_span
from idlc.source import Span
from idlc.targets.python import naming

_Item = TypeVar("_Item")


@node
class _Scope(Generic[_Item]):
    """One kind of scope: how its items are named, and how their collisions read."""

    plural: str  # "members", "fields", "enum values"
    python_kind: str  # "Python method", …
    help: str
    listed: str  # verb for the related note ("declared", "listed")
    to_python: Callable[[str], str]
    #: an item's IDL name, that name as messages show it, and its span: the last two are
    #: asked only of items in a collision (most schemas have none)
    name: Callable[[_Item], str]
    shown: Callable[[_Item], str]
    span: Callable[[_Item], Span]


_MEMBERS: _Scope[m.Member] = _Scope(
    "members",
    "Python method",
    "rename one of them",
    "declared",
    naming.member_name,
    operator.attrgetter("name"),
    lambda member: f"`{member.name}`",
    lambda member: member.name_span or member.span,
)
_FIELDS: _Scope[m.Field] = _Scope(
    "fields",
    "Python attribute",
    "rename one of them",
    "declared",
    naming.attribute_name,
    operator.attrgetter("name"),
    lambda field: f"`{field.name}`",
    lambda field: name_span(field.span, field.name),
)
_ENUM_VALUES: _Scope[m.EnumValue] = _Scope(
    "enum values",
    "Python enum member",
    "two values of one enum must differ in more than case and punctuation",
    "listed",
    naming.enum_attribute_name,
    operator.attrgetter("value"),
    lambda value: value.raw,
    lambda value: name_span(value.span, value.raw),
)


def check_names(model: m.Model, diagnostics: Diagnostics) -> None:
    """Report every pair of names in one scope of `model` that one Python name would hold."""
    for interface in model.interfaces.values():
        _check_scope(_MEMBERS, interface.members, diagnostics)
    for type_ in model.scopes:
        match type_:
            case m.Record():
                _check_fields(type_, diagnostics)
            case m.Enum():
                _check_scope(_ENUM_VALUES, type_.values, diagnostics)
            case m.Variant():  # (its shared fields are a record of `scopes`)
                _check_case_suffixes(type_, diagnostics)
                _check_case_fields(type_, model.typedefs, diagnostics)
            case _:
                assert_never(type_)


def _check_scope(scope: _Scope[_Item], items: Sequence[_Item], diagnostics: Diagnostics) -> None:
    names = list(map(scope.name, items))
    if len(set(map(scope.to_python, names))) == len(names):
        # As in most scopes, no two names share a Python name (two equal IDL names would
        # share one too): nothing to report, found in C-level calls alone.
        return
    seen: set[str] = set()
    python: dict[str, _Item] = {}
    for item, name in zip(items, names, strict=True):
        if name in seen:
            continue  # declared twice: the front end's error
        seen.add(name)
        python_name = scope.to_python(name)
        other = python.get(python_name)
        if other is None:
            python[python_name] = item
            continue
        other_shown, shown = scope.shown(other), scope.shown(item)
        diagnostics.add(
            codes.PYTHON_NAME_COLLISION,
            f"{scope.plural} {other_shown} and {shown} both become the "
            f"{scope.python_kind} `{python_name}`",
            scope.span(item),
            label=f"becomes `{python_name}`",
            help=scope.help,
            related=[Related(f"{other_shown} is {scope.listed} here", scope.span(other))],
        )


def _check_fields(record: m.Record, diagnostics: Diagnostics) -> None:
    _check_scope(_FIELDS, record.fields, diagnostics)
    if not record.open:
        return
    extra = naming.OPEN_RECORD_EXTRA
    for field in record.fields:
        if naming.attribute_name(field.name) == extra:
            diagnostics.add(
                codes.PYTHON_NAME_COLLISION,
                f"field `{field.name}` of an open record becomes the Python attribute "
                f"`{extra}`, which holds the members the record does not declare",
                name_span(field.span, field.name),
                label=f"becomes `{extra}`",
                help="rename the field, or make the record closed",
            )


def _check_case_suffixes(variant: m.Variant, diagnostics: Diagnostics) -> None:
    """Each case's class is the variant's name and the case's suffix (`McpServer` + `Http`).
    (A case may be `…Unknown`: the unknown-tag class of an open variant then takes another
    name, `naming.unknown_case_class_name`.)"""
    seen: set[str | None] = set()
    suffixes: dict[str, m.Case] = {}
    for case in variant.cases:
        if case.tag in seen:
            continue  # listed twice, or a second `default`: the front end's error
        seen.add(case.tag)
        suffix = naming.case_suffix(case.tag)
        other = suffixes.get(suffix)
        if other is None:
            suffixes[suffix] = case
            continue
        first, second = (other, case) if other.span.start < case.span.start else (case, other)
        diagnostics.add(
            codes.PYTHON_NAME_COLLISION,
            f"variant cases {_label(first)} and {_label(second)} both become the "
            f"Python class suffix `{suffix}`",
            _tag_span(case),
            label=f"becomes `…{suffix}`",
            help="two cases of one variant must differ in more than case and punctuation",
            related=[Related(f"{_label(other)} is listed here", _tag_span(other))],
        )


def _label(case: m.Case) -> str:
    return case.raw if case.raw is not None else "`default`"


def _tag_span(case: m.Case) -> Span:
    return case.name_span or case.span


def _check_case_fields(
    variant: m.Variant, typedefs: Mapping[str, m.Typedef], diagnostics: Diagnostics
) -> None:
    """A case's classes have the variant's shared fields beside the case's own, and a case
    that is a variant on another tag field has that tag as an attribute too: none of them
    may take another's Python name under another wire name."""
    shared = variant.shared.fields if variant.shared is not None else ()
    for case in variant.cases:
        records = queries.case_records(case, typedefs)
        if shared:
            for record in records:
                _check_shared_against_case(shared, case, record, diagnostics)
        # A variant again inside it, at any depth: its tag is an attribute of these classes
        # too (the fields of its own level are checked with the variant around it).
        tags: dict[str, str] = {}
        for depth, (inner, _) in enumerate(queries.nested_variants(case, typedefs)):
            _check_inner_tag(case, inner, shared, records if depth == 0 else (), diagnostics)
            attribute = naming.attribute_name(inner.tag_field)
            other = tags.setdefault(attribute, inner.tag_field)
            if other != inner.tag_field:
                diagnostics.add(
                    codes.PYTHON_NAME_COLLISION,
                    f'the tag fields "{other}" and "{inner.tag_field}" of the variants inside '
                    f'case "{case.tag}" both become the Python attribute `{attribute}`',
                    case.type.span,
                    label=f"its classes would have two `{attribute}` attributes",
                    help="rename one of the tag fields",
                )


def _check_shared_against_case(
    shared: tuple[m.Field, ...], case: m.Case, record: m.Record, diagnostics: Diagnostics
) -> None:
    wire = {field.name for field in shared}
    python = {naming.attribute_name(field.name): field for field in shared}
    for field in record.fields:
        if field.name in wire:
            continue  # the same wire name: the front end's error (E0107)
        first = python.get(naming.attribute_name(field.name))
        if first is None:
            continue
        inline = case.type is record
        diagnostics.add(
            codes.PYTHON_NAME_COLLISION,
            f"field `{field.name}` of case {case_shown_short(case)} and shared field "
            f"`{first.name}` become the same Python name",
            name_span(field.span, field.name) if inline else case.type.span,
            label=None if inline else f"this record has a field `{field.name}`",
            help="every case carries the shared fields already; rename or remove one of them",
            related=[
                Related("the shared field is declared here", name_span(first.span, first.name))
            ],
        )


def _check_inner_tag(
    case: m.Case,
    inner: m.Variant,
    shared: tuple[m.Field, ...],
    records: tuple[m.Record, ...],
    diagnostics: Diagnostics,
) -> None:
    """The inner tag is an attribute of every class of the case (`StateUpdateIdleEndTurn.
    stop_reason`): no field of them may take its Python name under another wire name."""
    inner_tag = naming.attribute_name(inner.tag_field)
    for field in shared + tuple(f for record in records for f in record.fields):
        if field.name != inner.tag_field and naming.attribute_name(field.name) == inner_tag:
            diagnostics.add(
                codes.PYTHON_NAME_COLLISION,
                f'field `{field.name}` and the tag field "{inner.tag_field}" of the variant '
                f'of case "{case.tag}" both become the Python attribute `{inner_tag}`',
                case.type.span,
                label=f"its classes would have two `{inner_tag}` attributes",
                help="rename the field or the tag field",
                related=[Related("the field is declared here", name_span(field.span, field.name))],
            )
