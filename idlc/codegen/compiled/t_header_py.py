"""templates/header.py.j2, compiled to Python by idlc.codegen.template_compiler.

Generated: do not edit. Edit the template and run `python -m idlc.codegen.template_compiler`;
idlc.codegen.template_loader uses this module only while SOURCE is the template's text.
"""

# fmt: off
# mypy: disable-error-code="no-any-return"
from __future__ import annotations

import functools
import types
from typing import Any

from idlc.codegen.filters import FILTERS as _FILTERS

TEMPLATE = 'header.py.j2'
SOURCE = '"""{{ doc }}"""\n\nfrom __future__ import annotations\n{% if module.uses.abc or module.uses.enum or module.uses.typing %}\n\n{% endif %}\n{% if module.uses.abc %}\nimport abc\n{% endif %}\n{% if module.uses.enum %}\nimport enum\n{% endif %}\n{% if module.uses.typing %}\nimport typing\n{% endif %}\n{% if module.uses.msgspec %}\n\nimport msgspec\n{% endif %}\n{% if module.uses.runtime or module.uses.hooks %}\n\n{% endif %}\n{% if module.uses.runtime %}\nimport idlc_runtime as _rt\nfrom idlc_runtime import Unsupported\n{% endif %}\n{% if module.uses.hooks %}\nfrom idlc_runtime import hooks as _hooks\n{% endif %}\n{% set import_groups = module.import_groups %}\n{% if import_groups %}\n\n{% for group in import_groups %}\n{{ ("from " + group.source + " import (") | wrap(group.names, ")", optional_brackets=True) }}\n{% endfor %}\n{% endif %}\n'
OPTIONS = "[('autoescape', False), ('extensions', ['jinja2.ext.do']), ('keep_trailing_newline', True), ('lstrip_blocks', True), ('trim_blocks', True)]"
IMPORTS = ()

_filter_wrap = _FILTERS['wrap']


def _root(context: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    j_doc = context['doc']
    j_module = context['module']
    j_import_groups: Any
    _out: list[str] = []
    _append = _out.append
    _append('"""%s"""\n\nfrom __future__ import annotations\n' % (j_doc,))
    if ((j_module.uses.abc or j_module.uses.enum) or j_module.uses.typing):
        _append('\n')
    if j_module.uses.abc:
        _append('import abc\n')
    if j_module.uses.enum:
        _append('import enum\n')
    if j_module.uses.typing:
        _append('import typing\n')
    if j_module.uses.msgspec:
        _append('\nimport msgspec\n')
    if (j_module.uses.runtime or j_module.uses.hooks):
        _append('\n')
    if j_module.uses.runtime:
        _append('import idlc_runtime as _rt\nfrom idlc_runtime import Unsupported\n')
    if j_module.uses.hooks:
        _append('from idlc_runtime import hooks as _hooks\n')
    j_import_groups = j_module.import_groups
    if j_import_groups:
        _append('\n')
        for j_group in j_import_groups:
            _append('%s\n' % (_filter_wrap((('from ' + j_group.source) + ' import ('), j_group.names, ')', optional_brackets=True),))
    return _out, {}


def render(**context: Any) -> str:
    return "".join(_root(context)[0])


@functools.cache
def exports() -> types.SimpleNamespace:
    """The template's macros, as `{% import %}` gives them (rendered once, without
    context)."""
    return types.SimpleNamespace(**_root({})[1])
