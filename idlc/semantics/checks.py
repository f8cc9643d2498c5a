"""Checks that look through typedefs: defaults, variant cases, unions and type cycles.

They run once every typedef is converted, so `type A = …` may be used before it is written,
and ask what a name stands for of the arena (`queries`, from `idlc.semantics.facts`),
which follows alias cycles (reported separately) to None.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Hashable, Mapping
from typing import assert_never

from idlc.diagnostics import Diagnostics, Related, codes
from idlc.semantics import model, queries
from idlc.semantics.types import name_span

# -- field defaults -------------------------------------------------------------------------


def _literal_kind(literal: model.Literal) -> str:
    value = literal.value
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if value is model.EMPTY_OBJECT:
        return "`{}`"
    return "`[]`"


def default_problem(
    literal: model.Literal,
    type: model.Type,
    typedefs: Mapping[str, model.Typedef],
    _seen: frozenset[int] = frozenset(),
) -> tuple[str, str | None] | None:
    """Why `literal` cannot be the default of a field of `type` (message, help), or None."""
    resolved = queries.follow_typedefs(type, typedefs)
    if resolved is None:
        return None  # an alias cycle or an unknown name, reported elsewhere
    if id(resolved) in _seen:
        # `type A = optional<A>` or a union holding itself: no value of its own to offer.
        return f"{_literal_kind(literal)} fits no value of this type", None
    value = literal.value
    # Exhaustive over the model's type union: a new kind of type is a mypy error here
    # until the defaults it takes are written down.
    match resolved:
        case model.Optional():
            return default_problem(literal, resolved.inner, typedefs, _seen | {id(resolved)})
        case model.Primitive():
            return _primitive_default_problem(literal, resolved.kind)
        case model.Enum():
            if not isinstance(value, str):
                return (
                    f"{_literal_kind(literal)} is not a value of the enum",
                    "write one of its values",
                )
            if resolved.open or any(item.value == value for item in resolved.values):
                return None
            listed = ", ".join(f'"{item.value}"' for item in resolved.values[:6])
            more = ", …" if len(resolved.values) > 6 else ""
            return f"{literal.raw} is not a value of the enum", f"its values are {listed}{more}"
        case model.List():
            if value == ():
                return None
            return f"{_literal_kind(literal)} is not a list", "the only list default is `[]`"
        case model.Map():
            if value == () or value is model.EMPTY_OBJECT:
                return None
            return f"{_literal_kind(literal)} is not a map", "the only map default is `{}`"
        case model.Record():
            if value is model.EMPTY_OBJECT:
                return _empty_record_problem(resolved, typedefs)
            return f"{_literal_kind(literal)} is not a record", "the only record default is `{}`"
        case model.Union_():
            for alternative in resolved.alternatives:
                if default_problem(literal, alternative, typedefs, _seen | {id(resolved)}) is None:
                    return None
            return f"{_literal_kind(literal)} fits no alternative of the union", None
        case model.AtomRef() | model.InterfaceRef() | model.Variant() | model.TypeRef():
            return (
                f"a field holding {queries.describe_kind(resolved)} cannot have a default",
                "defaults are for booleans, numbers, strings, enums, lists, maps and records; "
                "remove it",
            )
        case _:
            assert_never(resolved)


def _primitive_default_problem(
    literal: model.Literal, kind: model.PrimitiveKind
) -> tuple[str, str | None] | None:
    """Why `literal` cannot be the default of a field of primitive `kind`, or None."""
    value = literal.value
    bounds = kind.integer_range
    if kind is model.PrimitiveKind.JSON:
        return None
    if kind is model.PrimitiveKind.BOOL:
        if isinstance(value, bool):
            return None
        return f"{_literal_kind(literal)} is not a `bool`", "write `true` or `false`"
    if bounds is not None:
        if isinstance(value, float):
            if value.is_integer():
                return f"`{literal.raw}` is not an integer literal", f"write `{int(value)}`"
            return f"`{literal.raw}` is not an integer", "write an integer"
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{_literal_kind(literal)} is not a `{kind.value}`", "write an integer"
        low, high = bounds
        if not low <= value <= high:
            return (
                f"`{literal.raw}` is out of the range of `{kind.value}`",
                f"a `{kind.value}` is between {low} and {high}",
            )
        return None
    if kind is model.PrimitiveKind.FLOAT64:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return None
        return f"{_literal_kind(literal)} is not a `float64`", "write a number"
    if kind is model.PrimitiveKind.STRING:
        if isinstance(value, str):
            return None
        return f"{_literal_kind(literal)} is not a `string`", 'write a string: `"…"`'
    if kind is model.PrimitiveKind.BYTES:
        if isinstance(value, str):
            try:
                base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                return "this string is not valid base64", "`bytes` defaults are base64"
            return None
        return f"{_literal_kind(literal)} is not `bytes`", "write a base64 string"
    return "a field of type `unit` cannot have a default", "remove the default"


def _empty_record_problem(
    record: model.Record, typedefs: Mapping[str, model.Typedef]
) -> tuple[str, str | None] | None:
    """Why `{}` cannot stand for `record` with every field at its default, or None.

    Every field needs a default or `optional<…>`; and following `{}` defaults from record
    to record must not come back to `record`, or building the default would never end."""
    for field in record.fields:
        if field.default is None and not queries.optional_inner(field.type, typedefs)[1]:
            return (
                f"`{{}}` leaves the record's required field `{field.name}` without a value",
                f"give `{field.name}` a default, or make it `optional<…>`",
            )
    seen: set[int] = set()
    pending = [record]
    while pending:
        current = pending.pop()
        for field in current.fields:
            if field.default is None or field.default.value is not model.EMPTY_OBJECT:
                continue
            inner = queries.present_chain(field.type, typedefs)[0]
            if inner is record:
                return (
                    f"`{{}}` builds the record again inside itself (field `{field.name}`), "
                    "without end",
                    f"remove the default `{{}}` of `{field.name}`",
                )
            if isinstance(inner, model.Record) and id(inner) not in seen:
                seen.add(id(inner))
                pending.append(inner)
    return None


def check_defaults(
    fields: list[model.Field], typedefs: Mapping[str, model.Typedef], diagnostics: Diagnostics
) -> None:
    for field in fields:
        literal = field.default
        assert literal is not None
        problem = default_problem(literal, field.type, typedefs)
        if queries.is_tristate(field.type, typedefs):
            problem = (
                "a field that tells absent from `null` cannot have a default: absent is a state "
                "of its own",
                "remove the default, or write `nullable<…>` with it",
            )
        if problem is not None:
            message, help = problem
            diagnostics.add(
                codes.INVALID_DEFAULT,
                f"the default of `{field.name}` does not fit its type: {message}",
                literal.span,
                label=f"`{field.name}` is {queries.describe_kind(field.type)}",
                help=help,
            )


# -- nullable (docs/language.md, "Nullable and tri-state fields") ---------------------------


def check_nullable(
    nullable: model.Optional, typedefs: Mapping[str, model.Typedef], diagnostics: Diagnostics
) -> None:
    """`nullable<T>` adds `null` to T: T must not hold it already (an `optional<…>`, a
    `nullable<…>`, `unit` or `json`), or `null` would have two meanings."""
    inner = queries.follow_typedefs(nullable.inner, typedefs)
    if isinstance(inner, model.Optional):
        what = queries.describe_kind(inner)
    elif isinstance(inner, model.Primitive) and inner.kind in (
        model.PrimitiveKind.UNIT,
        model.PrimitiveKind.JSON,
    ):
        what = f"`{inner.kind.value}`"
    else:
        return
    diagnostics.add(
        codes.NULLABLE_OF_NULL,
        f"`nullable<…>` of {what}, which holds `null` already",
        nullable.span,
        label=f"{queries.describe_kind(nullable.inner)} holds `null`",
        help="write the inner type alone; for a field that tells absent from `null`, write "
        "`optional<nullable<T>>`",
    )


# -- forward-compatible fields (docs/language.md, "Forward-compatible fields") -------------


def check_forward_compatible(
    fields: list[model.Field], typedefs: Mapping[str, model.Typedef], diagnostics: Diagnostics
) -> None:
    for field in fields:
        resolved = queries.follow_typedefs(field.type, typedefs)
        if resolved is None:
            continue  # an alias cycle or an unknown name, reported elsewhere
        # A `nullable<…>` field must be present: only `optional<…>` falls back on nothing.
        optional = isinstance(resolved, model.Optional) and not resolved.nullable
        reads_null = isinstance(resolved, model.Optional)
        # What a present value is, through `optional<nullable<…>>` too (None for
        # `type A = optional<A>`, reported elsewhere).
        resolved = queries.present_chain(field.type, typedefs)[0]
        fallback = (
            optional or field.default is not None or isinstance(resolved, (model.List, model.Map))
        )
        for word, span in (("lenient", field.lenient), ("null-default", field.null_default)):
            if span is not None and not fallback:
                diagnostics.add(
                    codes.LENIENT_WITHOUT_FALLBACK,
                    f"`{field.name}` is `{word}` but has no value to fall back to",
                    span,
                    label=f"`{field.name}` is {queries.describe_kind(field.type)}",
                    help="give the field a default (`= …`), or make it `optional<…>`",
                )
        if field.null_default is not None and reads_null:
            diagnostics.add(
                codes.NULL_DEFAULT_ON_OPTIONAL,
                (
                    f"`{field.name}` is optional: `null` already decodes as nothing"
                    if optional
                    else f"`{field.name}` is nullable: `null` already decodes as `None`"
                ),
                field.null_default,
                label=f"`{field.name}` is {queries.describe_kind(field.type)}",
                help="remove `null-default`",
            )
        if field.skip_invalid is not None and not isinstance(resolved, model.List):
            diagnostics.add(
                codes.SKIP_INVALID_NOT_LIST,
                f"`{field.name}` is `skip-invalid` but is not a list",
                field.skip_invalid,
                label=f"`{field.name}` is {queries.describe_kind(field.type)}",
                help="`skip-invalid` drops the items of a `list<…>` that do not decode; remove it",
            )


# -- variants and unions ----------------------------------------------------------------------


def check_variant(
    variant: model.Variant, typedefs: Mapping[str, model.Typedef], diagnostics: Diagnostics
) -> None:
    shared = variant.shared.fields if variant.shared is not None else ()
    if variant.unknown is not None:
        _check_unknown_case(variant, variant.unknown, typedefs, diagnostics)
    for field in shared:
        if field.name == variant.tag_field:
            diagnostics.add(
                codes.TAG_FIELD_CONFLICT,
                f"shared field `{field.name}` has the name of the variant's tag field",
                name_span(field.span, field.name),
                help=f'the tag field "{variant.tag_field}" carries the case name; rename the field',
            )
    for case in variant.cases:
        resolved = queries.follow_typedefs(case.type, typedefs)
        if resolved is None:
            continue
        if isinstance(resolved, model.Primitive) and resolved.kind is model.PrimitiveKind.UNIT:
            continue
        records = queries.record_alternatives(resolved, typedefs)
        if records is not None and case.tag is not None:
            # A tagged case that is an untagged union of records (docs/language.md,
            # "Variants"): each alternative carries the tag and the shared fields.
            for record in records:
                if shared:
                    _check_shared_against_case(shared, case, record, diagnostics)
                _check_tag_field(variant, case, record, diagnostics)
            continue
        if (
            isinstance(resolved, model.Variant)
            and case.tag is not None
            and isinstance(case.type, model.TypeRef)
        ):
            _check_variant_case(variant, case, resolved, typedefs, diagnostics)
            continue
        if not isinstance(resolved, model.Record):
            shown = f'"{case.tag}"' if case.tag is not None else "`default`"
            diagnostics.add(
                codes.INVALID_CASE_TYPE,
                f"variant case {shown} is {_described_through(case.type, resolved)}, "
                "not a record or `unit` (nor, for a tagged case, a union of records or a "
                "named variant)",
                case.type.span,
                label="not a record",
                help="the case's fields sit beside the tag field in one JSON object; wrap the "
                "value in a record: `record { value: … ; }`",
            )
            continue
        if shared:
            _check_shared_against_case(shared, case, resolved, diagnostics)
        _check_tag_field(variant, case, resolved, diagnostics)


def _check_unknown_case(
    variant: model.Variant,
    case: model.Case,
    typedefs: Mapping[str, model.Typedef],
    diagnostics: Diagnostics,
) -> None:
    """`unknown: T;` (docs/language.md, "Variants"): T is a record or a union of records,
    whose fields sit beside the tag and the shared fields in the unknown tag's object."""
    records = queries.unknown_case_records(variant, typedefs)
    resolved = queries.follow_typedefs(case.type, typedefs)
    if records is None:
        if resolved is not None:
            diagnostics.add(
                codes.INVALID_CASE_TYPE,
                f"the `unknown` case is {_described_through(case.type, resolved)}, not a "
                "record or a union of records",
                case.type.span,
                label="not a record",
                help="an unknown tag's object must also decode as this type: write the fields "
                "it must have as a record",
            )
        return
    shared = variant.shared.fields if variant.shared is not None else ()
    for record in records:
        if shared:
            _check_shared_against_case(shared, case, record, diagnostics)
        _check_tag_field(variant, case, record, diagnostics)


