"""Compare two resolved models and list the wire-incompatible changes, per interface.

Types compare by structure: a typedef is looked through, so renaming one (or inlining it)
while keeping its shape is no change, and neither is anything only the layout of the text
changes. A change inside a typedef is reported for every interface that reaches it, once
per interface, at the place in the typedef.

Direction matters where it decides compatibility: a type reached from an operation input is
written by callers built against the old definition, a type reached from a value or an
operation output is read by them. So a new required field, or an optional value made
required, breaks inputs only; a value made optional, or a closed enum that gains a value,
breaks outputs only; an integer type may widen in inputs and narrow in outputs. Removals are
reported wherever they happen.

Interfaces, members, fields, enum values and variant cases are matched by name; an
interface or member not found by name is matched by its id (a rename that keeps the id is
not a wire change).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, TypeVar

from idlc.breaking import rules
from idlc.breaking.rules import Rule
from idlc.semantics import model as m
from idlc.semantics import queries
from idlc.semantics.queries import describe
from idlc.source import Span

__all__ = ["Change", "Comparison", "InterfaceReport", "compare"]

Side = Literal["new", "old"]
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Change:
    rule: Rule
    message: str
    #: Where it is: on the new side where the thing still exists, on the old side for removals.
    span: Span | None
    side: Side


@dataclass(frozen=True, slots=True)
class InterfaceReport:
    """The incompatible changes of one interface (named as in the new model, if it is there)."""

    name: str
    old_revision: str
    new_revision: str | None  # None: the interface was removed
    changes: tuple[Change, ...]

    @property
    def revision_changed(self) -> bool:
        return self.new_revision is not None and self.new_revision != self.old_revision

    @property
    def failing(self) -> bool:
        """Changed incompatibly while the revision stayed the same (or the interface is gone)."""
        return bool(self.changes) and not self.revision_changed


@dataclass(frozen=True, slots=True)
class Comparison:
    interfaces: tuple[InterfaceReport, ...]

    @property
    def changes(self) -> int:
        return sum(len(report.changes) for report in self.interfaces)

    @property
    def failing(self) -> bool:
        return any(report.failing for report in self.interfaces)


def compare(old: m.Model, new: m.Model) -> Comparison:
    """Every interface of `old` that changed incompatibly in `new` (added ones are fine)."""
    reports: list[InterfaceReport] = []
    for old_interface, new_interface in _match(
        old.interfaces.values(), new.interfaces.values(), lambda i: i.name, lambda i: i.id
    ):
        if new_interface is None:
            removed = Change(
                rules.INTERFACE_REMOVED,
                f"interface `{old_interface.name}` was removed",
                old_interface.span,
                "old",
            )
            reports.append(
                InterfaceReport(old_interface.name, old_interface.revision, None, (removed,))
            )
            continue
        comparer = _InterfaceComparer(old, new, old_interface, new_interface)
        changes = comparer.run()
        if changes:
            reports.append(
                InterfaceReport(
                    new_interface.name, old_interface.revision, new_interface.revision, changes
                )
            )
    return Comparison(tuple(reports))


def _match(
    old: Iterable[_T], new: Iterable[_T], name: Callable[[_T], str], key: Callable[[_T], str]
) -> list[tuple[_T, _T | None]]:
    """Old items with their new counterparts: by name, else by id (`key`) among the new items
    whose name is not an old one (so a rename that keeps the id is matched)."""
    old_items = list(old)
    new_items = list(new)
    old_names = {name(item) for item in old_items}
    by_name = {name(item): item for item in new_items}
    renamed = {key(item): item for item in new_items if name(item) not in old_names}
    pairs: list[tuple[_T, _T | None]] = []
    for item in old_items:
        counterpart = by_name.get(name(item))
        if counterpart is None:
            counterpart = renamed.pop(key(item), None)
        pairs.append((item, counterpart))
    return pairs


class _Flow(enum.Flag):
    """Who writes a value of a type: callers (INPUT), the implementation (OUTPUT), or both."""

    INPUT = enum.auto()
    OUTPUT = enum.auto()


_NONE = _Flow(0)


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a type stands, for messages: a root (`the input of `admit``, a typedef) and a
    path of fields, list items, map values and variant cases inside it."""

    root: str
    path: tuple[str, ...] = ()

    def field(self, name: str) -> _Place:
        return _Place(self.root, (*self.path, f".{name}" if self.path else name))

    def inside(self, suffix: str) -> _Place:
        return _Place(self.root, (*self.path, suffix))

    def __str__(self) -> str:
        if not self.path:
            return self.root
        return f"`{''.join(self.path)}` in {self.root}"


