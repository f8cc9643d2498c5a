"""The records whose fields each variant case's objects carry, worked out once per model.

A case's object holds the variant's tag and shared fields beside the fields of the case's
records (docs/language.md, "Variants"). The checks (E0107, E0121, E0130), the Python
target's name checks (E0113) and its mapping (the attributes of an unknown tag's class)
all ask this of every case. It is worked out here for every variant written (`Model.scopes`)
when the model's arena is made (`idlc.semantics.facts.Typedefs`), once names are followed
by the arena's facts, and stored by node, so asking (`queries.case_records`,
`queries.unknown_case_records`, `queries.unknown_case_fields`) is a lookup. Nothing here
raises on a model with errors: a case whose type is no record is simply one without
records (the checks report it).
"""

from __future__ import annotations

from collections.abc import Iterable

from idlc.nodes import ByNode, node
from idlc.semantics import model as m
from idlc.semantics import queries
from idlc.semantics.facts import Typedefs

__all__ = ["UnknownCase", "case_records", "unknown_case", "work_out"]


@node
class UnknownCase:
    """What a variant's `unknown: T;` stands for."""

    #: The records the object of an unknown tag must also be: T's record, or the records
    #: of a union of records; None when T is neither (reported, E0119).
    records: tuple[m.Record, ...] | None
    #: The fields of those records that the unknown case exposes as attributes: a record's
    #: fields, or those every alternative of the union has (same name, same type).
    fields: tuple[m.Field, ...]


def work_out(
    arena: Typedefs, variants: Iterable[m.Variant]
) -> tuple[ByNode[m.Case, tuple[m.Record, ...]], ByNode[m.Variant, UnknownCase]]:
    """The records of every case of `variants`, and the `unknown:` case of each that has
    one (the unknown cases first: a case naming another variant carries its records)."""
    variants = list(variants)
    unknown: ByNode[m.Variant, UnknownCase] = ByNode()
    for variant in variants:
        if variant.unknown is not None:
            unknown[variant] = unknown_case(variant, arena)
    records: ByNode[m.Case, tuple[m.Record, ...]] = ByNode()
    for variant in variants:
        for case in variant.cases:
            records[case] = case_records(case, arena, unknown)
    return records, unknown


def unknown_case(variant: m.Variant, arena: Typedefs) -> UnknownCase:
    """What `variant`'s `unknown: T;` stands for (no records without one)."""
    if variant.unknown is None:
        return _NO_UNKNOWN
    resolved = queries.follow_typedefs(variant.unknown.type, arena)
    if isinstance(resolved, m.Record):
        records: tuple[m.Record, ...] | None = (resolved,)
    else:
        records = _records_of(queries.record_alternatives(resolved, arena))
    if not records:
        return UnknownCase(records, ())
    first, *others = records
    keys = [{(o.name, queries.type_key(o.type)) for o in record.fields} for record in others]
    fields = tuple(
        field
        for field in first.fields
        if all((field.name, queries.type_key(field.type)) in known for known in keys)
    )
    return UnknownCase(records, fields)


_NO_UNKNOWN = UnknownCase(None, ())


def case_records(
    case: m.Case,
    arena: Typedefs,
    unknown: ByNode[m.Variant, UnknownCase] | None = None,
    within: tuple[m.Variant, ...] = (),
) -> tuple[m.Record, ...]:
    """The records whose fields the objects of variant case `case` carry beside the
    variant's tag and shared fields (docs/language.md, "Variants"): the case's record; each
    record of a tagged case that is a union of records; for a tagged case naming a variant
    on another tag field, that variant's shared fields, its `unknown:` records (from
    `unknown` when it has them) and its cases' records, those of a case naming a variant
    again included, at any depth (`within`: the variants met on the way, where a variant
    met again stops: reported, E0119). Empty for `unit` and for a case the checks report
    (`check_variant`)."""
    resolved = queries.follow_typedefs(case.type, arena)
    if case.tag is not None:
        records = queries.record_alternatives(resolved, arena)
        if records is not None:
            return tuple(records)
        if isinstance(resolved, m.Variant) and isinstance(case.type, m.TypeRef):
            if any(met is resolved for met in within):
                return ()
            inner = [resolved.shared] if resolved.shared is not None else []
            found = unknown.get(resolved) if unknown is not None else None
            if found is None:
                found = unknown_case(resolved, arena)
            inner += found.records or ()
            for inner_case in resolved.cases:
                record = queries.follow_typedefs(inner_case.type, arena)
                if isinstance(record, m.Record):
                    inner.append(record)
                elif isinstance(record, m.Variant):  # a variant again, one level down
                    inner += case_records(inner_case, arena, unknown, (*within, resolved))
            return tuple(inner)
    return (resolved,) if isinstance(resolved, m.Record) else ()


def _records_of(records: list[m.Record] | None) -> tuple[m.Record, ...] | None:
    return None if records is None else tuple(records)
