"""Checks that look through typedefs: defaults, variant cases, unions and type cycles.

They run once every typedef is converted, so `type A = …` may be used before it is written,
and ask what a name stands for of the arena (`queries`, from `idlc.semantics.facts`),
which follows alias cycles (reported separately) to None.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from idlc.diagnostics import Diagnostics, Related, codes
from idlc.semantics import model, queries
from idlc.semantics.types import name_span

# -- field defaults -------------------------------------------------------------------------


def check_defaults(
    fields: list[model.Field], typedefs: Mapping[str, model.Typedef], diagnostics: Diagnostics
) -> None:
    """Report each default of `fields` that does not fit its field's type: the arena worked
    out what each stands for, and its problem (`idlc.semantics.defaults`)."""
    for field in fields:
        facts = queries.default_facts(field, typedefs)
        assert facts is not None and field.default is not None
        if facts.problem is not None:
            message, help = facts.problem
            diagnostics.add(
                codes.INVALID_DEFAULT,
                f"the default of `{field.name}` does not fit its type: {message}",
                field.default.span,
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
        # The case's record, or each of a tagged case that is an untagged union of records
        # (docs/language.md, "Variants"): each carries the tag and the shared fields.
        records = queries.case_records(case, typedefs)
        if (
            isinstance(resolved, model.Variant)
            and case.tag is not None
            and isinstance(case.type, model.TypeRef)
        ):
            _check_variant_case(variant, case, resolved, records, typedefs, diagnostics)
            continue
        if not records:
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
        for record in records:
            if shared:
                _check_shared_against_case(shared, case, record, diagnostics)
            _check_tag_field(variant, case, record, diagnostics)


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
    records: tuple[model.Record, ...],
    typedefs: Mapping[str, model.Typedef],
    diagnostics: Diagnostics,
) -> None:
    """A tagged case that is a variant on another tag field (docs/language.md, "Variants"):
    its tag, shared fields and cases sit in the object beside this variant's tag and shared
    fields, so no name may be there twice; its cases are records, `unit` or, tagged, a
    variant again, whose cases follow the same rules one level down (at any depth: each
    inner variant is checked as a variant of its own, here only what it shares with this
    one: the tags of every level, and `records`, the fields of every level)."""
    shared = variant.shared.fields if variant.shared is not None else ()
    shared_names = {f.name for f in shared}
    for nested, _ in queries.nested_variants(case, typedefs):
        if nested is variant:
            diagnostics.add(
                codes.INVALID_CASE_TYPE,
                f'case "{case.tag}" holds this variant inside itself: its objects would need '
                "its tag field twice",
                case.type.span,
                label="holds the variant it is a case of",
                help="a variant inside a case ends in cases that are records or `unit`",
            )
            continue
        if nested.tag_field == variant.tag_field or nested.tag_field in shared_names:
            what = "tag field" if nested.tag_field == variant.tag_field else "shared field"
            diagnostics.add(
                codes.TAG_FIELD_CONFLICT,
                f'the variant of case "{case.tag}" has the tag field "{nested.tag_field}", '
                f"which is this variant's {what}"
                + ("" if nested is inner else " (a variant inside it)"),
                case.type.span,
                label=f'tagged on "{nested.tag_field}"',
                help="the tags sit in one JSON object: give them different names",
            )
    for inner_case in inner.cases:
        resolved = queries.follow_typedefs(inner_case.type, typedefs)
        if (
            resolved is not None
            and not isinstance(resolved, model.Record)
            and not (
                isinstance(resolved, model.Primitive) and resolved.kind is model.PrimitiveKind.UNIT
            )
            and not (
                isinstance(resolved, model.Variant)
                and inner_case.tag is not None
                and isinstance(inner_case.type, model.TypeRef)
            )
        ):
            shown = f'"{inner_case.tag}"' if inner_case.tag is not None else "`default`"
            diagnostics.add(
                codes.INVALID_CASE_TYPE,
                f'case "{case.tag}" is a variant whose case {shown} is '
                f"{_described_through(inner_case.type, resolved)}: a variant inside a case "
                "has cases that are records, `unit` or (tagged) a named variant",
                case.type.span,
                label="a variant with a case that is not a record",
                help="flatten the inner case into a record",
                related=[Related("the inner case", inner_case.span)],
            )
    # Its shared fields, its `unknown: T;` and its cases' records (`records`: the case's,
    # `queries.case_records`, which the Python target's name checks read too).
    for record in records:
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
        key = queries.type_key(resolved if resolved is not None else alternative)
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