def _typedef_flows(model: m.Model, interface: m.Interface) -> dict[str, _Flow]:
    """For each typedef the interface reaches, whether inputs, outputs or both reach it."""
    flows: dict[str, _Flow] = {}

    def visit(type_: m.Type, flow: _Flow) -> None:
        stack = [type_]
        while stack:
            current = stack.pop()
            if isinstance(current, m.TypeRef):
                before = flows.get(current.name, _NONE)
                if flow & ~before:
                    flows[current.name] = before | flow
                    stack.append(model.typedefs[current.name].type)
            else:
                stack.extend(queries.children(current))

    for member in interface.members:
        if isinstance(member, m.Value):
            visit(member.type, _Flow.OUTPUT)
        elif isinstance(member, m.Operation):
            visit(member.input, _Flow.INPUT)
            visit(member.output, _Flow.OUTPUT)
    return flows


def _unalias(model: m.Model, type_: m.Type) -> tuple[m.Type, str | None]:
    """The type a chain of typedef names stands for, and the last typedef of the chain."""
    resolved, name = queries.typedef_chain(type_, model.typedefs)
    return (type_ if resolved is None else resolved), name


def _kind(item: object) -> type:
    return type(item)


class _InterfaceComparer:
    def __init__(
        self, old: m.Model, new: m.Model, old_interface: m.Interface, new_interface: m.Interface
    ) -> None:
        self.old = old
        self.new = new
        self.old_interface = old_interface
        self.new_interface = new_interface
        self.old_flows = _typedef_flows(old, old_interface)
        self.new_flows = _typedef_flows(new, new_interface)
        self.changes: list[Change] = []
        self.typedef_pairs: set[tuple[str, str]] = set()
        self.atoms_reported: set[str] = set()

    def report(self, rule: Rule, message: str, span: Span | None, side: Side = "new") -> None:
        change = Change(rule, message, span, side)
        if change not in self.changes:
            self.changes.append(change)

    def run(self) -> tuple[Change, ...]:
        old, new = self.old_interface, self.new_interface
        if old.id != new.id:
            self.report(
                rules.INTERFACE_ID_CHANGED,
                f'interface `{new.name}` changed id from "{old.id}" to "{new.id}"',
                new.span,
            )
        for old_member, new_member in _match(
            old.members, new.members, lambda item: item.name, lambda item: item.id
        ):
            if new_member is None:
                self.report(
                    rules.MEMBER_REMOVED,
                    f"{_member_kind(old_member)} `{old_member.name}` was removed",
                    old_member.span,
                    "old",
                )
            else:
                self.member(old_member, new_member)
        return tuple(self.changes)

    # -- members --------------------------------------------------------------------------

    def member(self, old: m.Member, new: m.Member) -> None:
        name = new.name
        if old.id != new.id:
            self.report(
                rules.MEMBER_ID_CHANGED,
                f'member `{name}` changed id from "{old.id}" to "{new.id}"',
                new.span,
            )
        self.binding(name, old.binding, new.binding)
        if _kind(old) is not _kind(new):
            self.report(
                rules.MEMBER_KIND_CHANGED,
                f"member `{name}` changed from {_member_kind(old)} to {_member_kind(new)}",
                new.span,
            )
            return
        if isinstance(old, m.Value) and isinstance(new, m.Value):
            self.types(old.type, new.type, _Flow.OUTPUT, _Place(f"the value `{name}`"))
        elif isinstance(old, m.Relation) and isinstance(new, m.Relation):
            self.relation(old, new)
        elif isinstance(old, m.Operation) and isinstance(new, m.Operation):
            self.types(old.input, new.input, _Flow.INPUT, _Place(f"the input of `{name}`"))
            self.types(old.output, new.output, _Flow.OUTPUT, _Place(f"the output of `{name}`"))

    def binding(self, member: str, old: m.Binding, new: m.Binding) -> None:
        if old.id != new.id:
            self.report(
                rules.BINDING_ID_CHANGED,
                f'the binding of `{member}` changed id (JSON-RPC method) from "{old.id}" to "{new.id}"',
                new.span,
            )
        if old.notify != new.notify:
            before, after = ("a notification", "a call") if old.notify else ("a call", "a notification")
            self.report(
                rules.NOTIFY_CALL_CHANGED,
                f"`{member}` changed from {before} to {after}",
                new.span,
            )
        elif old.execution != new.execution and old.execution and new.execution:
            self.report(
                rules.EXECUTION_CHANGED,
                f"`{member}` changed execution from `{old.execution.value}` to `{new.execution.value}`",
                new.span,
            )

    def relation(self, old: m.Relation, new: m.Relation) -> None:
        name = new.name
        if old.cardinality is not new.cardinality:
            self.report(
                rules.CARDINALITY_CHANGED,
                f"relation `{name}` changed cardinality from `{old.cardinality.value}` "
                f"to `{new.cardinality.value}`",
                new.span,
            )
        before, after = old.target, new.target
        if isinstance(before, m.AtomTarget) and isinstance(after, m.AtomTarget):
            self.atoms(before.atom, after.atom, f"relation `{name}`", after.span, target=True)
            return
        if isinstance(before, m.InterfaceTarget) and isinstance(after, m.InterfaceTarget):
            if self.same_interface(before.interface, after.interface):
                return
        self.report(
            rules.TARGET_CHANGED,
            f"relation `{name}` changed target from {_target(before)} to {_target(after)}",
            after.span,
        )

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

    def types(self, old: m.Type, new: m.Type, flow: _Flow, place: _Place) -> None:
        old_type, old_name = _unalias(self.old, old)
        new_type, new_name = _unalias(self.new, new)
        if old_name is not None:
            flow |= self.old_flows.get(old_name, _NONE)
        if new_name is not None:
            flow |= self.new_flows.get(new_name, _NONE)
            place = _Place(f"`{new_name}`")
        if old_name is not None and new_name is not None:
            pair = (old_name, new_name)
            if pair in self.typedef_pairs:
                return
            self.typedef_pairs.add(pair)

        if isinstance(old_type, m.Optional) != isinstance(new_type, m.Optional):
            if isinstance(old_type, m.Optional):
                if flow & _Flow.INPUT:
                    self.report(
                        rules.OPTIONAL_MADE_REQUIRED,
                        f"{place} changed from `{describe(old)}` to `{describe(new)}`: "
                        "it is no longer optional",
                        new_type.span,
                    )
                self.types(old_type.inner, new_type, flow, place)
            else:
                assert isinstance(new_type, m.Optional)
                if flow & _Flow.OUTPUT:
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
        if isinstance(old_type, m.Primitive) and isinstance(new_type, m.Primitive):
            if not _primitive_compatible(old_type.kind, new_type.kind, flow):
                self.type_changed(old, new, new_type.span, place)
        elif isinstance(old_type, (m.Optional, m.List)) and isinstance(new_type, (m.Optional, m.List)):
            suffix = "" if isinstance(old_type, m.Optional) else "[]"
            inner = place.inside(suffix) if suffix else place
            self.types(old_type.inner, new_type.inner, flow, inner)
        elif isinstance(old_type, m.Map) and isinstance(new_type, m.Map):
            self.types(old_type.value, new_type.value, flow, place.inside("{}"))
        elif isinstance(old_type, m.AtomRef) and isinstance(new_type, m.AtomRef):
            self.atoms(old_type.atom, new_type.atom, str(place), new_type.span, target=False)
        elif isinstance(old_type, m.InterfaceRef) and isinstance(new_type, m.InterfaceRef):
            if not self.same_interface(old_type.interface, new_type.interface):
                self.type_changed(old, new, new_type.span, place)
        elif isinstance(old_type, m.Record) and isinstance(new_type, m.Record):
            self.record(old_type, new_type, flow, place)
        elif isinstance(old_type, m.Enum) and isinstance(new_type, m.Enum):
            self.enum(old_type, new_type, flow, place)
        elif isinstance(old_type, m.Variant) and isinstance(new_type, m.Variant):
            self.variant(old_type, new_type, flow, place)
        elif isinstance(old_type, m.Union_) and isinstance(new_type, m.Union_):
            if len(old_type.alternatives) != len(new_type.alternatives):
                self.report(
                    rules.TYPE_CHANGED,
                    f"{place}: the union changed from {len(old_type.alternatives)} "
                    f"to {len(new_type.alternatives)} alternatives",
                    new_type.span,
                )
                return
            for index, (before, after) in enumerate(
                zip(old_type.alternatives, new_type.alternatives)
            ):
                self.types(before, after, flow, place.inside(f"<#{index + 1}>"))

    def type_changed(self, old: m.Type, new: m.Type, span: Span, place: _Place) -> None:
        self.report(
            rules.TYPE_CHANGED,
            f"{place} changed type from `{describe(old)}` to `{describe(new)}`",
            span,
        )

    def record(self, old: m.Record, new: m.Record, flow: _Flow, place: _Place) -> None:
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
                if flow & _Flow.INPUT and not after_optional:
                    self.report(
                        rules.REQUIRED_FIELD_ADDED,
                        f"required field `{item.name}` was added to {place}, which callers send",
                        item.span,
                    )
                continue
            before_type, before_is_optional = queries.optional_inner(before.type, self.old.typedefs)
            before_optional = before_is_optional or before.default is not None
            field_place = place.field(item.name)
            if before_optional and not after_optional and flow & _Flow.INPUT:
                self.report(
                    rules.OPTIONAL_MADE_REQUIRED,
                    f"field `{item.name}` of {place} changed from `{_field_text(before)}` "
                    f"to `{_field_text(item)}`: callers may leave it out",
                    item.span,
                )
            _, after_is_optional = queries.optional_inner(item.type, self.new.typedefs)
            if after_is_optional and not before_is_optional and flow & _Flow.OUTPUT:
                self.report(
                    rules.TYPE_CHANGED,
                    f"field `{item.name}` of {place} changed from `{_field_text(before)}` "
                    f"to `{_field_text(item)}`: peers reading it expect a value",
                    item.span,
                )
            self.types(before_type, after_type, flow, field_place)

    def enum(self, old: m.Enum, new: m.Enum, flow: _Flow, place: _Place) -> None:
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
        if not old.open and flow & _Flow.OUTPUT:
            known = {item.value for item in old.values}
            for item in new.values:
                if item.value not in known:
                    self.report(
                        rules.CLOSED_SET_EXTENDED,
                        f'enum value "{item.value}" was added to {place}, a closed enum peers read',
                        item.span,
                    )

    def variant(self, old: m.Variant, new: m.Variant, flow: _Flow, place: _Place) -> None:
        if old.tag_field != new.tag_field:
            self.report(
                rules.TYPE_CHANGED,
                f'{place}: the variant\'s tag field changed from "{old.tag_field}" '
                f'to "{new.tag_field}"',
                new.span,
            )
            return
        self.openness("variant", old.open, new.open, flow, place, new.span)
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
                if not old.open and flow & _Flow.OUTPUT:
                    self.report(
                        rules.CLOSED_SET_EXTENDED,
                        f"variant case {_case_text(case)} was added to {place}, "
                        "a closed variant peers read",
                        case.span,
                    )
                continue
            label = "<default>" if case.tag is None else f'<"{case.tag}">'
            self.types(before.type, case.type, flow, place.inside(label))

    def openness(
        self, what: str, old: bool, new: bool, flow: _Flow, place: _Place, span: Span
    ) -> None:
        if old and not new and flow & _Flow.INPUT:
            self.report(
                rules.TYPE_CHANGED,
                f"{place} became a closed {what}: callers may send values it no longer accepts",
                span,
            )
        elif new and not old and flow & _Flow.OUTPUT:
            self.report(
                rules.TYPE_CHANGED,
                f"{place} became an open {what}: peers reading it reject values not listed",
                span,
            )


