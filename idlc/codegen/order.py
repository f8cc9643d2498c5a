"""The order definitions are written in: each after what it needs from the same module."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


def dependencies_first(
    items: Iterable[T], name: Callable[[T], str], needs: Callable[[T], Iterable[str]]
) -> list[T]:
    """`items` in their order, except that an item comes after the items it `needs` (by
    name; names of other modules are ignored). A cycle keeps the order it was found in.

    Classes need their bases defined first (Python evaluates the class statement), aliases
    the aliases their expression uses (evaluated when the module loads).
    """
    listed = list(items)
    by_name = {name(item): item for item in listed}
    done: set[str] = set()
    result: list[T] = []

    def visit(item: T) -> None:
        key = name(item)
        if key in done:
            return
        done.add(key)
        for needed in needs(item):
            other = by_name.get(needed)
            if other is not None:
                visit(other)
        result.append(item)

    for item in listed:
        visit(item)
    return result
