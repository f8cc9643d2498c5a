"""Code generation: resolved model → view models → Jinja2 templates → Python package text.

- `build` (with `build_types`, `build_interfaces`, `expressions`, `uses`, `order`) turns
  the Python plan into data: the view models of `views`, whose type expressions are
  `typeexpr.TypeExpr` values. Every Python name and every decision about a type's Python
  form (which definitions a typedef or interface writes and what each is, a case's
  classes, an input's style, a default's form, what a package of features borrows) is the
  plan's (`idlc.targets.python.mapping`); code generation asks the model nothing and tells
  its types apart only in `expressions` (`tests/test_layers.py`);
- `render` runs the templates of `templates/`, which hold the shape of every generated
  construct (`module.py.j2` with `_types.py.j2` and `_interface.py.j2`), with the filters
  of `filters` (`wrap` lays out a bracketed list as black would).

`generate(model, package)` returns every file of the package as text (nothing is written:
`idlc.output` writes, checks and diffs packages on disk), plus the diagnostics of the
Python mapping's plan (`idlc.targets.python.mapping`: two things getting one Python
name, unions msgspec cannot decode). The pipeline runs the same stage, so a model from
`compile_files` never has any; a hand-made model might. When there is an error diagnostic
the package has no files.

Formatting: the templates, `filters` and `layout` write the layout directly, the one black
writes (black costs ~1.4 ms per output line, which would make large schemas slower to
generate than protoc, and an exact pin would keep idlc from installing beside a project's
own black). No formatter runs; tests check the generated files with black as a referee.

Generated packages import only `idlc_runtime`, msgspec and the standard library.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from idlc.diagnostics import Diagnostic
from idlc.gcpause import paused_gc
from idlc.nodes import field, node
from idlc.semantics.model import Model

if TYPE_CHECKING:
    from idlc.targets.python.mapping import Plan
    from idlc.targets.python.overlay import Overlay

__all__ = ["GeneratedPackage", "generate"]


@node
class GeneratedPackage:
    """The files of one generated package, by path relative to the package folder."""

    package: str
    files: dict[str, str] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def has_errors(self) -> bool:
        return any(diagnostic.is_error for diagnostic in self.diagnostics)


def generate(
    model: Model,
    package: str,
    *,
    source_names: Sequence[str] | None = None,
    plan: Plan | None = None,
    base: Overlay | None = None,
) -> GeneratedPackage:
    """Generate the Python package `package` for `model` (files empty on any error).

    `source_names` are the IDL files as the modules' headers name them; by default
    `idlc.codegen.provenance.source_names(model.sources)`, relative to the project.
    `plan` is the Python mapping's plan of `model` as `compile_files` made it
    (`Compilation.plan`: it has no errors); by default it is made here. `base`: for a
    package of unstable features, what it defines itself and the package generated from the
    stable view it imports the rest from (`idlc.targets.python.overlay`, the mapping's
    decision: `Compilation.overlay` makes it).
    """
    from idlc.codegen.build import build
    from idlc.codegen.provenance import source_names as names_of
    from idlc.codegen.render import render_package

    if source_names is None:
        source_names = names_of(model.sources)

    with paused_gc():
        view, diagnostics = build(model, package, plan, base)
        if any(diagnostic.is_error for diagnostic in diagnostics):
            return GeneratedPackage(package, {}, tuple(diagnostics))
        return GeneratedPackage(package, render_package(view, source_names), tuple(diagnostics))
