"""Rendering view models with the Jinja2 templates of `templates/`.

Each module's body is rendered before its header, so the header's imports are the ones
the body actually used (collected while the view model was built). Each template is
rendered by its compiled module (`idlc.codegen.template_loader`) while that matches it, and
by Jinja2 (`idlc.codegen.jinja_env`, imported only then) otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import idlc
from idlc.codegen.template_loader import Templates
from idlc.codegen.views import ModuleView, PackageView
from idlc.targets.python.mapping import REFS_MODULE

#: How the templates are compiled. Part of the compiled code, so part of the cache's key.
_OPTIONS: dict[str, bool | list[str]] = {
    "autoescape": False,
    "keep_trailing_newline": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
    "extensions": ["jinja2.ext.do"],  # `{% do list.append(…) %}`, to collect without copying
}


def options() -> str:
    """`_OPTIONS` as text: part of the cache's key, and recorded in each compiled module."""
    return repr(sorted(_OPTIONS.items()))


def _jinja() -> Any:
    from idlc.codegen import jinja_env

    return jinja_env.environment()


_TEMPLATES = Templates("", options, _jinja)


def _format(head: str, text: str) -> str:
    """`head` + `text` with blank lines at the end normalised. No formatter runs: the
    templates and filters write the layout, so it depends on idlc's version only."""
    return head + text.rstrip("\n") + "\n"


def _provenance(source_names: Sequence[str]) -> str:
    """The comment opening every module, naming idlc's version and every source file
    (`idlc.codegen.provenance`).

    The same for every module of a package, so it is rendered once.
    """
    template = _TEMPLATES.get("provenance.py.j2")
    return template.render(version=idlc.__version__, sources=source_names)


def render_module(provenance: str, module: ModuleView) -> str:
    template = "refs.py.j2" if module.name == REFS_MODULE else "module.py.j2"
    body = _TEMPLATES.get(template).render(module=module)
    header = _TEMPLATES.get("header.py.j2").render(
        doc=module.doc,
        module=module,
    )
    return _format(provenance, header + body)


def render_package(package: PackageView, source_names: Sequence[str]) -> dict[str, str]:
    provenance = _provenance(source_names)
    files: dict[str, str] = {}
    for module in package.modules:
        files[f"{module.name}.py"] = render_module(provenance, module)
    body = _TEMPLATES.get("init.py.j2").render(package=package)
    header = _TEMPLATES.get("header.py.j2").render(
        doc="The generated package: every public name of its modules.",
        module=ModuleView("__init__", ""),
    )
    files["__init__.py"] = _format(provenance, header + body)
    files["py.typed"] = ""
    return files
