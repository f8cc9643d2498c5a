"""What a generated module imports, read from what its views hold once it is built.

The header imports a module (`abc`, `enum`, `typing`, `msgspec`, the runtime as `_rt`, its
hooks as `_hooks`) when the module's classes, aliases, type expressions or interface write
something of it; nothing is flagged by hand while building. The rules follow the templates:
each kind of class, alias and method writes the same modules every time.
"""

from __future__ import annotations

import functools

from idlc.codegen.typeexpr import TypeExpr
from idlc.codegen.views import FieldView, ModuleView, Uses
from idlc.targets.python.mapping import REFS_MODULE

#: What a type expression writes before a dot (`typing.Literal`, `msgspec.UnsetType`,
#: `_hooks.JsonValue`) → the import it needs.
_PREFIXES = {"typing": "typing", "msgspec": "msgspec", "_hooks": "hooks"}


def uses_of(module: ModuleView) -> Uses:
    used: set[str] = set()
    #: Every type expression the module writes, each once: a schema's fields share a few.
    expressions: set[TypeExpr] = set()
    if module.name == REFS_MODULE:
        used.add("typing")  # typing.NewType, and ATOMS's typing.Final
    for integer in module.integer_aliases.values():
        # typing.Annotated[int, msgspec.Meta(…)], or the hooks' checked class
        used.update(("typing", "hooks") if integer.checked_by_hooks else ("typing", "msgspec"))
    for view in module.classes:
        kind = view.kind
        expressions.update(field.annotation for field in view.fields)
        if kind == "struct":
            used.add("msgspec")
        elif kind == "enum":
            # `enum` for every module with an enum, open ones too (as idlc always wrote it).
            used.add("enum")
            if view.open:
                used.add("hooks")
        elif kind == "marker":
            used.add("hooks")
            if view.of_lists:
                used.add("typing")  # list[typing.Any]
        else:  # `unknown` and `open` derive from the hooks' classes
            used.add("hooks")
            if kind == "open" and any(_calls_field(field) for field in view.fields):
                used.add("msgspec")
            expressions.update(field.annotation for field in view.typed_fields)
            if view.typed is not None:
                expressions.add(view.typed)
    for alias in module.aliases:
        used.add("typing")  # typing.TypeAlias
        expressions.update(alias.alternatives)
    if module.registrations:
        used.add("hooks")
    interface = module.interface
    if interface is not None:
        used.update(("abc", "typing", "runtime"))  # abc.ABC, typing.ClassVar, _rt.MethodSpec
        for method in interface.methods:
            expressions.update(field.annotation for field in method.params)
            expressions.update((method.params_type, method.returns, method.result_type))
            if method.input is not None:
                expressions.add(method.input)
    for expression in expressions:
        used |= _modules_of(expression)
    return Uses(**dict.fromkeys(used, True))


def _calls_field(view: FieldView) -> bool:
    """Whether a declared field is written with `msgspec.field(…)` (a struct's always
    imports msgspec anyway: the struct is a `msgspec.Struct`)."""
    return view.factory is not None or view.renamed


@functools.cache
def _modules_of(expression: TypeExpr) -> frozenset[str]:
    """The imports `expression` writes something of (its text is its key: the same text is
    the same expression)."""
    prefix, dot, _ = expression.name.partition(".")
    found = {_PREFIXES[prefix]} if dot and prefix in _PREFIXES else set()
    if expression.unset:
        found.add("msgspec")  # msgspec.UnsetType
    for argument in expression.args:
        found |= _modules_of(argument)
    return frozenset(found)
