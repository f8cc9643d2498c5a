"""Python type expressions as small values: `list[str]`, `dict[str, Agent]`, `AgentRef | None`.

The builders decide a type expression once, as data (a name, its arguments, whether it is
optional); templates print it. Questions such as "is this already optional?" or "is this
`None` itself?" are asked of the value's fields, never of its text.
"""

from __future__ import annotations

import functools


class TypeExpr(str):
    """`name[args…]`, followed by ` | None` when `optional`, and by ` | msgspec.UnsetType`
    when `unset` (a tri-state field: docs/language.md, "Nullable and tri-state fields").

    The value is also its own spelling (a `str`), so that templates can join it with `+`
    like any text: they print type expressions in fields, parameters and tables many
    thousand times for a large schema.
    """

    #: A class or alias name (`str`, `AgentRef`, `_hooks.JsonValue`), a generic (`list`,
    #: `dict`, `frozenset`, `_hooks.UniqueSet`), or `None`.
    name: str
    args: tuple[TypeExpr, ...]
    optional: bool
    unset: bool

    def __new__(
        cls,
        name: str,
        args: tuple[TypeExpr, ...] = (),
        optional: bool = False,
        unset: bool = False,
    ) -> TypeExpr:
        text = f"{name}[{', '.join(args)}]" if args else name
        if optional:
            text += " | None"
        if unset:
            text += " | msgspec.UnsetType"
        self = super().__new__(cls, text)
        self.name = name
        self.args = args
        self.optional = optional
        self.unset = unset
        return self

    def __repr__(self) -> str:
        return f"TypeExpr({str(self)!r})"

    @property
    def is_none(self) -> bool:
        """Whether this is `None` itself (a `unit`)."""
        return self.name == "None" and not self.optional

    def or_none(self) -> TypeExpr:
        """This type, optional (`None` and optional types are already)."""
        if self.optional or self.is_none:
            return self
        return TypeExpr(self.name, self.args, optional=True, unset=self.unset)

    def or_unset(self) -> TypeExpr:
        """This type, or `msgspec.UNSET` (absent)."""
        return TypeExpr(self.name, self.args, self.optional, unset=True)


NONE = TypeExpr("None")


# A schema names the same few types over and over (every field's type is one): each
# spelled once per process. Type expressions are immutable, so sharing them is safe.
@functools.cache
def named(name: str) -> TypeExpr:
    """A class or alias by its name."""
    return TypeExpr(name)


@functools.cache
def generic(name: str, *args: TypeExpr) -> TypeExpr:
    """`name[args…]`."""
    return TypeExpr(name, args)
