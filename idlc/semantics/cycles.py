"""Type cycles that no value could ever satisfy.

A typedef may refer to itself through `optional`, `list`, `map`, or a variant or union case:
each gives a value a place to stop. Without one of those, the cycle is either an alias-only
cycle (`type A = B; type B = A;`, E0114) or a record that must contain itself (E0123).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from idlc.diagnostics import Diagnostics, Related, codes
from idlc.semantics import model
from idlc.source import Span

# (target typedef, span of the reference, whether a record field lies on the way)
_Edge = tuple[str, Span, bool]


def _strong_references(type: model.Type, through_record: bool) -> Iterator[_Edge]:
    if isinstance(type, model.TypeRef):
        yield type.name, type.span, through_record
    elif isinstance(type, model.Record):
        for field in type.fields:
            yield from _strong_references(field.type, True)
    # optional, list, map, variant and union can stop the recursion: no strong edge


def check_cycles(
    typedefs: Mapping[str, model.Typedef],
    name_spans: Mapping[str, Span],
    diagnostics: Diagnostics,
) -> None:
    edges: dict[str, list[_Edge]] = {
        name: [edge for edge in _strong_references(typedef.type, False) if edge[0] in typedefs]
        for name, typedef in typedefs.items()
    }
    for component in strongly_connected(
        {name: [edge[0] for edge in out] for name, out in edges.items()}
    ):
        members = set(component)
        inside = [
            (source, edge) for source in component for edge in edges[source] if edge[0] in members
        ]
        if len(component) == 1 and not inside:
            continue
        order = {name: index for index, name in enumerate(typedefs)}
        component.sort(key=order.__getitem__)
        first = component[0]
        through_record = any(edge[2] for _, edge in inside)
        related = [
            Related(f"`{source}` refers to `{target}` here", span)
            for source, (target, span, _) in sorted(inside, key=lambda item: item[1][1].start)
        ]
        if len(component) == 1:
            what = f"`{first}` refers to itself"
        else:
            what = "`" + "`, `".join(component) + "` refer to each other"
        if through_record:
            diagnostics.add(
                codes.INFINITE_RECORD,
                f"{what} through required record fields: no value could ever be complete",
                name_spans[first],
                label="contains itself",
                help="make one field on the way `optional<…>`, or a `list<…>`",
                related=related,
            )
        else:
            diagnostics.add(
                codes.ALIAS_CYCLE,
                f"type aliases form a cycle: {what}",
                name_spans[first],
                label="this alias never reaches a type",
                help="one of them must stand for a type other than another alias",
                related=related,
            )


def strongly_connected(edges: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """The strongly connected components of the graph `edges` (name → the names it refers
    to, each a key), a component after every component it reaches: Tarjan's algorithm,
    iterative (a long alias chain must not exhaust the stack). `idlc.semantics.facts`
    works out its facts in this order too."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            successors = edges[node]
            recurse = False
            while position < len(successors):
                target = successors[position]
                position += 1
                if target not in index:
                    work.append((node, position))
                    work.append((target, 0))
                    recurse = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            if recurse:
                continue
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                result.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return result
