"""The Jinja2 builtin filters the templates use, for the compiled templates
(`idlc.codegen.compiled`), which do not import Jinja2.

Each is Jinja2's own (jinja2/filters.py, 3.1; BSD-3-Clause) for plain strings, the case
idlc renders (no autoescape, so no `Markup`); tests/codegen/test_compiled_templates.py checks
them against Jinja2's over arbitrary input. `length` is the builtin `len`, as in Jinja2.
"""

from __future__ import annotations


def indent(s: str, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    """Jinja2's `indent`: every line but the first (unless `first`) and the blank ones
    (unless `blank`) indented by `width` spaces (or by `width`, a string)."""
    indention = width if isinstance(width, str) else " " * width
    newline = "\n"
    s += newline  # this quirk is necessary for splitlines method (Jinja2's words)
    if blank:
        rv = (newline + indention).join(s.splitlines())
    else:
        lines = s.splitlines()
        rv = lines.pop(0)
        if lines:
            rv += newline + newline.join(indention + line if line else line for line in lines)
    if first:
        rv = indention + rv
    return rv
