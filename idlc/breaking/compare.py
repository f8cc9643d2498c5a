"""Compare two resolved models and list the wire-incompatible changes, per interface.

Types compare by structure: a typedef is looked through, so renaming one (or inlining it)
while keeping its shape is no change, and neither is anything only the layout of the text
changes. A change inside a typedef is reported for every interface that reaches it, once
per interface, at the place in the typedef.

Direction matters where it decides compatibility (`flows.py` says how); removals are
reported wherever they happen.

Interfaces, members, fields, enum values and variant cases are matched by name; an
interface or member not found by name is matched by its id (a rename that keeps the id is
not a wire change).

This module matches interfaces and gathers the reports; `members.py` compares the members
of one interface, `types.py` their types, `flows.py` holds the direction and the place of a
type; `rules.py` the rules and the `Change` that names one.
"""

from __future__ import annotations

from dataclasses import dataclass

from idlc.breaking import rules
from idlc.breaking.members import InterfaceComparer, match
from idlc.breaking.rules import Change
from idlc.semantics import model as m

__all__ = ["Change", "Comparison", "InterfaceReport", "compare"]


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
    for old_interface, new_interface in match(
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
        comparer = InterfaceComparer(old, new, old_interface, new_interface)
        changes = comparer.run()
        if changes:
            reports.append(
                InterfaceReport(
                    new_interface.name, old_interface.revision, new_interface.revision, changes
                )
            )
    return Comparison(tuple(reports))
