"""The typedefs of a model as an arena, with what each name stands for worked out once.

A `TypeRef` names an entry of this arena. Checks, `idlc breaking` and the Python target all
ask the same of a name — what type it stands for once aliases are followed, which JSON
kinds its values take, what a value of it may be looked through names, `optional<…>` and
unions — and each asked by walking the chain again with a `seen` set of its own (five such
walkers had grown). Here the `Facts` of every typedef that is looked into (an alias, an
optional, a union) are worked out when the arena is made, in one walk over those
typedefs' strongly connected components (a component after those it reaches); every other
typedef (a record, an enum, a list …: most) stands for its own type. So asking later is a
lookup. `idlc.semantics.queries` is the one module that reads them.

Once those are known, the arena also works out the facts every stage asks of particular
nodes, from them: each variant case's records (`idlc.semantics.cases`) and what each field
default stands for (`idlc.semantics.defaults`), stored by node (`Typedefs`).

A model with errors has an arena too (`check` and the language server walk it): a name in a
cycle of aliases, or a name no typedef has, is followed to None; nothing here raises.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, assert_never

from idlc.nodes import ByNode, node
from idlc.semantics import model as m
from idlc.semantics.cycles import strongly_connected

if TYPE_CHECKING:
    from idlc.semantics.cases import UnknownCase
    from idlc.semantics.defaults import DefaultFacts

__all__ = ["Facts", "Typedefs", "JSON_ANY", "shallow_kinds"]

#: The JSON kind of `json`, and of a name whose values cannot be told apart by kind: one in
#: a cycle through `optional<…>` or unions, or one that names no typedef.
JSON_ANY = "any"


@node
class Facts:
    """What one typedef name stands for."""

    #: The type the name stands for, typedef names followed until one that is not a name;
    #: None for a cycle of aliases or a name no typedef has (both reported by the checks).
    target: m.Type | None
    #: The last typedef name followed: the name of `target`'s typedef; for a cycle the name
    #: met again, for a dangling name that name.
    last: str
    #: What a present value of the name is: `target` through `optional<…>` and
    #: `nullable<…>` layers too (names followed under them), and the last name followed;
    #: None as for `target`, and for a name that is only optional layers of itself
    #: (`type A = optional<A>`, reported).
    present: m.Type | None
    present_last: str
    #: The JSON kinds a value of the name may take (`JSON_ANY` for `json`, and for a name
    #: that looking through meets again or cannot find).
    kinds: frozenset[str]
    #: Every type a value of the name may be looked through names (followed), `optional<…>`
    #: (the optional and its inner type) and unions (the union and its alternatives): no
    #: `TypeRef`, each node once. How a target decodes a name is a question about these
    #: (`idlc.targets.python.decoding.hooked`).
    looked_through: tuple[m.Type, ...]


class Typedefs(dict[str, m.Typedef]):
    """The model's typedefs by name, in declaration order, their `Facts`, and the facts
    worked out from those about particular nodes of the model: each variant case's records
    and each `unknown:` case's (`idlc.semantics.cases`), what each field default stands
    for and whether it fits (`idlc.semantics.defaults`), stored by node
    (`idlc.nodes.ByNode`).

    A dict, so that the many plain lookups of later stages stay the dict's own; it is not
    changed once made (its facts would go stale): the resolver makes it when every
    typedef is converted, for every model it makes (the stable view of a file with
    unstable items is resolved again, new nodes and its own arena). The node facts live
    here rather than beside it on `Model` because every stage asks them with the arena in
    hand (`queries.case_records(case, typedefs)`, and the checks run before the model is
    made), and they are worked out from the arena's own facts of names; `scopes` are the
    records, enums and variants they are worked out for (`Model.scopes`). A node not among
    them (a test's) is worked out when asked (`queries`)."""

    __slots__ = ("looked_into", "case_records", "unknown_cases", "defaults")

    def __init__(
        self,
        entries: Mapping[str, m.Typedef],
        scopes: Iterable[m.Record | m.Enum | m.Variant] = (),
    ) -> None:
        super().__init__(entries)
        #: The facts of the typedefs whose type is looked into (`_LOOKED_INTO`: aliases,
        #: optionals, unions); every other typedef stands for its own type (`alone`).
        self.looked_into = _work_out(self)
        # (They ask `queries`, which reads this module: imported once it is loaded.)
        from idlc.semantics import cases, defaults

        variants: list[m.Variant] = []
        records: list[m.Record] = []
        for scope in scopes:
            if isinstance(scope, m.Variant):
                variants.append(scope)
            elif isinstance(scope, m.Record):
                records.append(scope)
        #: The records each case of a variant of `scopes` carries (`cases.case_records`).
        self.case_records: ByNode[m.Case, tuple[m.Record, ...]]
        #: What `unknown: T;` stands for, for each variant of `scopes` that has one.
        self.unknown_cases: ByNode[m.Variant, UnknownCase]
        self.case_records, self.unknown_cases = cases.work_out(self, variants)
        #: What the default of each field of a record of `scopes` with one stands for.
        self.defaults: ByNode[m.Field, DefaultFacts] = defaults.work_out(self, records)

    def facts(self, name: str) -> Facts | None:
        """What typedef `name` stands for; None when no typedef has the name."""
        found = self.looked_into.get(name)
        if found is None:
            typedef = self.get(name)
            return None if typedef is None else alone(typedef)
        return found


def shallow_kinds(type_: m.Type) -> frozenset[str]:
    """The JSON kinds a value of `type_` takes by itself: what it adds to the kinds of what
    it is looked through with (`optional<…>` adds `null`; a union and a name add none, their
    alternatives and target being looked through too)."""
    match type_:
        case m.Primitive():
            return _PRIMITIVE_KINDS.get(type_.kind, _INT)
        case m.Optional():
            return _NULL
        case m.List():
            return _ARRAY
        case m.AtomRef() | m.InterfaceRef() | m.Enum():
            return _STR
        case m.Record() | m.Map() | m.Variant():
            return _OBJECT
        case m.Union_() | m.TypeRef():
            return _NONE
        case _:
            assert_never(type_)


_NONE: frozenset[str] = frozenset()
_INT = frozenset({"int"})
_NULL = frozenset({"null"})
_ARRAY = frozenset({"array"})
_STR = frozenset({"str"})
_OBJECT = frozenset({"object"})
_ANY = frozenset({JSON_ANY})
#: The JSON kind of each primitive that is not an integer.
_PRIMITIVE_KINDS = {
    m.PrimitiveKind.STRING: _STR,
    m.PrimitiveKind.BYTES: _STR,
    m.PrimitiveKind.UNIT: _NULL,
    m.PrimitiveKind.JSON: _ANY,
    m.PrimitiveKind.BOOL: frozenset({"bool"}),
    m.PrimitiveKind.FLOAT64: frozenset({"float"}),
}


def spine(type_: m.Type) -> tuple[list[m.Type], list[str]]:
    """The types `type_` is looked through to, written inside it (through `optional<…>`
    and union alternatives, names not followed), and the typedef names among them."""
    nodes: list[m.Type] = []
    names: list[str] = []
    pending = [type_]
    while pending:
        current = pending.pop()
        if isinstance(current, m.TypeRef):
            names.append(current.name)
            continue
        nodes.append(current)
        if isinstance(current, m.Optional):
            pending.append(current.inner)
        elif isinstance(current, m.Union_):
            pending.extend(reversed(current.alternatives))
    return nodes, names


#: The types a name is looked through to more than itself: the others (records, enums,
#: variants, lists …: most typedefs) have facts of their own `alone`.
_LOOKED_INTO = (m.TypeRef, m.Optional, m.Union_)


def alone(typedef: m.Typedef) -> Facts:
    """The facts of a typedef whose type is not looked into (`_LOOKED_INTO`): itself."""
    type_ = typedef.type
    return Facts(type_, typedef.name, type_, typedef.name, shallow_kinds(type_), (type_,))


def _work_out(entries: Mapping[str, m.Typedef]) -> dict[str, Facts]:
    """The facts of every typedef that is looked into; the others' are the typedef `alone`,
    which nothing needs to store (`Typedefs.facts`)."""
    facts: dict[str, Facts] = {}
    local: dict[str, tuple[list[m.Type], list[str]]] = {}
    for name, typedef in entries.items():
        if isinstance(typedef.type, _LOOKED_INTO):
            local[name] = spine(typedef.type)
    if not local:
        return facts
    targets = _follow_all(entries, local, through_optional=False)
    presents = _follow_all(entries, local, through_optional=True)
    edges = {name: [ref for ref in refs if ref in local] for name, (_, refs) in local.items()}
    # A component comes after every component it reaches: the names it refers to outside
    # itself have their facts already. Its members share theirs (each reaches the others).
    for component in strongly_connected(edges):
        members = set(component)
        reached: dict[int, m.Type] = {}
        kinds: set[str] = set()
        for name in component:
            nodes, refs = local[name]
            for item in nodes:
                reached.setdefault(id(item), item)
                kinds |= shallow_kinds(item)
            for ref in refs:
                if ref in members:
                    kinds.add(JSON_ANY)  # a cycle: met again while looking through
                    continue
                outside = facts.get(ref)
                if outside is None:
                    named = entries.get(ref)
                    if named is None:
                        kinds.add(JSON_ANY)  # no such typedef (reported by the checks)
                        continue
                    outside = alone(named)
                kinds |= outside.kinds
                for item in outside.looked_through:
                    reached.setdefault(id(item), item)
        looked_through = tuple(reached.values())
        frozen = frozenset(kinds)
        for name in component:
            target, last = targets[name]
            present, present_last = presents[name]
            facts[name] = Facts(target, last, present, present_last, frozen, looked_through)
    return facts


def _follow_all(
    entries: Mapping[str, m.Typedef],
    starts: Mapping[str, object],
    *,
    through_optional: bool,
) -> dict[str, tuple[m.Type | None, str]]:
    """The followed target and the last name followed (`Facts.target`, `.last`; with
    `through_optional`, `.present` and `.present_last`) of each of `starts`, every chain
    walked once: a name met on an earlier chain ends the walk."""
    result: dict[str, tuple[m.Type | None, str]] = {}
    for start in starts:
        if start in result:
            continue
        path: list[str] = []
        on_path: dict[str, int] = {}
        name = start
        while True:
            if name in result:
                ends = [result[name]] * len(path)
                break
            if name in on_path:
                # A cycle: from a name before it on the path, the walk first meets `name`
                # again; from one on the cycle, itself.
                cycle_start = on_path[name]
                ends = [
                    (None, name if index <= cycle_start else path[index])
                    for index in range(len(path))
                ]
                break
            typedef = entries.get(name)
            if typedef is None:
                ends = [(None, name)] * len(path)  # a dangling name
                break
            on_path[name] = len(path)
            path.append(name)
            type_ = typedef.type
            while through_optional and isinstance(type_, m.Optional):
                type_ = type_.inner
            if not isinstance(type_, m.TypeRef):
                ends = [(type_, name)] * len(path)
                break
            name = type_.name
        for walked, end in zip(path, ends, strict=True):
            result[walked] = end
    return result
