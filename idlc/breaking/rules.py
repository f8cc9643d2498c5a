"""The registry of `idlc breaking` rules: a stable id, a short name, one line of explanation.

Like the diagnostic codes, a rule id never changes meaning once released. Every change the
comparison reports names one of the constants below; `idlc breaking --list-rules` prints
the registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from idlc.source import Span


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    name: str
    explanation: str

    def __str__(self) -> str:
        return self.id


Side = Literal["new", "old"]


@dataclass(frozen=True, slots=True)
class Change:
    """One incompatible change: the rule it breaks, said where."""

    rule: Rule
    message: str
    #: Where it is: on the new side where the thing still exists, on the old side for removals.
    span: Span | None
    side: Side


REGISTRY: dict[str, Rule] = {}


def _rule(id: str, name: str, explanation: str) -> Rule:
    assert id not in REGISTRY, id
    assert all(rule.name != name for rule in REGISTRY.values()), name
    rule = Rule(id, name, explanation)
    REGISTRY[id] = rule
    return rule


# -- removals (B00xx) ---------------------------------------------------------------------
INTERFACE_REMOVED = _rule(
    "B0001",
    "interface-removed",
    "callers of a removed interface get `method not found` for every member",
)
MEMBER_REMOVED = _rule(
    "B0002",
    "member-removed",
    "callers of a removed member get `method not found`",
)
FIELD_REMOVED = _rule(
    "B0003",
    "field-removed",
    "a peer built against the old definition still sends or expects the removed field",
)
ENUM_VALUE_REMOVED = _rule(
    "B0004",
    "enum-value-removed",
    "a peer built against the old definition may still send the removed value",
)
CASE_REMOVED = _rule(
    "B0005",
    "case-removed",
    "a peer built against the old definition may still send the removed variant case",
)

# -- types (B01xx) ------------------------------------------------------------------------
TYPE_CHANGED = _rule(
    "B0101",
    "type-changed",
    "the JSON of the old type does not decode as the new one (or the other way round)",
)
OPTIONAL_MADE_REQUIRED = _rule(
    "B0102",
    "optional-made-required",
    "callers built against the old definition may leave out a value that is now required",
)
REQUIRED_FIELD_ADDED = _rule(
    "B0103",
    "required-field-added",
    "callers built against the old definition do not send the new required input field",
)
MEMBER_KIND_CHANGED = _rule(
    "B0104",
    "member-kind-changed",
    "a value, relation or operation became another kind of member: its call changes shape",
)
CLOSED_SET_EXTENDED = _rule(
    "B0105",
    "closed-set-extended",
    "a closed enum or variant that peers read gained a value, or a union they read a last "
    "`json` alternative: old peers reject it",
)
DECODING_MADE_STRICTER = _rule(
    "B0106",
    "decoding-made-stricter",
    "a field lost `lenient`, `skip-invalid` or `null-default`, or a union callers send its "
    "last `json` alternative: values it accepted are refused",
)
RECORD_CLOSED = _rule(
    "B0107",
    "record-closed",
    "an `open record` became closed: members it kept and sent back are now dropped",
)

# -- ids (B02xx) --------------------------------------------------------------------------
ATOM_ID_CHANGED = _rule(
    "B0201",
    "atom-id-changed",
    "references to the atom carry its id: old and new peers no longer agree on what they name",
)
INTERFACE_ID_CHANGED = _rule(
    "B0202",
    "interface-id-changed",
    "peers identify the interface by its id: the old id no longer names it",
)
MEMBER_ID_CHANGED = _rule(
    "B0203",
    "member-id-changed",
    "peers identify the member by its id: the old id no longer names it",
)
BINDING_ID_CHANGED = _rule(
    "B0204",
    "binding-id-changed",
    "the binding id is the JSON-RPC method name: callers of the old name get `method not found`",
)

# -- relations and bindings (B03xx) -------------------------------------------------------
CARDINALITY_CHANGED = _rule(
    "B0301",
    "cardinality-changed",
    "a relation's cardinality decides the shape of its result (one, maybe one, or a set)",
)
TARGET_CHANGED = _rule(
    "B0302",
    "target-changed",
    "a relation now leads to another atom or interface than callers expect",
)
EXECUTION_CHANGED = _rule(
    "B0303",
    "execution-changed",
    "callers and interceptors rely on a member running as a snapshot or as a transaction",
)
NOTIFY_CALL_CHANGED = _rule(
    "B0304",
    "notify-call-changed",
    "a notification gets no response and a call waits for one: old callers hang or lose it",
)
