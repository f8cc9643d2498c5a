"""Finding a template to render: its compiled module (`idlc.codegen.compiled`) while that
was made from the template as it is, else Jinja2's.

The compiled modules render without importing Jinja2 (docs/benchmarks.md, "Templates
compiled to Python"); the templates stay the source of truth. A module is used only if its
template's text, the text of every template it imports and the environment's options are
those it was compiled from: a template edited and not compiled again (a developer's
checkout) is rendered by Jinja2, so the output is always what the templates say.
`IDLC_JINJA_TEMPLATES=1` renders every template with Jinja2 (to compare, and for the tests
of Jinja2's own cache).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any, Protocol

from idlc.resources import data_dir

#: Set (to anything but "" or "0"): every template rendered by Jinja2.
JINJA_ONLY = "IDLC_JINJA_TEMPLATES"


class Template(Protocol):
    """What renders: a compiled module, or a Jinja2 template."""

    def render(self, **context: Any) -> str: ...


def jinja_only() -> bool:
    return os.environ.get(JINJA_ONLY, "") not in ("", "0")


class Templates:
    """The templates of one folder of `templates/` (`folder`: "" or "typescript").

    `options` gives the environment's options as text (what a compiled module records);
    `jinja` makes the Jinja2 environment, called only when a template needs it.
    """

    def __init__(self, folder: str, options: Callable[[], str], jinja: Callable[[], Any]):
        self.folder = folder
        self.options = options
        self.jinja = jinja
        self._compiled: dict[str, Template | None] = {}

    def get(self, name: str) -> Template:
        if not jinja_only():
            if name not in self._compiled:
                self._compiled[name] = self._load(name)
            compiled = self._compiled[name]
            if compiled is not None:
                return compiled
        template: Template = self.jinja().get_template(name)
        return template

    def _load(self, name: str) -> Template | None:
        path = f"{self.folder}/{name}" if self.folder else name
        module = compiled_module(path)
        if module is None or not matches(module, self.options()):
            return None
        return module  # a module with `render`


def compiled_module(template: str) -> ModuleType | None:
    """The compiled module of `template` (its path below templates/), if there is one."""
    from idlc.codegen.compiled import MODULES

    name = MODULES.get(template)
    if name is None:
        return None
    try:
        return importlib.import_module(f"idlc.codegen.compiled.{name}")
    except Exception:  # noqa: BLE001 - stale: a filter or an imported template it names is gone
        # Importing runs its first lines (the filters it takes, the modules of the templates
        # it imports) before `matches` can tell it is stale: Jinja2 renders it then.
        return None


def matches(module: ModuleType, options: str) -> bool:
    """Whether `module` was compiled from its template as it is now (and the templates it
    imports, and with these `options`)."""
    if module.OPTIONS != options:
        return False
    templates = data_dir("templates")
    for template in (module.TEMPLATE, *module.IMPORTS):
        try:
            # As Jinja2's loader reads it: bytes decoded as UTF-8, newlines as they are.
            text = (templates / template).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return False  # Jinja2 reports it, as it would without compiled modules
        if template == module.TEMPLATE:
            if text != module.SOURCE:
                return False
        else:
            imported = compiled_module(template)
            if imported is None or imported.SOURCE != text:
                return False
    return True
