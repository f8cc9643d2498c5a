"""From the resolved model to view models: every name, type expression and import decided.

1. The Python target's mapping stage (`idlc.targets.python.map_model`) gives every type
   that needs a class a Python name and a module (typedefs and the inline types inside
   them go to `_types`; inline types of an interface's members go to that interface's
   module) and reports every name clash and every shape Python cannot express. The
   pipeline runs the same stage, so `idlc check` has already reported them; `generate`
   writes nothing when there is one, and takes the pipeline's plan (`Compilation.plan`)
   rather than making it twice.
2. `TypeBuilder` (`build_types`) turns declarations into class and alias views,
   `build_interface` interfaces into skeleton, proxy and dispatch-table views; type
   expressions record every name they use from another module as an import.
3. Each module's definitions are put in the order Python needs (`idlc.codegen.order`).
4. Each proxy method learns whether its result is a union for mypy (`_is_union`), which
   takes every alias of the package; then each module's imports are read from what it
   holds (`idlc.codegen.uses`).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from idlc.codegen.articles import indefinite_article
from idlc.codegen.build_interfaces import build_interface
from idlc.codegen.build_types import TypeBuilder
from idlc.codegen.order import dependencies_first
from idlc.codegen.typeexpr import TypeExpr
from idlc.codegen.uses import uses_of
from idlc.codegen.views import (
    AliasView,
    ClassView,
    Doc,
    ImportView,
    ModuleView,
    PackageView,
    RefView,
)
from idlc.diagnostics import Diagnostic, Diagnostics
from idlc.semantics import model as m
from idlc.targets import python
from idlc.targets.python import mapping as python_mapping
from idlc.targets.python.mapping import ATOMS, REFS_MODULE, TYPES_MODULE, all_interfaces
from idlc.targets.python.overlay import Overlay

#: The runtime API the templates write against (`idlc_runtime.contract.API_VERSION`), which
#: each generated package requires of its runtime when it is imported. Raised with the
#: templates when they use something of the runtime that is new.
RUNTIME_API = 1

#: Marker bases first (cases derive from them), then enums (defaults name them), then the rest.
_CLASS_GROUP = {"marker": 0, "enum": 1}


def _in_order(module: ModuleView) -> None:
    classes = sorted(module.classes, key=lambda view: _CLASS_GROUP.get(view.kind, 2))
    module.classes = dependencies_first(classes, _class_name, _class_needs)
    module.aliases = dependencies_first(module.aliases, _alias_name, _alias_needs)


def _class_name(view: ClassView) -> str:
    return view.name


def _class_needs(view: ClassView) -> tuple[str, ...]:
    return view.after


def _alias_name(view: AliasView) -> str:
    return view.name


def _alias_needs(view: AliasView) -> list[str]:
    return sorted(view.depends)


def _is_union(expression: TypeExpr, aliases: dict[str, AliasView]) -> bool:
    """Whether mypy reads `expression` as a union (`X | None`, or an alias of one or of
    several alternatives), which is no class a `type[T]` parameter takes."""
    while True:
        if expression.optional:
            return True
        alias = aliases.get(expression.name)
        if alias is None or expression.args:
            return False
        if len(alias.alternatives) != 1:
            return True
        expression = alias.alternatives[0]


def _note_union_results(modules: list[ModuleView], lent: list[ModuleView]) -> None:
    aliases = {alias.name: alias for module in (*modules, *lent) for alias in module.aliases}
    for module in modules:
        if module.interface is not None:
            for method in module.interface.methods:
                method.result_is_union = _is_union(method.result_type, aliases)


def _refs_module(model: m.Model, plan: python_mapping.Plan) -> ModuleView:
    refs = ModuleView(
        REFS_MODULE, "Reference types: one distinct string type per atom and interface."
    )
    for atom in model.atoms.values():
        article = indefinite_article(atom.name)
        note = f"A reference to {article} `{atom.name}` (atom `{atom.id}`)."
        refs.refs.append(RefView(plan.refs[atom.name], Doc(atom.doc, note)))
        refs.public.append(plan.refs[atom.name])
        refs.atoms.append((atom.name, atom.id))
    refs.public.append(ATOMS)
    for interface_name, _ in all_interfaces(model):
        interface = model.interfaces.get(interface_name)
        where = f"(`{interface.id}`)." if interface is not None else "(imported)."
        note = f"A reference to an object implementing `{interface_name}` {where}"
        refs.refs.append(RefView(plan.refs[interface_name], Doc(None, note)))
        refs.public.append(plan.refs[interface_name])
    return refs


def _lent(
    model: m.Model,
    plan: python_mapping.Plan,
    base: Overlay,
    borrowed: dict[str, str],
) -> list[ModuleView]:
    """The modules of what the package borrows (all `base` does not say it defines), built
    as the stable package has them (the same names: the plan names a declaration alike in
    every view), and every name of them entered in `borrowed` with the stable package's
    module it is imported from."""
    builder = TypeBuilder(plan)
    types = ModuleView(TYPES_MODULE, "")
    for typedef in model.typedefs.values():
        if typedef.name not in base.typedefs:
            builder.define_all(types, plan.typedef_definitions[typedef.name])
    refs = ModuleView(REFS_MODULE, "")
    refs.public = [plan.refs[name] for name in base.stable_refs if name in plan.refs]
    lent = [refs, types]
    for interface in model.interfaces.values():
        if interface.name not in base.interfaces:
            module = ModuleView(plan.interfaces[interface.name].module, "")
            build_interface(builder, module, interface)
            lent.append(module)
    for module in lent:
        for view in module.classes:
            borrowed[view.name] = f"{base.package}.{module.name}"
        for alias in module.aliases:
            borrowed[alias.name] = f"{base.package}.{module.name}"
        for name in module.public:
            borrowed[name] = f"{base.package}.{module.name}"
    return lent


def build(
    model: m.Model,
    package: str,
    plan: python_mapping.Plan | None = None,
    base: Overlay | None = None,
) -> tuple[PackageView, list[Diagnostic]]:
    """The view of the whole generated package, and the problems found on the way.

    `plan`: the model's plan as the pipeline made it (without errors: it reported them);
    None, or a plan without the facts code generation reads (`Plan.has_facts`: a
    `compile_files(…, plan_facts=False)`'s), to run the mapping stage here. `base`: for a
    package of unstable features, what it defines itself and the stable package it imports
    the rest from (the mapping's `idlc.targets.python.overlay`).
    """
    diagnostics = Diagnostics()
    if plan is None or not plan.has_facts:
        plan = python.map_model(model, diagnostics)
    if plan is None or diagnostics.has_errors:
        return PackageView([], [], [], RUNTIME_API), diagnostics.items
    borrowed: dict[str, str] = {}
    #: the modules of the stable package as they would be built: what is borrowed
    lent: list[ModuleView] = []
    #: what the package defines itself: everything, or what the overlay says
    own_typedefs: AbstractSet[str] = model.typedefs.keys()
    own_interfaces: AbstractSet[str] = model.interfaces.keys()
    if base is not None:
        own_typedefs, own_interfaces = base.typedefs, base.interfaces
        lent = _lent(model, plan, base, borrowed)
    builder = TypeBuilder(plan, borrowed)
    types = ModuleView(
        TYPES_MODULE, "The types of the IDL: records, enums, variants, unions, aliases."
    )
    for typedef in model.typedefs.values():
        if typedef.name in own_typedefs:
            builder.define_all(types, plan.typedef_definitions[typedef.name])
    refs = _refs_module(model, plan)
    if base is not None:
        refs.refs = [ref for ref in refs.refs if ref.name not in borrowed]
        refs.public = [name for name in refs.public if name not in borrowed]
    modules = [refs, types]
    for interface in model.interfaces.values():
        if interface.name not in own_interfaces:
            continue
        module = ModuleView(
            plan.interfaces[interface.name].module,
            f"The `{interface.name}` interface: skeleton, proxy and dispatch table.",
        )
        build_interface(builder, module, interface)
        modules.append(module)
    _note_union_results(modules, lent)
    for module in modules:
        module.uses = uses_of(module)
    exports = []
    all_names: list[str] = []
    if base is not None:
        names = sorted({name for module in lent for name in module.public})
        all_names.extend(names)
        exports.append(ImportView(base.package, names))
    for module in modules:
        _in_order(module)
        if module.public:
            names = sorted(module.public)
            all_names.extend(names)
            exports.append(ImportView(module.name, names))
    return PackageView(modules, exports, sorted(all_names), RUNTIME_API), diagnostics.items