def _primitive_compatible(old: m.PrimitiveKind, new: m.PrimitiveKind, flow: _Flow) -> bool:
    """Same kind; or integers whose ranges fit the direction (wider input, narrower output)."""
    if old is new:
        return True
    old_range, new_range = old.integer_range, new.integer_range
    if old_range is None or new_range is None:
        return False
    widens = new_range[0] <= old_range[0] and old_range[1] <= new_range[1]
    narrows = old_range[0] <= new_range[0] and new_range[1] <= old_range[1]
    if flow & _Flow.INPUT and not widens:
        return False
    if flow & _Flow.OUTPUT and not narrows:
        return False
    return True


def _member_kind(member: m.Member) -> str:
    if isinstance(member, m.Value):
        return "value"
    if isinstance(member, m.Relation):
        return "relation"
    return "operation"


def _target(target: m.AtomTarget | m.InterfaceTarget) -> str:
    if isinstance(target, m.AtomTarget):
        return f"atom `{target.atom}`"
    return f"interface `{target.interface}`"


def _field_text(item: m.Field) -> str:
    default = f" = {item.default.raw}" if item.default is not None else ""
    return f"{item.name}: {describe(item.type)}{default}"


def _case_text(case: m.Case) -> str:
    return "`default`" if case.tag is None else f'"{case.tag}"'
