"""templates/typescript/index.ts.j2, compiled to Python by idlc.codegen.template_compiler.

Generated: do not edit. Edit the template and run `python -m idlc.codegen.template_compiler`;
idlc.codegen.template_loader uses this module only while SOURCE is the template's text.
"""

# fmt: off
# mypy: disable-error-code="no-any-return"
from __future__ import annotations

import functools
import types
from typing import Any


TEMPLATE = 'typescript/index.ts.j2'
SOURCE = '// The package: every public name of its modules.\n{% for module in package.modules %}\nexport * from "./{{ module.name }}.js";\n{% endfor %}\n'
OPTIONS = "[('autoescape', False), ('keep_trailing_newline', True), ('lstrip_blocks', True), ('trim_blocks', True)]"
IMPORTS = ()


def _root(context: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    j_package = context['package']
    _out: list[str] = []
    _append = _out.append
    _append('// The package: every public name of its modules.\n')
    for j_module in j_package.modules:
        _append('export * from "./%s.js";\n' % (j_module.name,))
    return _out, {}


def render(**context: Any) -> str:
    return "".join(_root(context)[0])


@functools.cache
def exports() -> types.SimpleNamespace:
    """The template's macros, as `{% import %}` gives them (rendered once, without
    context)."""
    return types.SimpleNamespace(**_root({})[1])
