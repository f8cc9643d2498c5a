"""templates/module.py.j2, compiled to Python by idlc.codegen.template_compiler.

Generated: do not edit. Edit the template and run `python -m idlc.codegen.template_compiler`;
idlc.codegen.template_loader uses this module only while SOURCE is the template's text.
"""

# fmt: off
# mypy: disable-error-code="no-any-return"
from __future__ import annotations

import functools
import types
from typing import Any

from idlc.codegen.compiled import t__interface_py as _t__interface_py  # noqa: F401
from idlc.codegen.compiled import t__types_py as _t__types_py  # noqa: F401

TEMPLATE = 'module.py.j2'
SOURCE = '{#- One module of a generated package (after `header.py.j2`): bounded integers, classes,\n    aliases, decoding registrations, and an interface\'s skeleton, proxy and dispatch table.\n    The shapes are in `_types.py.j2` and `_interface.py.j2`. -#}\n{% import "_types.py.j2" as types %}\n{% import "_interface.py.j2" as interface_parts %}\n{% if module.integer_aliases %}\n\n{% for alias in module.sorted_integer_aliases %}\n{{ types.integer_alias(alias) }}\n{%- endfor %}\n{% endif %}\n{% if module.classes %}\n{{ types.classes(module.classes) }}\n{%- endif %}\n{% for alias in module.aliases %}\n{# black: one blank line between the imports and a first statement that is no definition #}\n{% if not (loop.first and not module.classes and not module.integer_aliases) %}\n\n{% endif %}\n\n{{ types.alias(alias) }}\n{%- endfor %}\n{% for registration in module.registrations %}\n\n\n{{ types.registration(registration) }}\n{%- endfor %}\n{% if module.interface %}\n\n\n{{ interface_parts.definition(module.interface) }}\n{%- endif %}\n'
OPTIONS = "[('autoescape', False), ('extensions', ['jinja2.ext.do']), ('keep_trailing_newline', True), ('lstrip_blocks', True), ('trim_blocks', True)]"
IMPORTS = ('_interface.py.j2', '_types.py.j2')


def _root(context: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    j_module = context['module']
    _out: list[str] = []
    _append = _out.append
    j_types = _t__types_py.exports()
    j_interface_parts = _t__interface_py.exports()
    if j_module.integer_aliases:
        _append('\n')
        for j_alias in j_module.sorted_integer_aliases:
            _append(str(j_types.integer_alias(j_alias)))
    if j_module.classes:
        _append(str(j_types.classes(j_module.classes)))
    j_items = list(j_module.aliases)
    for j_index, (j_alias_2) in enumerate(j_items):
        if (not (((j_index == 0) and (not j_module.classes)) and (not j_module.integer_aliases))):
            _append('\n')
        _append('\n%s' % (j_types.alias(j_alias_2),))
    for j_registration in j_module.registrations:
        _append('\n\n%s' % (j_types.registration(j_registration),))
    if j_module.interface:
        _append('\n\n%s' % (j_interface_parts.definition(j_module.interface),))
    return _out, {}


def render(**context: Any) -> str:
    return "".join(_root(context)[0])


@functools.cache
def exports() -> types.SimpleNamespace:
    """The template's macros, as `{% import %}` gives them (rendered once, without
    context)."""
    return types.SimpleNamespace(**_root({})[1])
