"""templates/refs.py.j2, compiled to Python by idlc.codegen.template_compiler.

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

TEMPLATE = 'refs.py.j2'
SOURCE = '{% for ref in module.refs %}\n\n{{ ref.name }} = typing.NewType({{ ref.name | python_string }}, str)\n{% set doc = ref.doc | docstring(0) %}\n{% if doc %}\n{{ doc }}\n{% endif %}\n{% endfor %}\n\n{% if module.atoms %}\nATOMS: typing.Final[typing.Mapping[str, str]] = {\n{% for name, id in module.atoms %}\n    {{ name | python_string }}: {{ id | python_string }},\n{% endfor %}\n}\n{% else %}\nATOMS: typing.Final[typing.Mapping[str, str]] = {}\n{% endif %}\n"""Every atom of the package by its IDL name: its id, as the IDL writes it."""\n'
OPTIONS = "[('autoescape', False), ('extensions', ['jinja2.ext.do']), ('keep_trailing_newline', True), ('lstrip_blocks', True), ('trim_blocks', True)]"
IMPORTS = ()

_filter_docstring = _FILTERS['docstring']
_filter_python_string = _FILTERS['python_string']


def _root(context: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    j_module = context['module']
    _out: list[str] = []
    _append = _out.append
    for j_ref in j_module.refs:
        j_doc: Any
        _append('\n%s = typing.NewType(%s, str)\n' % (j_ref.name, _filter_python_string(j_ref.name),))
        j_doc = _filter_docstring(j_ref.doc, 0)
        if j_doc:
            _append('%s\n' % (j_doc,))
    _append('\n')
    if j_module.atoms:
        _append('ATOMS: typing.Final[typing.Mapping[str, str]] = {\n')
        for j_name, j_id in j_module.atoms:
            _append('    %s: %s,\n' % (_filter_python_string(j_name), _filter_python_string(j_id),))
        _append('}\n')
    else:
        _append('ATOMS: typing.Final[typing.Mapping[str, str]] = {}\n')
    _append('"""Every atom of the package by its IDL name: its id, as the IDL writes it."""\n')
    return _out, {}


def render(**context: Any) -> str:
    return "".join(_root(context)[0])


@functools.cache
def exports() -> types.SimpleNamespace:
    """The template's macros, as `{% import %}` gives them (rendered once, without
    context)."""
    return types.SimpleNamespace(**_root({})[1])
