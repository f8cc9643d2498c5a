"""Code generation for the TypeScript target: the TypeScript plan → view models → the
Jinja2 templates of `templates/typescript/` → the package's files as text
(docs/typescript-mapping.md).

`generate(model, package)` makes the plan (`idlc.targets.typescript.mapping`) and renders
it: `index.ts`, `_refs.ts`, `_types.ts`, one module per interface and `package.json`. As
for Python, nothing is written here (`idlc.output` writes and checks), and a package with an
error diagnostic has no files.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from idlc.semantics.model import Model

if TYPE_CHECKING:
    from idlc.codegen import GeneratedPackage
    from idlc.targets.typescript.plan import Plan

__all__ = ["generate"]

#: The `@idlc/runtime` versions a generated package.json accepts.
RUNTIME_RANGE = "^0.1.0"


def generate(
    model: Model,
    package: str,
    *,
    source_names: Sequence[str] | None = None,
    plan: Plan | None = None,
) -> GeneratedPackage:
    """The TypeScript package `package` for `model` (files empty on any error)."""
    from idlc.codegen import GeneratedPackage
    from idlc.codegen.provenance import source_names as names_of
    from idlc.codegen.typescript.build import build
    from idlc.codegen.typescript.render import render
    from idlc.diagnostics import Diagnostics
    from idlc.targets.typescript.mapping import plan as make_plan

    if source_names is None:
        source_names = names_of(model.sources)
    diagnostics = Diagnostics()
    if plan is None:
        plan = make_plan(model, diagnostics)
    found = tuple(diagnostics.items)
    if any(diagnostic.is_error for diagnostic in found):
        return GeneratedPackage(package, {}, found)
    view = build(plan, package, RUNTIME_RANGE)
    return GeneratedPackage(package, render(view, source_names), found)