def _check_variant_case(
    variant: model.Variant,
    case: model.Case,
    inner: model.Variant,
    typedefs: Mapping[str, model.Typedef],
    diagnostics: Diagnostics,
) -> None:
    """A tagged case that is a variant on another tag field (docs/language.md, "Variants"):
    its tag, shared fields and cases sit in the object beside this variant's tag and shared
    fields, so no name may be there twice; its cases are records or `unit` (one level)."""
    shared = variant.shared.fields if variant.shared is not None else ()
    if inner.tag_field == variant.tag_field or inner.tag_field in {f.name for f in shared}:
        what = "tag field" if inner.tag_field == variant.tag_field else "shared field"
        diagnostics.add(
            codes.TAG_FIELD_CONFLICT,
            f'the variant of case "{case.tag}" has the tag field "{inner.tag_field}", '
            f"which is this variant's {what}",
            case.type.span,
            label=f'tagged on "{inner.tag_field}"',
            help="the two tags sit in one JSON object: give them different names",
        )
    for inner_case in inner.cases:
        resolved = queries.follow_typedefs(inner_case.type, typedefs)
        if (
            resolved is not None
            and not isinstance(resolved, model.Record)
            and not (
                isinstance(resolved, model.Primitive) and resolved.kind is model.PrimitiveKind.UNIT
            )
        ):
            shown = f'"{inner_case.tag}"' if inner_case.tag is not None else "`default`"
            diagnostics.add(
                codes.INVALID_CASE_TYPE,
                f'case "{case.tag}" is a variant whose case {shown} is '
                f"{_described_through(inner_case.type, resolved)}: a variant inside a case "
                "has cases that are records or `unit`",
                case.type.span,
                label="a variant with a case that is not a record",
                help="flatten the inner case into a record",
                related=[Related("the inner case", inner_case.span)],
            )
    # Its shared fields, its `unknown: T;` and its cases' records (`queries.case_records`,
    # which the Python target's name checks read too).
    for record in queries.case_records(case, typedefs):
        if shared:
            _check_shared_against_case(shared, case, record, diagnostics)
        _check_tag_field(variant, case, record, diagnostics)


