"""Rendering the TypeScript view models with the templates of `templates/typescript/`."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jinja2

import idlc
from idlc.codegen.typescript.build import PackageView
from idlc.codegen.typescript.expressions import FILTERS
from idlc.resources import data_dir


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates") / "typescript")),
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,
    )
    env.filters.update(FILTERS)
    return env


def render(package: PackageView, source_names: Sequence[str]) -> dict[str, str]:
    """Every file of `package`, by path in the package folder."""
    env = environment()
    header = env.get_template("header.ts.j2").render(version=idlc.__version__, sources=source_names)
    files: dict[str, str] = {}
    module = env.get_template("module.ts.j2")
    for view in package.modules:
        text = module.render(module=view, package=package)
        files[f"{view.name}.ts"] = header + text.rstrip("\n") + "\n"
    index = env.get_template("index.ts.j2").render(package=package)
    files["index.ts"] = header + index.rstrip("\n") + "\n"
    files["package.json"] = env.get_template("package.json.j2").render(
        package=package, version=idlc.__version__
    )
    return files
