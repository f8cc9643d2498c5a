"""Rendering the TypeScript view models with the templates of `templates/typescript/`.

Each template is rendered by its compiled module (`idlc.codegen.template_loader`) while
that matches it, and by Jinja2 (imported only then) otherwise.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import idlc
from idlc.codegen.template_loader import Templates
from idlc.codegen.typescript.build import PackageView
from idlc.codegen.typescript.expressions import FILTERS
from idlc.resources import data_dir

if TYPE_CHECKING:
    import jinja2

#: How the templates are compiled (recorded in each compiled module).
_OPTIONS: dict[str, bool] = {
    "autoescape": False,
    "keep_trailing_newline": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
}


def options() -> str:
    return repr(sorted(_OPTIONS.items()))


@functools.cache
def environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates") / "typescript")),
        undefined=jinja2.StrictUndefined,
        auto_reload=False,
        **_OPTIONS,  # type: ignore[arg-type]
    )
    env.filters.update(FILTERS)
    return env


_TEMPLATES = Templates("typescript", options, environment)


def render(package: PackageView, source_names: Sequence[str]) -> dict[str, str]:
    """Every file of `package`, by path in the package folder."""
    get = _TEMPLATES.get
    header = get("header.ts.j2").render(version=idlc.__version__, sources=source_names)
    files: dict[str, str] = {}
    module = get("module.ts.j2")
    for view in package.modules:
        text = module.render(module=view, package=package)
        files[f"{view.name}.ts"] = header + text.rstrip("\n") + "\n"
    index = get("index.ts.j2").render(package=package)
    files["index.ts"] = header + index.rstrip("\n") + "\n"
    files["package.json"] = get("package.json.j2").render(package=package, version=idlc.__version__)
    return files