def _case_shown(case: model.Case) -> str:
    if case.tag is not None:
        return f'variant case "{case.tag}"'
    return "the `unknown` case" if case.unknown else "the `default` case"


def _check_tag_field(
    variant: model.Variant, case: model.Case, record: model.Record, diagnostics: Diagnostics
) -> None:
    """No field of a case's record may be named like the tag (E0121); the record is not an
    `open record` (E0130)."""
    if record.open:
        diagnostics.add(
            codes.OPEN_RECORD_CASE,
            f"{_case_shown(case)} is an open record: a variant case cannot keep undeclared members",
            case.type.span,
            label="an open record",
            help="make the record closed; to keep objects this side does not know, make the "
            "variant an `open variant`",
            related=(
                () if case.type is record else [Related("the record is declared here", record.span)]
            ),
        )
    for field in record.fields:
        if field.name != variant.tag_field:
            continue
        inline = case.type is record
        diagnostics.add(
            codes.TAG_FIELD_CONFLICT,
            f"field `{field.name}` has the name of the variant's tag field",
            name_span(field.span, field.name) if inline else case.type.span,
            label=None if inline else f"this record has a field `{field.name}`",
            help=f'the tag field "{variant.tag_field}" carries the case name; rename the field',
            related=(
                ()
                if inline
                else [Related("the field is declared here", name_span(field.span, field.name))]
            ),
        )


