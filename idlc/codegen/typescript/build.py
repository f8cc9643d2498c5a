"""The TypeScript plan → view models: per module, what it defines and what it imports."""

from __future__ import annotations

from collections.abc import Iterable

from idlc.codegen.typescript.expressions import uses, uses_json
from idlc.nodes import field, node
from idlc.targets.typescript import naming
from idlc.targets.typescript.plan import (
    AliasPlan,
    AtomPlan,
    Definition,
    EnumPlan,
    FieldPlan,
    InterfacePlan,
    Named,
    Plan,
    RecordPlan,
    RefPlan,
    TsType,
    UnionPlan,
    VariantPlan,
)


@node
class ImportView:
    source: str  # "./_types.js"
    names: tuple[str, ...]  # as written in the braces: `type Foo`, `FooCodec`


@node(frozen=False)
class ModuleView:
    name: str  # without `.ts`
    doc: str
    runtime: tuple[str, ...] = ()  # the names imported from @idlc/runtime
    imports: list[ImportView] = field(default_factory=list)
    refs: list[RefPlan] = field(default_factory=list)
    atoms: list[AtomPlan] = field(default_factory=list)
    #: The runtime API the package requires, checked by the module evaluated first
    #: (`_refs`) before anything else (`requireApi` of @idlc/runtime); None elsewhere.
    require_api: int | None = None
    definitions: list[Definition] = field(default_factory=list)
    interface: InterfacePlan | None = None


@node(frozen=False)
class PackageView:
    name: str
    runtime_range: str
    modules: list[ModuleView]


#: The runtime API the templates write against (`API_VERSION` of runtime-ts/src/contract.ts),
#: which each generated package requires of its runtime when it is loaded. Raised with the
#: templates when they use something of the runtime that is new.
RUNTIME_API = 1


def build(plan: Plan, package: str, runtime_range: str) -> PackageView:
    refs = ModuleView(
        naming.REFS_MODULE,
        "Reference types: one branded string type per atom and interface, and the atoms.",
        refs=plan.refs,
        atoms=plan.atoms,
        require_api=RUNTIME_API,
    )
    refs.runtime = (
        ("codec as $c", "requireApi as $requireApi")
        if plan.refs
        else ("requireApi as $requireApi",)
    )
    types = ModuleView(
        naming.TYPES_MODULE,
        "The named types: records, enums, variants, unions and aliases, each with its codec.",
        definitions=plan.definitions,
    )
    _imports(types, _types_of(plan.definitions))
    modules = [refs, types]
    for interface in plan.interfaces:
        module = ModuleView(
            interface.module,
            f"Interface `{interface.name}`: its inline types, the skeleton and the proxy.",
            definitions=list(interface.definitions),
            interface=interface,
        )
        used = list(_types_of(interface.definitions))
        for method in interface.methods:
            if method.input is not None:
                used.append(method.input)
            used.append(method.output)
        _imports(module, used, interface=interface)
        modules.append(module)
    return PackageView(package, runtime_range, modules)


def _imports(
    module: ModuleView, types: Iterable[TsType], *, interface: InterfacePlan | None = None
) -> None:
    by_module: dict[str, dict[str, None]] = {}
    json = False
    types = list(types)
    for type_ in types:
        json = json or uses_json(type_)
        for named in uses(type_):
            if named.module != module.name:
                names = by_module.setdefault(named.module, {})
                names[f"type {named.name}"] = None
                names[named.codec] = None
    for source in (naming.REFS_MODULE, naming.TYPES_MODULE):
        if source in by_module:
            module.imports.append(ImportView(f"./{source}.js", tuple(by_module[source])))
    runtime = []
    methods = interface.methods if interface is not None else ()
    if module.definitions or methods:
        runtime.append("codec as $c")
    if json:
        runtime.append("type JsonValue as $JsonValue")
    if methods:
        runtime += ["type CallContext as $CallContext", "type CallOptions as $CallOptions"]
    if interface is not None:
        runtime += ["type Caller as $Caller", "type InterfaceSpec as $InterfaceSpec"]
    if any(not method.required for method in methods):
        runtime.append("Unsupported as $Unsupported")
    module.runtime = tuple(runtime)


def _types_of(definitions: Iterable[Definition]) -> Iterable[TsType]:
    for definition in definitions:
        match definition:
            case RecordPlan():
                yield from _field_types(definition.fields)
            case EnumPlan():
                pass
            case VariantPlan():
                yield from _field_types(definition.shared)
                for case in (*definition.cases, definition.default):
                    if case is not None and case.type is not None:
                        yield case.type
                if definition.unknown is not None:
                    yield definition.unknown
            case UnionPlan():
                yield from definition.alternatives
            case AliasPlan():
                yield definition.type


def _field_types(fields: Iterable[FieldPlan]) -> Iterable[TsType]:
    for field_ in fields:
        yield field_.type


__all__ = ["ModuleView", "Named", "PackageView", "build"]
