"""Comparing the members of one interface in two models (`idlc breaking`).

Members are matched by name; a member not found by name is matched by its id (a rename that
keeps the id is not a wire change). Their types are compared by `types.TypeComparer`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from idlc.breaking import rules
from idlc.breaking.flows import Flow, Place, typedef_flows
from idlc.breaking.rules import Change
from idlc.breaking.types import TypeComparer
from idlc.semantics import model as m

_T = TypeVar("_T")


def match(
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


class InterfaceComparer(TypeComparer):
    """The incompatible changes between two versions of one interface."""

    def __init__(
        self, old: m.Model, new: m.Model, old_interface: m.Interface, new_interface: m.Interface
    ) -> None:
        super().__init__(
            old, new, typedef_flows(old, old_interface), typedef_flows(new, new_interface)
        )
        self.old_interface = old_interface
        self.new_interface = new_interface

    def run(self) -> tuple[Change, ...]:
        old, new = self.old_interface, self.new_interface
        if old.id != new.id:
            self.report(
                rules.INTERFACE_ID_CHANGED,
                f'interface `{new.name}` changed id from "{old.id}" to "{new.id}"',
                new.span,
            )
        for old_member, new_member in match(
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
        if type(old) is not type(new):
            self.report(
                rules.MEMBER_KIND_CHANGED,
                f"member `{name}` changed from {_member_kind(old)} to {_member_kind(new)}",
                new.span,
            )
            return
        if isinstance(old, m.Value) and isinstance(new, m.Value):
            self.types(old.type, new.type, Flow.OUTPUT, Place(f"the value `{name}`"))
        elif isinstance(old, m.Relation) and isinstance(new, m.Relation):
            self.relation(old, new)
        elif isinstance(old, m.Operation) and isinstance(new, m.Operation):
            self.types(old.input, new.input, Flow.INPUT, Place(f"the input of `{name}`"))
            self.types(old.output, new.output, Flow.OUTPUT, Place(f"the output of `{name}`"))

    def binding(self, member: str, old: m.Binding, new: m.Binding) -> None:
        if old.id != new.id:
            self.report(
                rules.BINDING_ID_CHANGED,
                f'the binding of `{member}` changed id (JSON-RPC method) from "{old.id}" to "{new.id}"',
                new.span,
            )
        if old.notify != new.notify:
            before, after = (
                ("a notification", "a call") if old.notify else ("a call", "a notification")
            )
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