def _check_shared_against_case(
    shared: tuple[model.Field, ...],
    case: model.Case,
    record: model.Record,
    diagnostics: Diagnostics,
) -> None:
    """A case's own fields sit beside the shared ones in one object: no name twice (E0107;
    one name twice in a target language is the target's to check)."""
    wire = {field.name: field for field in shared}
    shown = case_shown_short(case)
    for field in record.fields:
        first = wire.get(field.name)
        if first is None:
            continue
        inline = case.type is record
        diagnostics.add(
            codes.DUPLICATE_FIELD,
            f"field `{field.name}` of case {shown} is also a shared field of the variant",
            name_span(field.span, field.name) if inline else case.type.span,
            label=None if inline else f"this record has a field `{field.name}`",
            help="every case carries the shared fields already; rename or remove one of them",
            related=[
                Related("the shared field is declared here", name_span(first.span, first.name))
            ],
        )


def case_shown_short(case: model.Case) -> str:
    """A case as messages name it after "case": `"http"`, `default` or `unknown`."""
    return f'"{case.tag}"' if case.tag is not None else _case_shown(case).split()[1]


def _described_through(written: model.Type, resolved: model.Type) -> str:
    if written is resolved:
        return queries.describe_kind(resolved)
    return f"{queries.describe_kind(written)} ({queries.describe_kind(resolved)})"


