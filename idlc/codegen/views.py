"""From the resolved model to view models: every name, type expression and import decided.

The templates only arrange what is here. The builder walks the model once:

1. `_Namer` gives every type that needs a class a Python name and a module: typedefs and
   the inline types inside them go to `_types`; inline types of an interface's members go
   to that interface's module. Names come from `idlc.naming` only.
2. `_Builder` turns declarations into definitions (records, enums, case classes, aliases,
   hook registrations) and interfaces into skeleton, proxy and dispatch-table views. Type
   expressions are rendered here, and every name they use from another module is recorded
   as an import of the module being built.
3. Name collisions (two things, one Python name) and shapes Python cannot express are
   diagnostics with spans; `generate` writes nothing when there is one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from idlc import naming
from idlc.codegen.layout import bracket, docstring, python_string
from idlc.diagnostics import Diagnostic, Related, codes
from idlc.semantics import model as m
from idlc.source import Span

TYPES_MODULE = "_types"
REFS_MODULE = "_refs"

#: Names generated modules import or define for themselves; no generated class may use them.
RESERVED_NAMES = frozenset(
    {"Unsupported", "TYPE_CHECKING", "abc", "enum", "msgspec", "typing", "annotations"}
)
#: Skeleton class attributes that are not members.
SKELETON_ATTRIBUTES = frozenset({"INTERFACE_ID", "REVISION"})
#: Proxy attributes that are not members.
PROXY_ATTRIBUTES = frozenset({"_peer", "_target"})

_INTEGER_ALIASES = {
    m.PrimitiveKind.INT8: "_Int8",
    m.PrimitiveKind.INT16: "_Int16",
    m.PrimitiveKind.INT32: "_Int32",
    m.PrimitiveKind.INT64: "_Int64",
    m.PrimitiveKind.UINT8: "_UInt8",
    m.PrimitiveKind.UINT16: "_UInt16",
    m.PrimitiveKind.UINT32: "_UInt32",
    m.PrimitiveKind.UINT64: "_UInt64",
}
_SIMPLE = {
    m.PrimitiveKind.STRING: "str",
    m.PrimitiveKind.BOOL: "bool",
    m.PrimitiveKind.UNIT: "None",
    m.PrimitiveKind.FLOAT64: "float",
    m.PrimitiveKind.BYTES: "bytes",
    m.PrimitiveKind.JSON: "_hooks.JsonValue",
}


# -- view models ----------------------------------------------------------------------------


@dataclass(slots=True)
class FieldView:
    attribute: str
    annotation: str
    #: The right-hand side after `=` in the class body, or None for a required field.
    default: str | None
    #: The default as a keyword argument default (None: the argument is required).
    argument_default: str | None
    doc: str | None
    wire: str

    @property
    def line(self) -> str:
        return f"{self.attribute}: {self.annotation}" + (
            f" = {self.default}" if self.default is not None else ""
        )


@dataclass(slots=True)
class ClassView:
    """A generated class: a record, a variant case, an enum, a marker base."""

    name: str
    header: str  # `class X(...):`, laid out
    doc: str | None
    body: list[str]  # statements at class level, each possibly multi-line (indented)
    #: Names of classes of the same module this one derives from (emitted first).
    after: tuple[str, ...] = ()
    kind: str = "record"


@dataclass(slots=True)
class AliasView:
    name: str
    #: Plain alias: `name: typing.TypeAlias = expression`.
    expression: str
    #: For hooked types: what mypy sees (`expression` is then the runtime class).
    typing_expression: str | None
    doc: str | None
    depends: frozenset[str]
    span: Span | None = None


@dataclass(slots=True)
class StatementView:
    text: str


@dataclass(slots=True)
class MethodView:
    name: str
    wire: str
    doc: str | None
    signature: str  # `async def name(...) -> R:` laid out at class indentation
    required: bool
    notify: bool
    proxy_body: str  # laid out at method-body indentation
    invoke: str  # the module-level adapter function, laid out


@dataclass(slots=True)
class InterfaceView:
    name: str
    proxy: str
    doc: str | None
    id_literal: str
    revision_literal: str
    methods: list[MethodView]
    spec_table: str


@dataclass(slots=True)
class ModuleView:
    """One generated Python module."""

    name: str  # without `.py`
    doc: str
    classes: list[ClassView] = field(default_factory=list)
    aliases: list[AliasView] = field(default_factory=list)
    registrations: list[StatementView] = field(default_factory=list)
    interface: InterfaceView | None = None
    # name → module it comes from
    imports: dict[str, str] = field(default_factory=dict)
    uses_hooks: bool = False
    uses_runtime: bool = False
    uses_enum: bool = False
    uses_abc: bool = False
    uses_msgspec: bool = False
    uses_typing: bool = False
    integer_aliases: dict[str, str] = field(default_factory=dict)
    public: list[str] = field(default_factory=list)

    def ordered_classes(self) -> list[ClassView]:
        """Classes with every base of the same module before the classes deriving from it."""
        by_name = {view.name: view for view in self.classes}
        done: set[str] = set()
        result: list[ClassView] = []

        def visit(view: ClassView) -> None:
            if view.name in done:
                return
            done.add(view.name)
            for base in view.after:
                if base in by_name:
                    visit(by_name[base])
            result.append(view)

        for priority in ("marker", "enum", "record"):
            for view in self.classes:
                if view.kind == priority:
                    visit(view)
        return result

    def ordered_aliases(self) -> list[AliasView]:
        """Aliases after the aliases of this module they use (they are evaluated at import)."""
        by_name = {alias.name: alias for alias in self.aliases}
        done: set[str] = set()
        result: list[AliasView] = []

        def visit(alias: AliasView) -> None:
            if alias.name in done:
                return
            done.add(alias.name)
            for name in sorted(alias.depends):
                if name in by_name:
                    visit(by_name[name])
            result.append(alias)

        for alias in self.aliases:
            visit(alias)
        return result

    def import_lines(self, package_modules: frozenset[str]) -> list[str]:
        by_module: dict[str, list[str]] = {}
        for name, module in self.imports.items():
            if module != self.name:
                by_module.setdefault(module, []).append(name)
        lines = []
        for module in sorted(by_module):
            names = sorted(by_module[module])
            lines.append(bracket(f"from .{module} import (", names, ")", 0).replace(
                "import (", "import (" if len(names) > 1 else "import ("
            ))
        return [_unparenthesize_import(line) for line in lines]


def _unparenthesize_import(line: str) -> str:
    # `from .x import (a, b)` on one line is written without parentheses, as black keeps it.
    if "\n" in line:
        return line
    head, _, rest = line.partition("(")
    return head + rest[:-1]


@dataclass(slots=True)
class PackageView:
    modules: list[ModuleView]
    init_imports: list[str]
    all_names: list[str]


# -- naming pass ----------------------------------------------------------------------------


@dataclass(slots=True)
class _Place:
    name: str
    module: str
    span: Span
    what: str


class _Diagnostics:
    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def add(
        self,
        code: codes.Code,
        message: str,
        span: Span | None,
        *,
        help: str | None = None,
        related: tuple[Related, ...] = (),
    ) -> None:
        self.items.append(Diagnostic(code, message, span, help, None, related))


class _Namer:
    """Gives every inline record, enum, variant and union its class name and module."""

    def __init__(self, model: m.Model, diagnostics: _Diagnostics) -> None:
        self.model = model
        self.diagnostics = diagnostics
        #: id(type node) → (name, module)
        self.inline: dict[int, tuple[str, str]] = {}
        #: Python name → where it was given (package namespace: everything is re-exported)
        self.package_names: dict[str, _Place] = {}
        #: interface module names
        self.modules: dict[str, _Place] = {}

    def claim(self, name: str, module: str, span: Span, what: str) -> None:
        if name in RESERVED_NAMES or name.startswith("_"):
            self.diagnostics.add(
                codes.RESERVED_GENERATED_NAME,
                f"{what} would be named `{name}`, a name the generated code needs",
                span,
                help="rename it in the IDL",
            )
            return
        first = self.package_names.get(name)
        if first is not None:
            self.diagnostics.add(
                codes.GENERATED_NAME_COLLISION,
                f"{what} and {first.what} would both be the Python name `{name}`",
                span,
                help="rename one of them in the IDL",
                related=(Related(f"{first.what} is here", first.span),),
            )
            return
        self.package_names[name] = _Place(name, module, span, what)

    def name_inline(self, type_: m.Type, name: str, module: str, what: str) -> None:
        """Name the inline types in `type_`, which stands where `name` describes."""
        if isinstance(type_, (m.Record, m.Enum, m.Variant, m.Union_)):
            self.inline[id(type_)] = (name, module)
            self.claim(name, module, type_.span, what)
        if isinstance(type_, m.Record):
            for field_ in type_.fields:
                self.name_inline(
                    field_.type,
                    naming.nested_name(name, field_.name),
                    module,
                    f"the inline type of field `{field_.name}`",
                )
        elif isinstance(type_, (m.Optional, m.List)):
            self.name_inline(type_.inner, name, module, what)
        elif isinstance(type_, m.Map):
            self.name_inline(type_.value, name, module, what)
        elif isinstance(type_, m.Variant):
            for case in type_.cases:
                case_name = naming.case_class_name(name, case.tag)
                label = "the default case" if case.tag is None else f"case {case.tag!r}"
                if isinstance(case.type, m.Record):
                    # The case class is the inline record itself.
                    self.inline[id(case.type)] = (case_name, module)
                    for field_ in case.type.fields:
                        self.name_inline(
                            field_.type,
                            naming.nested_name(case_name, field_.name),
                            module,
                            f"the inline type of field `{field_.name}`",
                        )
                self.claim(case_name, module, case.span, f"the class of {label} of `{name}`")
            if type_.open:
                self.claim(
                    naming.unknown_case_class_name(name),
                    module,
                    type_.span,
                    f"the unknown case of `{name}`",
                )
        elif isinstance(type_, m.Union_):
            for index, alternative in enumerate(type_.alternatives):
                self.name_inline(
                    alternative,
                    naming.union_alternative_name(name, index),
                    module,
                    f"alternative {index + 1} of `{name}`",
                )

    def name_in_alias(self, type_: m.Type, alias: str, what: str) -> None:
        """Name the inline types inside a typedef that is an alias (a list, map or optional):
        the alias has the declared name, so they are named after their container."""
        if isinstance(type_, m.Optional) and isinstance(type_.inner, (m.Optional, m.List, m.Map)):
            self.name_in_alias(type_.inner, alias, what)
        elif isinstance(type_, (m.Optional, m.List)):
            container = "list" if isinstance(type_, m.List) else "optional"
            self.name_inline(
                type_.inner, naming.element_name(alias, container), TYPES_MODULE,
                f"the {'items' if container == 'list' else 'value'} of {what}",
            )
        elif isinstance(type_, m.Map):
            self.name_inline(
                type_.value, naming.element_name(alias, "map"), TYPES_MODULE,
                f"the values of {what}",
            )

    def run(self) -> None:
        model = self.model
        for atom in model.atoms.values():
            self.claim(
                naming.ref_name(atom.name),
                REFS_MODULE,
                atom.spans[0],
                f"the reference class of atom `{atom.name}`",
            )
        for interface_name, span in _all_interfaces(model):
            self.claim(
                naming.ref_name(interface_name),
                REFS_MODULE,
                span,
                f"the reference class of interface `{interface_name}`",
            )
        for typedef in model.typedefs.values():
            name = naming.declared_name(typedef.name)
            if isinstance(typedef.type, (m.Record, m.Enum, m.Variant, m.Union_)):
                self.name_inline(typedef.type, name, TYPES_MODULE, f"type `{typedef.name}`")
            else:
                self.claim(name, TYPES_MODULE, typedef.span, f"type `{typedef.name}`")
                self.name_in_alias(typedef.type, name, f"type `{typedef.name}`")
        for interface in model.interfaces.values():
            module = naming.interface_module_name(interface.name)
            first = self.modules.get(module)
            if first is not None or module in (TYPES_MODULE, REFS_MODULE):
                self.diagnostics.add(
                    codes.GENERATED_NAME_COLLISION,
                    f"interface `{interface.name}` would be generated into module `{module}`, "
                    + (f"like {first.what}" if first else "a module idlc needs"),
                    interface.span,
                    help="rename one of the interfaces",
                    related=(Related(f"{first.what} is here", first.span),) if first else (),
                )
            else:
                self.modules[module] = _Place(
                    module, module, interface.span, f"interface `{interface.name}`"
                )
            iname = naming.declared_name(interface.name)
            self.claim(iname, module, interface.span, f"interface `{interface.name}`")
            self.claim(
                naming.proxy_name(interface.name),
                module,
                interface.span,
                f"the proxy of interface `{interface.name}`",
            )
            for member in interface.members:
                if isinstance(member, m.Operation):
                    self.name_inline(
                        member.input,
                        naming.input_class_name(interface.name, member.name),
                        module,
                        f"the input of `{interface.name}.{member.name}`",
                    )
                    if _needs_params_wrapper(model, member.input):
                        self.claim(
                            naming.params_class_name(interface.name, member.name),
                            module,
                            member.span,
                            f"the params class of `{interface.name}.{member.name}`",
                        )
                    self.name_inline(
                        member.output,
                        naming.output_class_name(interface.name, member.name),
                        module,
                        f"the output of `{interface.name}.{member.name}`",
                    )
                elif isinstance(member, m.Value):
                    self.name_inline(
                        member.type,
                        naming.value_class_name(interface.name, member.name),
                        module,
                        f"the type of `{interface.name}.{member.name}`",
                    )


def _all_interfaces(model: m.Model) -> Iterator[tuple[str, Span]]:
    for interface in model.interfaces.values():
        yield interface.name, interface.span
    for opaque in model.opaque_interfaces.values():
        yield opaque.name, opaque.spans[0]


def resolve_alias(model: m.Model, type_: m.Type) -> m.Type:
    """`type_` with typedef names followed until a type that is not a name."""
    seen: set[str] = set()
    while isinstance(type_, m.TypeRef) and type_.name not in seen:
        seen.add(type_.name)
        type_ = model.typedefs[type_.name].type
    return type_


def _is_unit(model: m.Model, type_: m.Type) -> bool:
    resolved = resolve_alias(model, type_)
    return isinstance(resolved, m.Primitive) and resolved.kind is m.PrimitiveKind.UNIT


def _is_record(model: m.Model, type_: m.Type) -> bool:
    return isinstance(resolve_alias(model, type_), m.Record)


def _is_object_shaped(model: m.Model, type_: m.Type) -> bool:
    """A record or a variant: its JSON is always an object, so it can be `params` itself."""
    return isinstance(resolve_alias(model, type_), (m.Record, m.Variant))


def _needs_params_wrapper(model: m.Model, type_: m.Type) -> bool:
    return not _is_unit(model, type_) and not _is_object_shaped(model, type_)


# -- JSON kinds, for deciding whether msgspec can tell union alternatives apart -------------


def _json_kinds(model: m.Model, type_: m.Type, seen: frozenset[str] = frozenset()) -> set[str]:
    if isinstance(type_, m.TypeRef):
        if type_.name in seen:
            return {"any"}
        return _json_kinds(model, model.typedefs[type_.name].type, seen | {type_.name})
    if isinstance(type_, m.Primitive):
        kind = type_.kind
        if kind in (m.PrimitiveKind.STRING, m.PrimitiveKind.BYTES):
            return {"str"}
        if kind is m.PrimitiveKind.UNIT:
            return {"null"}
        if kind is m.PrimitiveKind.JSON:
            return {"any"}
        if kind is m.PrimitiveKind.BOOL:
            return {"bool"}
        if kind is m.PrimitiveKind.FLOAT64:
            return {"float"}
        return {"int"}
    if isinstance(type_, m.Optional):
        return _json_kinds(model, type_.inner, seen) | {"null"}
    if isinstance(type_, m.List):
        return {"array"}
    if isinstance(type_, (m.AtomRef, m.InterfaceRef, m.Enum)):
        return {"str"}
    if isinstance(type_, m.Union_):
        kinds: set[str] = set()
        for alternative in type_.alternatives:
            kinds |= _json_kinds(model, alternative, seen)
        return kinds
    return {"object"}


def _hooked(model: m.Model, type_: m.Type) -> bool:
    """Whether values of `type_` are decoded through `hooks.dec_hook` (not a native union)."""
    resolved = resolve_alias(model, type_)
    if isinstance(resolved, m.Primitive):
        return resolved.kind is m.PrimitiveKind.UINT64
    if isinstance(resolved, m.Optional):
        return _hooked(model, resolved.inner)
    if isinstance(resolved, m.Variant):
        return resolved.open or any(case.tag is None for case in resolved.cases)
    if isinstance(resolved, m.Union_):
        return not _native_union(model, resolved)
    return False


def _native_union(model: m.Model, union: m.Union_) -> bool:
    seen: set[str] = set()
    for alternative in union.alternatives:
        if _hooked(model, alternative):
            return False
        kinds = _json_kinds(model, alternative)
        if "any" in kinds or kinds & seen:
            return False
        seen |= kinds
    return True


# -- building -------------------------------------------------------------------------------


class _ModuleContext:
    """Type expressions for one module, recording what they import."""

    def __init__(self, builder: _Builder, module: ModuleView) -> None:
        self.builder = builder
        self.module = module
        self.depends: set[str] = set()

    def use(self, name: str, module: str) -> str:
        if module != self.module.name:
            self.module.imports[name] = module
        self.depends.add(name)
        return name

    def expr(self, type_: m.Type) -> str:
        builder = self.builder
        if isinstance(type_, m.Primitive):
            alias = _INTEGER_ALIASES.get(type_.kind)
            if alias is not None:
                low, high = type_.kind.integer_range or (0, 0)
                self.module.uses_typing = True
                if type_.kind is m.PrimitiveKind.UINT64:
                    # msgspec cannot bound integers beyond int64: the hooks check uint64.
                    self.module.uses_hooks = True
                    self.module.integer_aliases[alias] = (
                        f"if typing.TYPE_CHECKING:\n    {alias} = int\n"
                        f"else:\n    {alias} = _hooks.UInt64"
                    )
                else:
                    self.module.uses_msgspec = True
                    self.module.integer_aliases[alias] = alias + " = " + bracket(
                        "typing.Annotated[",
                        ["int", f"msgspec.Meta(ge={low}, le={high})"],
                        "]",
                        0,
                        len(alias) + 3,
                    )
                return alias
            if type_.kind is m.PrimitiveKind.JSON:
                self.module.uses_hooks = True
            return _SIMPLE[type_.kind]
        if isinstance(type_, m.Optional):
            inner = self.expr(type_.inner)
            if inner == "None" or inner.endswith(" | None"):
                return inner
            return f"{inner} | None"
        if isinstance(type_, m.List):
            return f"list[{self.expr(type_.inner)}]"
        if isinstance(type_, m.Map):
            return f"dict[str, {self.expr(type_.value)}]"
        if isinstance(type_, m.AtomRef):
            return self.use(naming.ref_name(type_.atom), REFS_MODULE)
        if isinstance(type_, m.InterfaceRef):
            return self.use(naming.ref_name(type_.interface), REFS_MODULE)
        if isinstance(type_, m.TypeRef):
            return self.use(naming.declared_name(type_.name), TYPES_MODULE)
        name, module = builder.namer.inline[id(type_)]
        return self.use(name, module)


class _Builder:
    def __init__(self, model: m.Model, package: str, diagnostics: _Diagnostics) -> None:
        self.model = model
        self.package = package
        self.diagnostics = diagnostics
        self.namer = _Namer(model, diagnostics)
        self.modules: dict[str, ModuleView] = {}
        #: record class name → union base classes it must derive from
        self.extra_bases: dict[str, list[str]] = {}

    def module(self, name: str, doc: str) -> ModuleView:
        view = self.modules.get(name)
        if view is None:
            view = self.modules[name] = ModuleView(name, doc)
        return view

    # -- records and other type definitions --

    def field_view(self, ctx: _ModuleContext, owner: str, field_: m.Field) -> FieldView:
        attribute = naming.attribute_name(field_.name)
        annotation = ctx.expr(field_.type)
        optional = annotation.endswith("| None") or annotation == "None"
        literal: str | None = None
        factory = False
        if field_.default is not None:
            literal, factory = self.literal(ctx, field_.type, field_.default)
        elif optional:
            literal = "None"
        keywords = []
        if factory:
            keywords.append("default_factory=list")
        elif literal is not None and attribute != field_.name:
            keywords.append(f"default={literal}")
        if attribute != field_.name:
            keywords.append(f"name={python_string(field_.name)}")
        default: str | None = literal
        if keywords:
            ctx.module.uses_msgspec = True
            default = bracket(
                "msgspec.field(", keywords, ")", 4, 4 + len(attribute) + len(annotation) + 5
            )
        return FieldView(
            attribute=attribute,
            annotation=annotation,
            default=default,
            argument_default=None if factory else literal,
            doc=docstring(field_.doc, 4),
            wire=field_.name,
        )

    def literal(self, ctx: _ModuleContext, type_: m.Type, literal: m.Literal) -> tuple[str, bool]:
        """The Python expression of a field default, and whether it is a list factory."""
        value = literal.value
        if value == ():
            return "[]", True
        resolved = resolve_alias(self.model, type_)
        while isinstance(resolved, m.Optional):
            resolved = resolve_alias(self.model, resolved.inner)
        if isinstance(resolved, m.Enum) and isinstance(value, str):
            enum_class = ctx.expr(_strip_optional(self.model, type_))
            for enum_value in resolved.values:
                if enum_value.value == value:
                    return f"{enum_class}.{naming.enum_attribute_name(value)}", False
            return f"{enum_class}({python_string(value)})", False
        if isinstance(value, bool):
            return ("True" if value else "False"), False
        if isinstance(value, int):
            if isinstance(resolved, m.Primitive) and resolved.kind is m.PrimitiveKind.FLOAT64:
                return f"{value}.0", False
            return str(value), False
        if isinstance(value, float):
            if not math.isfinite(value):
                return f"float({python_string(repr(value))})", False
            return repr(value), False
        assert isinstance(value, str)
        return python_string(value), False

    def struct_header(
        self, name: str, bases: list[str], extra: list[str]
    ) -> str:
        items = [*bases, "kw_only=True", "omit_defaults=True", *extra]
        return bracket(f"class {name}(", items, "):", 0)

    def record_class(
        self,
        ctx: _ModuleContext,
        name: str,
        record: m.Record | None,
        doc: str | None,
        *,
        bases: list[str] | None = None,
        extra: list[str] | None = None,
        after: tuple[str, ...] = (),
    ) -> ClassView:
        ctx.module.uses_msgspec = True
        own_bases = bases if bases is not None else ["msgspec.Struct"]
        own_bases = own_bases + self.extra_bases.get(name, [])
        body: list[str] = []
        if record is not None:
            attributes: dict[str, m.Field] = {}
            for field_ in record.fields:
                view = self.field_view(ctx, name, field_)
                self.check_attribute(name, view.attribute, field_, attributes)
                body.append(view.line if view.doc is None else f"{view.line}\n    {view.doc}")
        return ClassView(
            name,
            self.struct_header(name, own_bases, extra or []),
            docstring(doc, 4),
            body,
            after=after + tuple(self.extra_bases.get(name, [])),
        )

    def check_attribute(
        self, owner: str, attribute: str, field_: m.Field, seen: dict[str, m.Field]
    ) -> None:
        first = seen.get(attribute)
        if attribute.startswith("__"):
            self.diagnostics.add(
                codes.RESERVED_GENERATED_NAME,
                f"field `{field_.name}` of `{owner}` would be the attribute `{attribute}`, "
                "which Python reserves",
                field_.span,
                help="rename the field",
            )
        elif first is not None:
            self.diagnostics.add(
                codes.GENERATED_NAME_COLLISION,
                f"fields `{first.name}` and `{field_.name}` of `{owner}` would both be the "
                f"attribute `{attribute}`",
                field_.span,
                help="rename one of the fields",
                related=(Related(f"`{first.name}` is here", first.span),),
            )
        seen[attribute] = field_

    def define(self, module: ModuleView, type_: m.Type, name: str, doc: str | None) -> None:
        """Emit the definition of named type `type_` (a typedef, or an inline type) into `module`."""
        ctx = _ModuleContext(self, module)
        if isinstance(type_, m.Record):
            module.classes.append(self.record_class(ctx, name, type_, doc))
            module.public.append(name)
        elif isinstance(type_, m.Enum):
            module.uses_enum = True
            base = "_hooks.OpenEnum" if type_.open else "enum.Enum"
            module.uses_hooks |= type_.open
            body = []
            members: dict[str, m.EnumValue] = {}
            for value in type_.values:
                member = naming.enum_attribute_name(value.value)
                first = members.get(member)
                if first is not None:
                    self.diagnostics.add(
                        codes.GENERATED_NAME_COLLISION
                        if first is not None
                        else codes.RESERVED_GENERATED_NAME,
                        f"enum value {value.value!r} of `{name}` would be the member `{member}`"
                        + (f", like {first.value!r}" if first is not None else ""),
                        value.span,
                        help="rename the value",
                    )
                members[member] = value
                line = f"{member} = {python_string(value.value)}"
                doc_text = docstring(value.doc, 4)
                body.append(line if doc_text is None else f"{line}\n    {doc_text}")
            module.classes.append(
                ClassView(name, f"class {name}({base}):", docstring(doc, 4), body, kind="enum")
            )
            module.public.append(name)
        elif isinstance(type_, m.Variant):
            self.define_variant(ctx, type_, name, doc)
        elif isinstance(type_, m.Union_):
            self.define_union(ctx, type_, name, doc)
        else:
            expression = ctx.expr(type_)
            module.uses_typing = True
            module.aliases.append(
                AliasView(
                    name, expression, None, docstring(doc, 0), frozenset(ctx.depends), type_.span
                )
            )
            module.public.append(name)

    def define_variant(
        self, ctx: _ModuleContext, variant: m.Variant, name: str, doc: str | None
    ) -> None:
        module = ctx.module
        hooked = _hooked(self.model, variant)
        base = f"_{name}Base"
        tag_field = python_string(variant.tag_field)
        cases: list[tuple[str | None, str]] = []
        for case in variant.cases:
            case_name = naming.case_class_name(name, case.tag)
            cases.append((case.tag, case_name))
            extra = [] if case.tag is None else [f"tag_field={tag_field}", f"tag={python_string(case.tag)}"]
            marker = [base] if hooked else []
            if isinstance(case.type, m.Record):
                view = self.record_class(
                    ctx, case_name, case.type, case.doc,
                    bases=["msgspec.Struct", *marker], extra=extra, after=tuple(marker),
                )
            elif isinstance(case.type, m.TypeRef) and _is_record(self.model, case.type):
                record_class = ctx.expr(case.type)
                view = self.record_class(
                    ctx, case_name, None, case.doc,
                    bases=[record_class, *marker], extra=extra,
                    after=(record_class, *marker),
                )
            else:
                view = self.record_class(
                    ctx, case_name, None, case.doc,
                    bases=["msgspec.Struct", *marker], extra=extra, after=tuple(marker),
                )
            module.classes.append(view)
            module.public.append(case_name)
        alternatives = [case_name for _, case_name in cases]
        module.uses_typing = True
        if not hooked:
            module.aliases.append(
                AliasView(
                    name,
                    " | ".join(alternatives),
                    None,
                    docstring(doc, 0),
                    frozenset(alternatives),
                )
            )
            module.public.append(name)
            return
        module.uses_hooks = True
        module.classes.append(
            ClassView(base, f"class {base}(_hooks.VariantBase):", None, ["__slots__ = ()"], kind="marker")
        )
        unknown = "None"
        if variant.open:
            unknown = naming.unknown_case_class_name(name)
            alternatives.append(unknown)
            module.classes.append(
                ClassView(
                    unknown,
                    f"class {unknown}(_hooks.UnknownCase, {base}):",
                    docstring(
                        None, 4, note=f"A case of `{name}` with a tag this version does not know."
                    ),
                    ["__slots__ = ()"],
                    after=(base,),
                    kind="record",
                )
            )
            module.public.append(unknown)
        default = next((case_name for tag, case_name in cases if tag is None), "None")
        tagged = [
            f"{python_string(tag)}: {case_name}" for tag, case_name in cases if tag is not None
        ]
        prefix = f"{base}.__idlc_variant__ = "
        info = bracket(
            "_hooks.VariantInfo(",
            [
                f"tag_field={tag_field}",
                bracket("cases={", tagged, "}", 4, item=True),
                f"default={default}",
                f"unknown={unknown}",
            ],
            ")",
            0,
            len(prefix),
        )
        module.registrations.append(StatementView(prefix + info))
        module.aliases.append(
            AliasView(name, base, " | ".join(alternatives), docstring(doc, 0), frozenset())
        )
        module.public.append(name)

    def define_union(
        self, ctx: _ModuleContext, union: m.Union_, name: str, doc: str | None
    ) -> None:
        module = ctx.module
        for index, alternative in enumerate(union.alternatives):
            if isinstance(alternative, (m.Record, m.Enum, m.Variant, m.Union_)):
                self.define(
                    module, alternative, naming.union_alternative_name(name, index), None
                )
        expressions = [ctx.expr(alternative) for alternative in union.alternatives]
        module.uses_typing = True
        if _native_union(self.model, union):
            module.aliases.append(
                AliasView(name, " | ".join(expressions), None, docstring(doc, 0), frozenset(ctx.depends))
            )
            module.public.append(name)
            return
        if not all(_is_record(self.model, alternative) for alternative in union.alternatives):
            self.diagnostics.add(
                codes.UNREPRESENTABLE_UNION,
                f"union `{name}` has alternatives msgspec cannot tell apart by their JSON "
                "kind, and not all of them are records",
                union.span,
                help="make every alternative a record, or give each a different JSON kind",
            )
            return
        base = f"_{name}Base"
        module.uses_hooks = True
        module.classes.append(
            ClassView(base, f"class {base}(_hooks.UnionBase):", None, ["__slots__ = ()"], kind="marker")
        )
        prefix = f"{base}.__idlc_union__ = "
        alternatives = bracket(
            "alternatives=(", expressions, ")", 4, item=True
        )
        info = bracket("_hooks.UnionInfo(", [alternatives], ")", 0, len(prefix))
        module.registrations.append(StatementView(prefix + info))
        module.aliases.append(
            AliasView(name, base, " | ".join(expressions), docstring(doc, 0), frozenset())
        )
        module.public.append(name)

    def add_union_base(self, alternative: m.Type, base: str, module: str) -> None:
        # The alternative's record class must derive from the union's base (the hook's result
        # has to be an instance of the annotated class). It may live in another module.
        target = alternative
        while isinstance(target, m.TypeRef) and not isinstance(
            self.model.typedefs[target.name].type, m.Record
        ):
            target = self.model.typedefs[target.name].type
        if isinstance(target, m.TypeRef):
            class_name, class_module = naming.declared_name(target.name), TYPES_MODULE
        else:
            class_name, class_module = self.namer.inline[id(target)]
        if class_module != module:
            self.diagnostics.add(
                codes.UNREPRESENTABLE_UNION,
                f"union `{base[1:-4]}` in module `{module}` has the record `{class_name}` of "
                f"module `{class_module}` as an alternative",
                alternative.span,
                help="declare the union as a named type",
            )
            return
        self.extra_bases.setdefault(class_name, []).append(base)

    # -- the walk --

    def inline_types(self, type_: m.Type) -> Iterator[m.Record | m.Enum | m.Variant | m.Union_]:
        """The inline types directly inside `type_` that need their own definition."""
        if isinstance(type_, (m.Record, m.Enum, m.Variant, m.Union_)):
            yield type_
            return
        if isinstance(type_, (m.Optional, m.List)):
            yield from self.inline_types(type_.inner)
        elif isinstance(type_, m.Map):
            yield from self.inline_types(type_.value)

    def nested(self, type_: m.Type) -> Iterator[m.Record | m.Enum | m.Variant | m.Union_]:
        """Every inline type inside a definition (its fields, cases), recursively."""
        if isinstance(type_, m.Record):
            fields = type_.fields
        elif isinstance(type_, m.Variant):
            fields = tuple(
                field_
                for case in type_.cases
                if isinstance(case.type, m.Record)
                for field_ in case.type.fields
            )
        elif isinstance(type_, m.Union_):
            fields = ()
            for alternative in type_.alternatives:
                if not isinstance(alternative, (m.Record, m.Enum, m.Variant, m.Union_)):
                    for inner in self.inline_types(alternative):
                        yield inner
                        yield from self.nested(inner)
                else:
                    # Defined by define_union itself; its own insides follow.
                    yield from self.nested(alternative)
        else:
            fields = ()
        for field_ in fields:
            for inner in self.inline_types(field_.type):
                yield inner
                yield from self.nested(inner)

    def define_tree(self, module: ModuleView, type_: m.Type, name: str, doc: str | None) -> None:
        self.define(module, type_, name, doc)
        if not isinstance(type_, (m.Record, m.Enum, m.Variant, m.Union_)):
            # An alias (list, map, optional): the inline types inside it are defined here.
            for inner in self.inline_types(type_):
                inner_name, _ = self.namer.inline[id(inner)]
                self.define_tree(module, inner, inner_name, None)
            return
        for inner in self.nested(type_):
            inner_name, _ = self.namer.inline[id(inner)]
            self.define(module, inner, inner_name, None)

    def collect_union_bases(self) -> None:
        """Union bases must be known before the record classes they apply to are built."""
        pending: list[tuple[m.Union_, str, str]] = []
        for typedef in self.model.typedefs.values():
            if isinstance(typedef.type, (m.Record, m.Enum, m.Variant, m.Union_)):
                pending.extend(
                    self._unions_in(typedef.type, naming.declared_name(typedef.name), TYPES_MODULE)
                )
                continue
            for inner in self.inline_types(typedef.type):
                pending.extend(
                    self._unions_in(inner, self.namer.inline[id(inner)][0], TYPES_MODULE)
                )
        for interface in self.model.interfaces.values():
            module = naming.interface_module_name(interface.name)
            for member in interface.members:
                types: list[m.Type] = []
                if isinstance(member, m.Operation):
                    types = [member.input, member.output]
                elif isinstance(member, m.Value):
                    types = [member.type]
                for type_ in types:
                    for inner in self.inline_types(type_):
                        pending.extend(self._unions_in(inner, self.namer.inline[id(inner)][0], module))
        for union, name, module in pending:
            if _native_union(self.model, union):
                continue
            if not all(_is_record(self.model, alternative) for alternative in union.alternatives):
                continue
            for alternative in union.alternatives:
                self.add_union_base(alternative, f"_{name}Base", module)

    def _unions_in(self, type_: m.Type, name: str, module: str) -> list[tuple[m.Union_, str, str]]:
        found = []
        candidates = [type_, *self.nested(type_)]
        for candidate in candidates:
            if isinstance(candidate, m.Union_):
                candidate_name = name if candidate is type_ else self.namer.inline[id(candidate)][0]
                found.append((candidate, candidate_name, module))
        return found


def _strip_optional(model: m.Model, type_: m.Type) -> m.Type:
    while isinstance(type_, m.Optional):
        type_ = type_.inner
    return type_


# -- interfaces -----------------------------------------------------------------------------

_EXECUTION = {
    m.Execution.SNAPSHOT: "_rt.Execution.SNAPSHOT",
    m.Execution.TRANSACTION: "_rt.Execution.TRANSACTION",
}


def _interface_method(
    builder: _Builder, ctx: _ModuleContext, interface: m.Interface, member: m.Member
) -> MethodView:
    model = builder.model
    name = naming.member_name(member.name)
    wire = python_string(member.binding.id)
    skeleton = naming.declared_name(interface.name)
    if name.startswith("__") or name in PROXY_ATTRIBUTES:
        builder.diagnostics.add(
            codes.RESERVED_GENERATED_NAME,
            f"member `{member.name}` would be the method `{name}`, a name the generated "
            "classes need",
            member.span,
            help="rename the member",
        )
    has_result = not (
        isinstance(member, m.Operation)
        and (member.binding.notify or _is_unit(model, member.output))
    ) and not (isinstance(member, m.Value) and _is_unit(model, member.type))
    parameters = ["self"]
    call_arguments: list[str] = []  # what invoke passes to the member
    proxy_params = "None"
    shape = "_rt.InputShape.UNIT"
    params_type = "None"
    if isinstance(member, m.Value):
        returns = ctx.expr(member.type)
        result_type = returns
    elif isinstance(member, m.Relation):
        target = member.target
        ref = ctx.use(
            naming.ref_name(target.atom if isinstance(target, m.AtomTarget) else target.interface),
            REFS_MODULE,
        )
        if member.cardinality is m.Cardinality.EXACTLY_ONE:
            returns = result_type = ref
        elif member.cardinality is m.Cardinality.OPTIONAL_ONE:
            returns = result_type = f"{ref} | None"
        else:
            returns = f"frozenset[{ref}]"
            result_type = f"_hooks.UniqueSet[{ref}]"
            ctx.module.uses_hooks = True
    else:
        returns = ctx.expr(member.output)
        result_type = returns
        input_type = member.input
        if _is_unit(model, input_type):
            pass
        elif isinstance(input_type, m.Record):
            input_class = ctx.expr(input_type)
            shape = "_rt.InputShape.RECORD"
            params_type = input_class
            parameters.append("*")
            keywords = []
            for field_ in input_type.fields:
                view = builder.field_view(ctx, input_class, field_)
                parameter = f"{view.attribute}: {view.annotation}"
                if view.argument_default is not None:
                    parameter += f" = {view.argument_default}"
                parameters.append(parameter)
                call_arguments.append(f"{view.attribute}=params.{view.attribute}")
                keywords.append(f"{view.attribute}={view.attribute}")
            proxy_params = bracket(
                f"{input_class}(", keywords, ")", 16 if has_result else 12, item=True
            )
        elif _is_object_shaped(model, input_type):
            # A named record or a variant is the params object itself (docs/wire.md).
            annotation = ctx.expr(input_type)
            shape = "_rt.InputShape.RECORD"
            params_type = annotation
            parameters.append(f"input: {annotation}")
            call_arguments.append("params")
            proxy_params = "input"
        else:
            annotation = ctx.expr(input_type)
            wrapper = naming.params_class_name(interface.name, member.name)
            shape = "_rt.InputShape.WRAPPED"
            params_type = wrapper
            parameters.append(f"input: {annotation}")
            call_arguments.append("params.input")
            proxy_params = f"{wrapper}(input=input)"
            ctx.module.uses_msgspec = True
            ctx.module.classes.append(
                ClassView(
                    wrapper,
                    builder.struct_header(wrapper, ["msgspec.Struct"], []),
                    docstring(
                        None,
                        4,
                        note=f"The params of `{member.binding.id}`: its input under `input`.",
                    ),
                    [f"input: {annotation}"],
                )
            )
            ctx.module.public.append(wrapper)
    unit_result = returns == "None"
    signature = bracket(f"async def {name}(", parameters, f") -> {returns}:", 4)
    notify = member.binding.notify
    if notify:
        send = bracket(
            "await self._peer.notify(", [wire, proxy_params, "target=self._target"], ")", 8
        )
    else:
        request = bracket(
            "await self._peer.request(",
            [wire, proxy_params, result_type, "target=self._target"],
            ")",
            8 if unit_result else 12,
            item=not unit_result,
        )
        if unit_result:
            send = request
        else:
            ctx.module.uses_typing = True
            send = bracket("return typing.cast(", [python_string(returns), request], ")", 8)
    invoke_signature = bracket(
        f"async def _invoke_{name}(",
        [f"impl: {skeleton}", f"params: {params_type}"],
        f") -> {returns}:",
        0,
    )
    call = bracket(
        f"{'await' if unit_result else 'return await'} impl.{name}(", call_arguments, ")", 4
    )
    invoke = f"{invoke_signature}\n    {call}"
    table_entry = bracket(
        "_rt.MethodSpec(",
        [
            f"wire={wire}",
            f"member={python_string(name)}",
            f"shape={shape}",
            f"params_type={params_type}",
            f"result_type={result_type}",
            f"invoke=_invoke_{name}",
            "execution="
            + (_EXECUTION[member.binding.execution] if member.binding.execution else "None"),
            f"notify={notify}",
            f"required={member.required}",
        ],
        ")",
        4,
        item=True,
    )
    return MethodView(
        name=name,
        wire=wire,
        doc=docstring(member.doc, 8),
        signature=signature,
        required=member.required,
        notify=notify,
        proxy_body=send,
        invoke=invoke + "\n\x00" + table_entry,
    )


def build_interface(builder: _Builder, interface: m.Interface) -> None:
    module_name = naming.interface_module_name(interface.name)
    module = builder.module(
        module_name, f"The `{interface.name}` interface: skeleton, proxy and dispatch table."
    )
    ctx = _ModuleContext(builder, module)
    module.uses_runtime = module.uses_abc = module.uses_typing = True
    for member in interface.members:
        types: list[m.Type] = []
        if isinstance(member, m.Operation):
            types = [member.input, member.output]
        elif isinstance(member, m.Value):
            types = [member.type]
        for type_ in types:
            for inner in builder.inline_types(type_):
                inner_name, _ = builder.namer.inline[id(inner)]
                builder.define_tree(module, inner, inner_name, None)
    methods = [_interface_method(builder, ctx, interface, member) for member in interface.members]
    entries = []
    for method in methods:
        method.invoke, entry = method.invoke.split("\n\x00")
        entries.append(entry)
    name = naming.declared_name(interface.name)
    table = bracket("_METHODS = (", entries, ")", 0)
    prefix = name + ".__idlc_interface__ = "
    table += "\n" + prefix + bracket(
        "_rt.InterfaceSpec(",
        [
            f"name={python_string(interface.name)}",
            f"id={python_string(interface.id)}",
            f"revision={python_string(interface.revision)}",
            "methods={method.wire: method for method in _METHODS}",
            f"skeleton={name}",
        ],
        ")",
        0,
        len(prefix),
    )
    module.interface = InterfaceView(
        name=name,
        proxy=naming.proxy_name(interface.name),
        doc=docstring(interface.doc, 4),
        id_literal=python_string(interface.id),
        revision_literal=python_string(interface.revision),
        methods=methods,
        spec_table=table,
    )
    module.public.extend([name, naming.proxy_name(interface.name)])


def build(model: m.Model, package: str) -> tuple[PackageView, list[Diagnostic]]:
    """The view of the whole generated package, and the problems found on the way."""
    diagnostics = _Diagnostics()
    builder = _Builder(model, package, diagnostics)
    builder.namer.run()
    builder.collect_union_bases()
    refs = builder.module(REFS_MODULE, "Reference types: one distinct string type per atom and interface.")
    for atom in model.atoms.values():
        refs.aliases.append(
            AliasView(
                naming.ref_name(atom.name),
                python_string(naming.ref_name(atom.name)),
                None,
                docstring(
                    atom.doc,
                    0,
                    note=f"A reference to an `{atom.name}` (atom `{atom.id}`).",
                ),
                frozenset(),
            )
        )
        refs.public.append(naming.ref_name(atom.name))
    for interface_name, _ in _all_interfaces(model):
        interface = model.interfaces.get(interface_name)
        refs.aliases.append(
            AliasView(
                naming.ref_name(interface_name),
                python_string(naming.ref_name(interface_name)),
                None,
                docstring(
                    None,
                    0,
                    note=f"A reference to an object implementing `{interface_name}`"
                    + (f" (`{interface.id}`)." if interface is not None else " (imported)."),
                ),
                frozenset(),
            )
        )
        refs.public.append(naming.ref_name(interface_name))
    refs.uses_typing = True
    types = builder.module(TYPES_MODULE, "The types of the IDL: records, enums, variants, unions, aliases.")
    for typedef in model.typedefs.values():
        builder.define_tree(types, typedef.type, naming.declared_name(typedef.name), typedef.doc)
    for interface in model.interfaces.values():
        build_interface(builder, interface)
    for module in builder.modules.values():
        _check_alias_cycles(module, diagnostics)
    modules = [builder.modules[REFS_MODULE], builder.modules[TYPES_MODULE]]
    modules += [view for key, view in builder.modules.items() if key not in (REFS_MODULE, TYPES_MODULE)]
    init_imports = []
    all_names: list[str] = []
    for module in modules:
        if module.public:
            names = sorted(module.public)
            all_names.extend(names)
            init_imports.append(
                _unparenthesize_import(bracket(f"from .{module.name} import (", names, ")", 0))
            )
    return PackageView(modules, init_imports, sorted(all_names)), diagnostics.items


def _check_alias_cycles(module: ModuleView, diagnostics: _Diagnostics) -> None:
    aliases = {alias.name: alias for alias in module.aliases if alias.typing_expression is None}
    for name, alias in aliases.items():
        if name in _reaches(aliases, name):
            diagnostics.add(
                codes.RECURSIVE_ALIAS,
                f"type `{name}` refers to itself through aliases, lists, maps or optionals only",
                alias.span,
                help="put a record between: Python type aliases cannot be recursive here",
            )


def _reaches(aliases: dict[str, AliasView], start: str) -> set[str]:
    seen: set[str] = set()
    stack = [dep for dep in aliases[start].depends if dep in aliases]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(dep for dep in aliases[name].depends if dep in aliases)
    return seen
