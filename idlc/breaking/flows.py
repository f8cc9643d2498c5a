"""Which way values of a type travel, and where a type stands (for `idlc breaking`).

Direction matters where it decides compatibility: a type reached from an operation input is
written by callers built against the old definition, a type reached from a value or an
operation output is read by them. So a new required field, or an optional value made
required, breaks inputs only; a value made optional, or a closed enum that gains a value,
breaks outputs only; an integer type may widen in inputs and narrow in outputs.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from idlc.semantics import model as m
from idlc.semantics import queries


class Flow(enum.Flag):
    """Who writes a value of a type: callers (INPUT), the implementation (OUTPUT), or both."""

    INPUT = enum.auto()
    OUTPUT = enum.auto()


NONE = Flow(0)


@dataclass(frozen=True, slots=True)
class Place:
    """Where a type stands, for messages: a root (`the input of `admit``, a typedef) and a
    path of fields, list items, map values and variant cases inside it."""

    root: str
    path: tuple[str, ...] = ()

    def field(self, name: str) -> Place:
        return Place(self.root, (*self.path, f".{name}" if self.path else name))

    def inside(self, suffix: str) -> Place:
        return Place(self.root, (*self.path, suffix))

    def __str__(self) -> str:
        if not self.path:
            return self.root
        return f"`{''.join(self.path)}` in {self.root}"


def typedef_flows(model: m.Model, interface: m.Interface) -> dict[str, Flow]:
    """For each typedef the interface reaches, whether inputs, outputs or both reach it."""
    flows: dict[str, Flow] = {}

    def visit(type_: m.Type, flow: Flow) -> None:
        stack = [type_]
        while stack:
            current = stack.pop()
            if isinstance(current, m.TypeRef):
                before = flows.get(current.name, NONE)
                if flow & ~before:
                    flows[current.name] = before | flow
                    stack.append(model.typedefs[current.name].type)
            else:
                stack.extend(queries.children(current))

    for member in interface.members:
        if isinstance(member, m.Value):
            visit(member.type, Flow.OUTPUT)
        elif isinstance(member, m.Operation):
            visit(member.input, Flow.INPUT)
            visit(member.output, Flow.OUTPUT)
    return flows


def primitive_compatible(old: m.PrimitiveKind, new: m.PrimitiveKind, flow: Flow) -> bool:
    """Same kind; or integers whose ranges fit the direction (wider input, narrower output)."""
    if old is new:
        return True
    old_range, new_range = old.integer_range, new.integer_range
    if old_range is None or new_range is None:
        return False
    widens = new_range[0] <= old_range[0] and old_range[1] <= new_range[1]
    narrows = old_range[0] <= new_range[0] and new_range[1] <= old_range[1]
    if flow & Flow.INPUT and not widens:
        return False
    if flow & Flow.OUTPUT and not narrows:
        return False
    return True