def type_key(type: model.Type) -> Hashable:
    """What a type is, without where it was written: equal keys, equal types."""
    match type:
        case model.Primitive():
            return type.kind
        case model.TypeRef():
            return ("ref", type.name)
        case model.Optional():
            return ("nullable" if type.nullable else "optional", type_key(type.inner))
        case model.List():
            return ("list", type_key(type.inner))
        case model.Map():
            return ("map", type_key(type.value))
        case model.AtomRef():
            return ("atom-ref", type.atom)
        case model.InterfaceRef():
            return ("interface-ref", type.interface)
        case model.Record():
            return ("record", tuple((f.name, type_key(f.type)) for f in type.fields))
        case model.Enum():
            return ("enum", type.open, tuple(value.value for value in type.values))
        case model.Variant():
            shared = type.shared.fields if type.shared else ()
            return (
                "variant",
                type.open,
                type.tag_field,
                tuple((f.name, type_key(f.type)) for f in shared),
                tuple((case.tag, type_key(case.type)) for case in type.cases),
                type_key(type.unknown.type) if type.unknown is not None else None,
            )
        case model.Union_():
            return ("union", tuple(type_key(alt) for alt in type.alternatives))
        case _:
            assert_never(type)


def check_union(
    union: model.Union_, typedefs: Mapping[str, model.Typedef], diagnostics: Diagnostics
) -> None:
    seen: dict[Hashable, model.Type] = {}
    catch_all: model.Type | None = None
    for alternative in union.alternatives:
        resolved = queries.follow_typedefs(alternative, typedefs)
        if catch_all is not None:
            diagnostics.add(
                codes.INVALID_UNION,
                "this union alternative can never be chosen",
                alternative.span,
                label="unreachable",
                help="alternatives are tried in order and an earlier `json` accepts every value; "
                "move `json` last",
                related=[Related("`json` accepts everything", catch_all.span)],
            )
            continue
        key = type_key(resolved if resolved is not None else alternative)
        first = seen.get(key)
        if first is not None:
            diagnostics.add(
                codes.INVALID_UNION,
                "this union alternative can never be chosen",
                alternative.span,
                label="the same type as an earlier alternative",
                help="remove it: the earlier alternative accepts everything this one would",
                related=[Related("the same type first appears here", first.span)],
            )
            continue
        seen[key] = alternative
        if isinstance(resolved, model.Primitive) and resolved.kind is model.PrimitiveKind.JSON:
            catch_all = alternative
