"""templates/init.py.j2, compiled to Python by idlc.codegen.template_compiler.

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

TEMPLATE = 'init.py.j2'
SOURCE = '{#- The package\'s `__init__` (after `header.py.j2`): the check of its runtime, which runs\n    before any module of the package, then every public name of its modules. #}\n\nimport idlc_runtime as _rt\n\n# The installed runtime must serve the runtime API this package was generated for.\n_rt.require_api({{ package.runtime_api }}, __name__)\n\n{% for export in package.exports %}\n{{ ("from " + export.source + " import (") | wrap(export.names, ")", optional_brackets=True) }}\n{% endfor %}\n\n__all__ = [\n{% for name in package.all_names %}\n    "{{ name }}",\n{% endfor %}\n]\n'
OPTIONS = "[('autoescape', False), ('extensions', ['jinja2.ext.do']), ('keep_trailing_newline', True), ('lstrip_blocks', True), ('trim_blocks', True)]"
IMPORTS = ()

_filter_wrap = _FILTERS['wrap']


def _root(context: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    j_package = context['package']
    _out: list[str] = []
    _append = _out.append
    _append('\nimport idlc_runtime as _rt\n\n# The installed runtime must serve the runtime API this package was generated for.\n_rt.require_api(%s, __name__)\n\n' % (j_package.runtime_api,))
    for j_export in j_package.exports:
        _append('%s\n' % (_filter_wrap((('from ' + j_export.source) + ' import ('), j_export.names, ')', optional_brackets=True),))
    _append('\n__all__ = [\n')
    for j_name in j_package.all_names:
        _append('    "%s",\n' % (j_name,))
    _append(']\n')
    return _out, {}


def render(**context: Any) -> str:
    return "".join(_root(context)[0])


@functools.cache
def exports() -> types.SimpleNamespace:
    """The template's macros, as `{% import %}` gives them (rendered once, without
    context)."""
    return types.SimpleNamespace(**_root({})[1])
