"""The edits that diagnostics already suggest in their help, as quick fixes.

Each fix replaces the diagnostic's own span: a did-you-mean replaces the misspelt name, an
"add `;` here" inserts at the empty span where it is missing, and the lints' "write …"
replaces the unconventional literal or keyword (docs/language.md, "Diagnostics").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from idlc.diagnostics import Diagnostic, codes

_DID_YOU_MEAN = re.compile(r"did you mean `([^`]+)`\?")
_ADD_HERE = re.compile(r"add `([^`]+)` here")
#: A JSON string literal at the start of a lint's "write …" help.
_WRITE_LITERAL = re.compile(r'write ("(?:[^"\\]|\\.)*")')


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    new_text: str


def fix_for(diagnostic: Diagnostic) -> Fix | None:
    """The fix a diagnostic's help spells out, for its span; None when there is none."""
    help = diagnostic.help
    if help is None or diagnostic.span is None:
        return None
    match = _DID_YOU_MEAN.fullmatch(help)
    if match is not None:
        return Fix(f"Replace with `{match.group(1)}`", match.group(1))
    match = _ADD_HERE.fullmatch(help)
    if match is not None and diagnostic.span.start == diagnostic.span.end:
        return Fix(f"Add `{match.group(1)}`", match.group(1))
    if diagnostic.code in (codes.BINDING_ID_FORMAT, codes.REVISION_FORMAT):
        match = _WRITE_LITERAL.match(help)
        if match is not None:
            return Fix(f"Write {match.group(1)}", match.group(1))
    if diagnostic.code is codes.QUERYABLE_NOT_SNAPSHOT:
        return Fix("Write `execution snapshot`", "snapshot")
    return None
