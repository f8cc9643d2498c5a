"""Python type expressions as small values: `list[str]`, `dict[str, Agent]`, `AgentRef | None`.

The builders decide a type expression once, as data (a name, its arguments, whether it is
optional); templates print it (`str(expression)`). Questions such as "is this already
optional?" or "is this `None` itself?" are asked of the value, never of its text.
"""

from __future__ import annotations


class TypeExpr:
    """`name[args…]`, followed by ` | None` when `optional`. Immutable."""

    __slots__ = ("name", "args", "optional", "_text")

    def __init__(self, name: str, args: tuple[TypeExpr, ...] = (), optional: bool = False):
        #: A class or alias name (`str`, `AgentRef`, `_hooks.JsonValue`), a generic (`list`,
        #: `dict`, `frozenset`, `_hooks.UniqueSet`), or `None`.
        self.name = name
        self.args = args
        self.optional = optional
        # Templates print a type expression several times (field, parameter, table entry):
        # spelled once.
        text = f"{name}[{', '.join(map(str, args))}]" if args else name
        self._text = f"{text} | None" if optional else text

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"TypeExpr({self._text!r})"

    @property
    def is_none(self) -> bool:
        """Whether this is `None` itself (a `unit`)."""
        return self.name == "None" and not self.optional

    def or_none(self) -> TypeExpr:
        """This type, optional (`None` and optional types are already)."""
        if self.optional or self.is_none:
            return self
        return TypeExpr(self.name, self.args, optional=True)


NONE = TypeExpr("None")


def generic(name: str, *args: TypeExpr) -> TypeExpr:
    return TypeExpr(name, args)
