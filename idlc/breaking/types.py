"""Comparing two types by structure, in the direction their values travel (`idlc breaking`).

A typedef is looked through, so renaming one (or inlining it) while keeping its shape is no
change; a change inside a typedef is reported once per interface, at the place in it.
"""

from __future__ import annotations

from typing import assert_never

from idlc.breaking import rules
from idlc.breaking.flows import NONE, Flow, Place, primitive_compatible
from idlc.breaking.rules import Change, Rule, Side
from idlc.semantics import model as m
from idlc.semantics import queries
from idlc.semantics.queries import describe
from idlc.source import Span


def _unalias(model: m.Model, type_: m.Type) -> tuple[m.Type, str | None]:
    """The type a chain of typedef names stands for, and the last typedef of the chain."""
    resolved, name = queries.typedef_chain(type_, model.typedefs)
    return (type_ if resolved is None else resolved), name


def _kind(item: object) -> type:
    return type(item)


class TypeComparer:
    """Compares the types of one interface in two models, recording `changes`.

    `old_flows`/`new_flows`: which way each typedef the interface reaches travels.
    """

    def __init__(
        self,
        old: m.Model,
        new: m.Model,
        old_flows: dict[str, Flow],
        new_flows: dict[str, Flow],
    ) -> None:
        self.old = old
        self.new = new
        self.old_flows = old_flows
        self.new_flows = new_flows
        self.changes: list[Change] = []
        self.typedef_pairs: set[tuple[str, str]] = set()
        self.atoms_reported: set[str] = set()

    def report(self, rule: Rule, message: str, span: Span | None, side: Side = "new") -> None:
        change = Change(rule, message, span, side)
        if change not in self.changes:
            self.changes.append(change)

    def atoms(self, old: str, new: str, where: str, span: Span, *, target: bool) -> None:
        old_id, new_id = self.old.atoms[old].id, self.new.atoms[new].id
        if old_id == new_id:
            return
        if old == new:
            if new not in self.atoms_reported:
                self.atoms_reported.add(new)
                self.report(
                    rules.ATOM_ID_CHANGED,
                    f'atom `{new}` (used by {where}) changed id from "{old_id}" to "{new_id}"',
                    span,
                )
        elif target:
            self.report(
                rules.TARGET_CHANGED,
                f"{where} changed target from atom `{old}` to atom `{new}`",
                span,
            )
        else:
            self.report(
                rules.TYPE_CHANGED,
                f"{where} changed type from `atom-ref<{old}>` to `atom-ref<{new}>`",
                span,
            )

    def same_interface(self, old: str, new: str) -> bool:
        """Whether two interface names name the same interface (ids, when both are defined)."""
        before = self.old.interfaces.get(old)
        after = self.new.interfaces.get(new)
        if before is not None and after is not None:
            return old == new or before.id == after.id
        return old == new

    # -- types ----------------------------------------------------------------------------

    def types(self, old: m.Type, new: m.Type, flow: Flow, place: Place) -> None:
        old_type, old_name = _unalias(self.old, old)
        new_type, new_name = _unalias(self.new, new)
        if old_name is not None:
            flow |= self.old_flows.get(old_name, NONE)
        if new_name is not None:
            flow |= self.new_flows.get(new_name, NONE)
            place = Place(f"`{new_name}`")
        if old_name is not None and new_name is not None:
            pair = (old_name, new_name)
            if pair in self.typedef_pairs:
                return
            self.typedef_pairs.add(pair)

        if isinstance(old_type, m.Optional) != isinstance(new_type, m.Optional):
            if isinstance(old_type, m.Optional):
                if flow & Flow.INPUT:
                    self.report(
                        rules.OPTIONAL_MADE_REQUIRED,
                        f"{place} changed from `{describe(old)}` to `{describe(new)}`: "
                        "it is no longer optional",
                        new_type.span,
                    )
                self.types(old_type.inner, new_type, flow, place)
            else:
                assert isinstance(new_type, m.Optional)
                if flow & Flow.OUTPUT:
                    self.report(
                        rules.TYPE_CHANGED,
                        f"{place} changed from `{describe(old)}` to `{describe(new)}`: "
                        "peers reading it expect a value",
                        new_type.span,
                    )
                self.types(old_type, new_type.inner, flow, place)
            return

        if _kind(old_type) is not _kind(new_type):
            self.type_changed(old, new, new_type.span, place)
            return
        self.same_kind(old, new, old_type, new_type, flow, place)

    def same_kind(
        self, old: m.Type, new: m.Type, old_type: m.Type, new_type: m.Type, flow: Flow, place: Place
    ) -> None:
        """Compares two types of one kind (`old_type` and `new_type`, typedefs followed; `old`
        and `new` as written, for messages). Exhaustive over the model's type union: a new
        kind of type is a mypy error here until its compatible changes are written down."""
        match old_type:
            case m.Primitive():
                assert isinstance(new_type, m.Primitive)
                if not primitive_compatible(old_type.kind, new_type.kind, flow):
                    self.type_changed(old, new, new_type.span, place)
            case m.Optional():
                assert isinstance(new_type, m.Optional)
                self.types(old_type.inner, new_type.inner, flow, place)
            case m.List():
                assert isinstance(new_type, m.List)
                self.types(old_type.inner, new_type.inner, flow, place.inside("[]"))
            case m.Map():
                assert isinstance(new_type, m.Map)
                self.types(old_type.value, new_type.value, flow, place.inside("{}"))
            case m.AtomRef():
                assert isinstance(new_type, m.AtomRef)
                self.atoms(old_type.atom, new_type.atom, str(place), new_type.span, target=False)
            case m.InterfaceRef():
                assert isinstance(new_type, m.InterfaceRef)
                if not self.same_interface(old_type.interface, new_type.interface):
                    self.type_changed(old, new, new_type.span, place)
            case m.Record():
                assert isinstance(new_type, m.Record)
                self.record(old_type, new_type, flow, place)
            case m.Enum():
                assert isinstance(new_type, m.Enum)
                self.enum(old_type, new_type, flow, place)
            case m.Variant():
                assert isinstance(new_type, m.Variant)
                self.variant(old_type, new_type, flow, place)
            case m.Union_():
                assert isinstance(new_type, m.Union_)
                self.union(old_type, new_type, flow, place)
            case m.TypeRef():
                # Only a typedef of a cycle or an unknown name is left unfollowed (both
                # reported by the checks): nothing to compare inside it.
                pass
            case _:
                assert_never(old_type)

    def union(self, old: m.Union_, new: m.Union_, flow: Flow, place: Place) -> None:
        # A trailing `json` (any value no earlier alternative decodes: docs/language.md,
        # "Unions") added widens what is read, as a value added to an open set does: no
        # reader breaks, but peers reading an output may now get any value; removed, it
        # refuses what callers may send.
        added = _catch_all(self.new, new) and not _catch_all(self.old, old)
        removed = _catch_all(self.old, old) and not _catch_all(self.new, new)
        if added and len(new.alternatives) == len(old.alternatives) + 1:
            if flow & Flow.OUTPUT:
                self.report(
                    rules.CLOSED_SET_EXTENDED,
                    f"{place}: a last `json` alternative was added, which peers reading it "
                    "may get any value through",
                    new.alternatives[-1].span,
                )
            new = m.Union_(new.alternatives[:-1], new.span)
        elif removed and len(old.alternatives) == len(new.alternatives) + 1:
            if flow & Flow.INPUT:
                self.report(
                    rules.DECODING_MADE_STRICTER,
                    f"{place}: its last `json` alternative was removed: values no other "
                    "alternative decodes, which it accepted before, are now refused",
                    old.alternatives[-1].span,
                    "old",
                )
            old = m.Union_(old.alternatives[:-1], old.span)
        if len(old.alternatives) != len(new.alternatives):
            self.report(
                rules.TYPE_CHANGED,
                f"{place}: the union changed from {len(old.alternatives)} "
                f"to {len(new.alternatives)} alternatives",
                new.span,
            )
            return
        for index, (before, after) in enumerate(
            zip(old.alternatives, new.alternatives, strict=False)
        ):
            self.types(before, after, flow, place.inside(f"<#{index + 1}>"))

    def type_changed(self, old: m.Type, new: m.Type, span: Span, place: Place) -> None:
        self.report(
            rules.TYPE_CHANGED,
            f"{place} changed type from `{describe(old)}` to `{describe(new)}`",
            span,
        )

    def record(self, old: m.Record, new: m.Record, flow: Flow, place: Place) -> None:
        # An open record reads every JSON object a closed one reads, to the same declared
        # fields: opening one breaks no peer. Closing one drops the members it kept, which
        # peers that send them expect back (docs/breaking.md, B0107).
        if old.open and not new.open and flow & Flow.INPUT:
            self.report(
                rules.RECORD_CLOSED,
                f"{place} is no longer an open record: members it does not declare, which "
                "it kept and sent back, are now dropped",
                new.span,
            )
        new_fields = {item.name: item for item in new.fields}
        old_fields = {item.name: item for item in old.fields}
        for item in old.fields:
            if item.name not in new_fields:
                self.report(
                    rules.FIELD_REMOVED,
                    f"field `{item.name}` was removed from {place}",
                    item.span,
                    "old",
                )
        for item in new.fields:
            before = old_fields.get(item.name)
            after_type, after_optional = queries.optional_inner(item.type, self.new.typedefs)
            after_optional = after_optional or item.default is not None
            if before is None:
                if flow & Flow.INPUT and not after_optional:
                    self.report(
                        rules.REQUIRED_FIELD_ADDED,
                        f"required field `{item.name}` was added to {place}, which callers send",
                        item.span,
                    )
                continue
            before_type, before_is_optional = queries.optional_inner(before.type, self.old.typedefs)
            before_optional = before_is_optional or before.default is not None
            field_place = place.field(item.name)
            if before_optional and not after_optional and flow & Flow.INPUT:
                self.report(
                    rules.OPTIONAL_MADE_REQUIRED,
                    f"field `{item.name}` of {place} changed from `{_field_text(before)}` "
                    f"to `{_field_text(item)}`: callers may leave it out",
                    item.span,
                )
            _, after_is_optional = queries.optional_inner(item.type, self.new.typedefs)
            if after_is_optional and not before_is_optional and flow & Flow.OUTPUT:
                self.report(
                    rules.TYPE_CHANGED,
                    f"field `{item.name}` of {place} changed from `{_field_text(before)}` "
                    f"to `{_field_text(item)}`: peers reading it expect a value",
                    item.span,
                )
            lost = [
                written
                for attribute, written in _MODIFIERS
                if getattr(before, attribute) is not None and getattr(item, attribute) is None
            ]
            if lost:
                self.report(
                    rules.DECODING_MADE_STRICTER,
                    f"field `{item.name}` of {place} is no longer {' / '.join(lost)}: "
                    "values it accepted before are now refused",
                    item.span,
                )
            self.types(before_type, after_type, flow, field_place)

    def enum(self, old: m.Enum, new: m.Enum, flow: Flow, place: Place) -> None:
        values = {item.value for item in new.values}
        for item in old.values:
            if item.value not in values:
                self.report(
                    rules.ENUM_VALUE_REMOVED,
                    f'enum value "{item.value}" was removed from {place}',
                    item.span,
                    "old",
                )
        self.openness("enum", old.open, new.open, flow, place, new.span)
        if not old.open and flow & Flow.OUTPUT:
            known = {item.value for item in old.values}
            for item in new.values:
                if item.value not in known:
                    self.report(
                        rules.CLOSED_SET_EXTENDED,
                        f'enum value "{item.value}" was added to {place}, a closed enum peers read',
                        item.span,
                    )

    def variant(self, old: m.Variant, new: m.Variant, flow: Flow, place: Place) -> None:
        if old.tag_field != new.tag_field:
            self.report(
                rules.TYPE_CHANGED,
                f'{place}: the variant\'s tag field changed from "{old.tag_field}" '
                f'to "{new.tag_field}"',
                new.span,
            )
            return
        self.openness("variant", old.open, new.open, flow, place, new.span)
        self.unknown_case(old, new, flow, place)
        # Shared fields sit in every case's object: compared as a record's fields are.
        self.record(
            old.shared or m.Record((), old.span), new.shared or m.Record((), new.span), flow, place
        )
        new_cases = {case.tag: case for case in new.cases}
        old_cases = {case.tag: case for case in old.cases}
        for case in old.cases:
            if case.tag not in new_cases:
                self.report(
                    rules.CASE_REMOVED,
                    f"variant case {_case_text(case)} was removed from {place}",
                    case.span,
                    "old",
                )
        for case in new.cases:
            before = old_cases.get(case.tag)
            if before is None:
                if not old.open and flow & Flow.OUTPUT:
                    self.report(
                        rules.CLOSED_SET_EXTENDED,
                        f"variant case {_case_text(case)} was added to {place}, "
                        "a closed variant peers read",
                        case.span,
                    )
                continue
            label = "<default>" if case.tag is None else f'<"{case.tag}">'
            self.types(before.type, case.type, flow, place.inside(label))

    def unknown_case(self, old: m.Variant, new: m.Variant, flow: Flow, place: Place) -> None:
        """`unknown: T;` (docs/language.md, "Variants"): what an unknown tag's object must
        also be. Adding it refuses objects it accepted; removing it lets through objects
        without T's fields, which peers reading them may need."""
        if old.unknown is not None and new.unknown is not None:
            self.types(old.unknown.type, new.unknown.type, flow, place.inside("<unknown>"))
        elif new.unknown is not None and flow & Flow.INPUT:
            self.report(
                rules.TYPE_CHANGED,
                f"{place}: an unknown tag's object must now also be "
                f"`{describe(new.unknown.type)}`: callers may send objects it refuses",
                new.unknown.span,
            )
        elif old.unknown is not None and new.unknown is None and flow & Flow.OUTPUT:
            self.report(
                rules.TYPE_CHANGED,
                f"{place}: an unknown tag's object need no longer be "
                f"`{describe(old.unknown.type)}`: peers reading it may need its fields",
                new.span,
            )

    def openness(
        self, what: str, old: bool, new: bool, flow: Flow, place: Place, span: Span
    ) -> None:
        if old and not new and flow & Flow.INPUT:
            self.report(
                rules.TYPE_CHANGED,
                f"{place} became a closed {what}: callers may send values it no longer accepts",
                span,
            )
        elif new and not old and flow & Flow.OUTPUT:
            self.report(
                rules.TYPE_CHANGED,
                f"{place} became an open {what}: peers reading it reject values not listed",
                span,
            )


#: The field modifiers that make decoding accept more (docs/language.md, "Forward-compatible
#: fields"): model attribute, and the modifier as written.
_MODIFIERS = (
    ("lenient", "`lenient`"),
    ("skip_invalid", "`skip-invalid`"),
    ("null_default", "`null-default`"),
)


def _catch_all(model: m.Model, union: m.Union_) -> bool:
    """Whether the last alternative of `union` is `json`, through typedef names."""
    if len(union.alternatives) < 2:
        return False
    last, _ = _unalias(model, union.alternatives[-1])
    return isinstance(last, m.Primitive) and last.kind is m.PrimitiveKind.JSON


def _field_text(item: m.Field) -> str:
    default = f" = {item.default.raw}" if item.default is not None else ""
    return f"{item.name}: {describe(item.type)}{default}"


def _case_text(case: m.Case) -> str:
    return "`default`" if case.tag is None else f'"{case.tag}"'
