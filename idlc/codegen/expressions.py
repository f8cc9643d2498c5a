"""Type expressions and default literals of one module, recording what they import."""

from __future__ import annotations

import base64
import math
from typing import TYPE_CHECKING, assert_never

from idlc.codegen.layout import python_bytes, python_string
from idlc.codegen.typeexpr import NONE, TypeExpr, generic, named
from idlc.codegen.views import IntegerAliasView, ModuleView
from idlc.semantics import model as m
from idlc.targets.python.mapping import REFS_MODULE, TYPES_MODULE

if TYPE_CHECKING:
    from idlc.targets.python.hints import Default
    from idlc.targets.python.mapping import Plan

#: By the primitive kind's value (`"string"`): a str key is hashed without a Python call, an
#: enum member is not, and every field's type is looked up here.
_SIMPLE = {
    m.PrimitiveKind.STRING.value: TypeExpr("str"),
    m.PrimitiveKind.BOOL.value: TypeExpr("bool"),
    m.PrimitiveKind.UNIT.value: NONE,
    m.PrimitiveKind.FLOAT64.value: TypeExpr("float"),
    m.PrimitiveKind.BYTES.value: TypeExpr("bytes"),
    m.PrimitiveKind.JSON.value: TypeExpr("_hooks.JsonValue"),
}
_STRING = _SIMPLE[m.PrimitiveKind.STRING.value]


class ModuleContext:
    """Type expressions for one module: every name from another module becomes an import
    of `module`, every name it uses is remembered in `depends` (aliases are ordered by it)."""

    def __init__(self, plan: Plan, module: ModuleView, borrowed: dict[str, str]) -> None:
        self.plan = plan
        self.module = module
        #: name → module of the stable package it is imported from (`idlc.targets.python.overlay`)
        self.borrowed = borrowed
        self.depends: set[str] = set()

    def use(self, name: str, module: str) -> TypeExpr:
        if self.borrowed:
            module = self.borrowed.get(name, module)
        if module != self.module.name:
            self.module.imports[name] = module
        self.depends.add(name)
        return named(name)

    def ref(self, declaration: str) -> TypeExpr:
        """The reference type of an atom or interface."""
        return self.use(self.plan.refs[declaration], REFS_MODULE)

    def expr(self, type_: m.Type) -> TypeExpr:
        match type_:
            case m.Primitive():
                kind = type_.kind
                simple = _SIMPLE.get(kind._value_)
                return self._integer(kind) if simple is None else simple
            case m.Optional():
                inner = self.expr(type_.inner)
                return inner if type_ in self.plan.optional_of_none else inner.or_none()
            case m.List():
                return generic("list", self.expr(type_.inner))
            case m.Map():
                return generic("dict", _STRING, self.expr(type_.value))
            case m.AtomRef():
                return self.ref(type_.atom)
            case m.InterfaceRef():
                return self.ref(type_.interface)
            case m.TypeRef():
                return self.use(self.plan.typedefs[type_.name], TYPES_MODULE)
            case m.Record() | m.Enum() | m.Variant() | m.Union_():
                # An inline type: the class the plan named for it.
                name, module = self.plan.inline[type_]
                return self.use(name, module)
            case _:
                assert_never(type_)

    def _integer(self, kind: m.PrimitiveKind) -> TypeExpr:
        name = self.plan.integer_aliases[kind._value_]
        if name in self.module.integer_aliases:
            return named(name)
        low, high = kind.integer_range or (0, 0)
        # msgspec cannot bound integers beyond int64: the hooks check uint64.
        checked_by_hooks = kind is m.PrimitiveKind.UINT64
        self.module.integer_aliases[name] = IntegerAliasView(name, low, high, checked_by_hooks)
        return named(name)

    def literal(self, default: Default, literal: m.Literal) -> tuple[str, str | None]:
        """The Python literal of a field default written as `default` says, and the factory
        (`list`, `dict`, a record class) that makes it when it is a new value each time
        (`[]`, `{}`)."""
        value = literal.value
        match default.form:
            case "list" | "dict":
                return ("[]" if value == () else "{}"), default.form
            case "record":
                assert default.type is not None
                return "{}", str(self.expr(default.type))
            case "member" | "value":
                assert default.type is not None and isinstance(value, str)
                enum_class = self.expr(default.type)
                if default.form == "member":
                    return f"{enum_class}.{self.plan.enum_members[value]}", None
                return f"{enum_class}({python_string(value)})", None
            case "float":
                return f"{value}.0", None
            case "bytes":
                # The default is written as on the wire, in base64 (checked by the resolver).
                assert isinstance(value, str)
                return python_bytes(base64.b64decode(value, validate=True)), None
            case "plain":
                pass
            case _:
                assert_never(default.form)
        if isinstance(value, bool):
            return ("True" if value else "False"), None
        if isinstance(value, float):
            if not math.isfinite(value):
                return f"float({python_string(repr(value))})", None
            return repr(value), None
        if isinstance(value, int):
            return str(value), None
        assert isinstance(value, str)
        return python_string(value), None
