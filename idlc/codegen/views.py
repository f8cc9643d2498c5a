"""From the resolved model to view models: every name, type expression and import decided.

The templates only arrange what is here. The builder walks the model once:

1. `idlc.semantics.python_mapping.plan` gives every type that needs a class a Python name
   and a module (typedefs and the inline types inside them go to `_types`; inline types of
   an interface's members go to that interface's module) and reports every name clash and
   every shape Python cannot express. The resolver runs the same plan, so `idlc check`
   has already reported them; `generate` writes nothing when there is one.
2. `_Builder` turns declarations into definitions (records, enums, case classes, aliases,
   hook registrations) and interfaces into skeleton, proxy and dispatch-table views. Type
   expressions are rendered here, and every name they use from another module is recorded
   as an import of the module being built. It reports nothing itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from idlc import naming
from idlc.codegen import leniency
from idlc.codegen.layout import bracket, docstring, python_string
from idlc.diagnostics import Diagnostic, Diagnostics
from idlc.semantics import model as m
from idlc.semantics import python_mapping, queries
from idlc.semantics.python_mapping import (
    NAMED_KINDS,
    REFS_MODULE,
    TYPES_MODULE,
    all_interfaces,
    hooked,
    is_object_shaped,
    is_record,
    is_unit,
    native_union,
    resolve_alias,
)
from idlc.source import Span

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
    #: `_refs` only: (IDL name, id) of every atom, in declaration order (the `ATOMS` map).
    atoms: list[tuple[str, str]] = field(default_factory=list)

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
            lines.append(
                bracket(f"from .{module} import (", names, ")", 0).replace(
                    "import (", "import (" if len(names) > 1 else "import ("
                )
            )
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
                    self.module.integer_aliases[alias] = (
                        alias
                        + " = "
                        + bracket(
                            "typing.Annotated[",
                            ["int", f"msgspec.Meta(ge={low}, le={high})"],
                            "]",
                            0,
                            len(alias) + 3,
                        )
                    )
                return alias
            if type_.kind is m.PrimitiveKind.JSON:
                self.module.uses_hooks = True
            return _SIMPLE[type_.kind]
        if isinstance(type_, m.Optional):
            inner = self.expr(type_.inner)
            if inner == "None" or inner.endswith(" | None") or _is_none(builder.model, type_.inner):
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
        name, module = builder.plan.inline[id(type_)]
        return self.use(name, module)


class _Builder:
    def __init__(self, model: m.Model, package: str, plan: python_mapping.Plan) -> None:
        self.model = model
        self.package = package
        self.plan = plan
        self.modules: dict[str, ModuleView] = {}
        #: record class name → union base classes it must derive from
        self.extra_bases = plan.union_bases

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
        factory: str | None = None
        if field_.default is not None:
            literal, factory = self.literal(ctx, field_.type, field_.default)
        elif optional:
            literal = "None"
        keywords = []
        if factory is not None:
            keywords.append(f"default_factory={factory}")
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
            argument_default=None if factory is not None else literal,
            doc=docstring(field_.doc, 4),
            wire=field_.name,
        )

    def literal(
        self, ctx: _ModuleContext, type_: m.Type, literal: m.Literal
    ) -> tuple[str, str | None]:
        """The Python expression of a field default, and the factory (`list`, `dict`) that
        makes it when it is a new empty container each time (`[]`)."""
        value = literal.value
        if value == ():
            return "[]", _empty_container(self.model, type_)
        resolved = resolve_alias(self.model, type_)
        while isinstance(resolved, m.Optional):
            resolved = resolve_alias(self.model, resolved.inner)
        if isinstance(resolved, m.Enum) and isinstance(value, str):
            enum_class = ctx.expr(queries.strip_optional(type_))
            for enum_value in resolved.values:
                if enum_value.value == value:
                    return f"{enum_class}.{naming.enum_attribute_name(value)}", None
            return f"{enum_class}({python_string(value)})", None
        if isinstance(value, bool):
            return ("True" if value else "False"), None
        if isinstance(value, int):
            if isinstance(resolved, m.Primitive) and resolved.kind is m.PrimitiveKind.FLOAT64:
                return f"{value}.0", None
            return str(value), None
        if isinstance(value, float):
            if not math.isfinite(value):
                return f"float({python_string(repr(value))})", None
            return repr(value), None
        assert isinstance(value, str)
        return python_string(value), None

    def struct_header(self, name: str, bases: list[str], extra: list[str]) -> str:
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
            for field_ in record.fields:
                view = self.field_view(ctx, name, field_)
                body.append(view.line if view.doc is None else f"{view.line}\n    {view.doc}")
            registration = leniency.registration(name, record)
            if registration is not None:
                ctx.module.uses_hooks = True
                ctx.module.registrations.append(StatementView(registration))
        return ClassView(
            name,
            self.struct_header(name, own_bases, extra or []),
            docstring(doc, 4),
            body,
            after=after + tuple(self.extra_bases.get(name, [])),
        )

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
            for value in type_.values:
                # Unique: the front end reports values with one member name (E0113).
                member = naming.enum_attribute_name(value.value)
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
        is_hooked = hooked(self.model, variant)
        base = f"_{name}Base"
        tag_field = python_string(variant.tag_field)
        cases: list[tuple[str | None, str]] = []
        for case in variant.cases:
            case_name = naming.case_class_name(name, case.tag)
            cases.append((case.tag, case_name))
            extra = (
                []
                if case.tag is None
                else [f"tag_field={tag_field}", f"tag={python_string(case.tag)}"]
            )
            marker = [base] if is_hooked else []
            if isinstance(case.type, m.Record):
                view = self.record_class(
                    ctx,
                    case_name,
                    case.type,
                    case.doc,
                    bases=["msgspec.Struct", *marker],
                    extra=extra,
                    after=tuple(marker),
                )
            elif isinstance(case.type, m.TypeRef) and is_record(self.model, case.type):
                record_class = ctx.expr(case.type)
                view = self.record_class(
                    ctx,
                    case_name,
                    None,
                    case.doc,
                    bases=[record_class, *marker],
                    extra=extra,
                    after=(record_class, *marker),
                )
            else:
                view = self.record_class(
                    ctx,
                    case_name,
                    None,
                    case.doc,
                    bases=["msgspec.Struct", *marker],
                    extra=extra,
                    after=tuple(marker),
                )
            module.classes.append(view)
            module.public.append(case_name)
        alternatives = [case_name for _, case_name in cases]
        module.uses_typing = True
        if not is_hooked:
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
            ClassView(
                base, f"class {base}(_hooks.VariantBase):", None, ["__slots__ = ()"], kind="marker"
            )
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
                self.define(module, alternative, naming.union_alternative_name(name, index), None)
        expressions = [ctx.expr(alternative) for alternative in union.alternatives]
        module.uses_typing = True
        if native_union(self.model, union):
            module.aliases.append(
                AliasView(
                    name, " | ".join(expressions), None, docstring(doc, 0), frozenset(ctx.depends)
                )
            )
            module.public.append(name)
            return
        # The plan reported any other union (E0203): these are all records.
        base = f"_{name}Base"
        module.uses_hooks = True
        module.classes.append(
            ClassView(
                base, f"class {base}(_hooks.UnionBase):", None, ["__slots__ = ()"], kind="marker"
            )
        )
        prefix = f"{base}.__idlc_union__ = "
        alternatives = bracket("alternatives=(", expressions, ")", 4, item=True)
        info = bracket("_hooks.UnionInfo(", [alternatives], ")", 0, len(prefix))
        module.registrations.append(StatementView(prefix + info))
        module.aliases.append(
            AliasView(name, base, " | ".join(expressions), docstring(doc, 0), frozenset())
        )
        module.public.append(name)

    # -- the walk --

    def define_tree(self, module: ModuleView, type_: m.Type, name: str, doc: str | None) -> None:
        self.define(module, type_, name, doc)
        if not isinstance(type_, (m.Record, m.Enum, m.Variant, m.Union_)):
            # An alias (list, map, optional): the inline types inside it are defined here.
            for inner in inline_types(type_):
                inner_name, _ = self.plan.inline[id(inner)]
                self.define_tree(module, inner, inner_name, None)
            return
        for inner in nested(type_):
            inner_name, _ = self.plan.inline[id(inner)]
            self.define(module, inner, inner_name, None)


def inline_types(type_: m.Type) -> Iterator[m.Record | m.Enum | m.Variant | m.Union_]:
    """The inline types directly inside `type_` that need their own definition."""
    if isinstance(type_, NAMED_KINDS):
        yield type_
        return
    if isinstance(type_, (m.Optional, m.List)):
        yield from inline_types(type_.inner)
    elif isinstance(type_, m.Map):
        yield from inline_types(type_.value)


def nested(type_: m.Type) -> Iterator[m.Record | m.Enum | m.Variant | m.Union_]:
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
            if not isinstance(alternative, NAMED_KINDS):
                for inner in inline_types(alternative):
                    yield inner
                    yield from nested(inner)
            else:
                # Defined by the union's own definition; its own insides follow.
                yield from nested(alternative)
    else:
        fields = ()
    for field_ in fields:
        for inner in inline_types(field_.type):
            yield inner
            yield from nested(inner)


def _is_none(model: m.Model, type_: m.Type) -> bool:
    """Whether the Python expression of `type_` is `None` itself (`unit`, or a union of
    nothing else, through aliases): `X | None` would then fail when the module loads."""
    resolved = resolve_alias(model, type_)
    if isinstance(resolved, m.Primitive):
        return resolved.kind is m.PrimitiveKind.UNIT
    if isinstance(resolved, m.Optional):
        return _is_none(model, resolved.inner)
    if isinstance(resolved, m.Union_):
        return all(_is_none(model, alternative) for alternative in resolved.alternatives)
    return False


def _empty_container(model: m.Model, type_: m.Type) -> str:
    """What the default `[]` of a field of `type_` is built with: `dict` for a map (in a
    map, `[]` means empty: docs/language.md, "Records and field defaults"), else `list`.
    In a union, the first alternative that takes `[]` decides, as it does when decoding."""
    resolved = resolve_alias(model, type_)
    while isinstance(resolved, m.Optional):
        resolved = resolve_alias(model, resolved.inner)
    if isinstance(resolved, m.Map):
        return "dict"
    if isinstance(resolved, m.Union_):
        for alternative in resolved.alternatives:
            inner = resolve_alias(model, alternative)
            while isinstance(inner, m.Optional):
                inner = resolve_alias(model, inner.inner)
            if isinstance(inner, (m.List, m.Map, m.Union_)) or (
                isinstance(inner, m.Primitive) and inner.kind is m.PrimitiveKind.JSON
            ):
                return _empty_container(model, alternative)
    return "list"


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
    has_result = not (
        isinstance(member, m.Operation) and (member.binding.notify or is_unit(model, member.output))
    ) and not (isinstance(member, m.Value) and is_unit(model, member.type))
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
        if is_unit(model, input_type):
            pass
        elif isinstance(input_type, m.Record):
            input_class = ctx.expr(input_type)
            shape = "_rt.InputShape.RECORD"
            params_type = input_class
            if input_type.fields:  # a bare `*` with nothing after it is a SyntaxError
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
        elif is_object_shaped(model, input_type):
            # A named record or a variant is the params object itself (docs/wire.md §4).
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
            for inner in inline_types(type_):
                inner_name, _ = builder.plan.inline[id(inner)]
                builder.define_tree(module, inner, inner_name, None)
    methods = [_interface_method(builder, ctx, interface, member) for member in interface.members]
    entries = []
    for method in methods:
        method.invoke, entry = method.invoke.split("\n\x00")
        entries.append(entry)
    name = naming.declared_name(interface.name)
    # An interface without members: mypy cannot infer the type of an empty tuple.
    head = "_METHODS = (" if entries else "_METHODS: tuple[_rt.MethodSpec, ...] = ("
    table = bracket(head, entries, ")", 0)
    prefix = name + ".__idlc_interface__ = "
    table += (
        "\n"
        + prefix
        + bracket(
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
    diagnostics = Diagnostics()
    plan = python_mapping.plan(model, diagnostics)
    if diagnostics.has_errors:
        return PackageView([], [], []), diagnostics.items
    builder = _Builder(model, package, plan)
    refs = builder.module(
        REFS_MODULE, "Reference types: one distinct string type per atom and interface."
    )
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
        refs.atoms.append((atom.name, atom.id))
    refs.public.append(naming.ATOMS)
    for interface_name, _ in all_interfaces(model):
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
    types = builder.module(
        TYPES_MODULE, "The types of the IDL: records, enums, variants, unions, aliases."
    )
    for typedef in model.typedefs.values():
        builder.define_tree(types, typedef.type, naming.declared_name(typedef.name), typedef.doc)
    for interface in model.interfaces.values():
        build_interface(builder, interface)
    modules = [builder.modules[REFS_MODULE], builder.modules[TYPES_MODULE]]
    modules += [
        view for key, view in builder.modules.items() if key not in (REFS_MODULE, TYPES_MODULE)
    ]
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
