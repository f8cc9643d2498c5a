"""The forward-compatibility registration of a generated record class (docs/language.md,
"Forward-compatible fields").

A record with `lenient`, `skip-invalid` or `null-default` fields is registered with the
runtime by one module-level statement naming the Python attributes of those fields (its
shape is in `templates/_types.py.j2`). The runtime's decoder uses it only when the fast,
strict msgspec decode of a message fails (docs/wire.md, "Forward-compatible decoding").
"""

from __future__ import annotations

from collections.abc import Mapping

from idlc.codegen.layout import python_string
from idlc.codegen.views import ForwardCompatibleView
from idlc.semantics import model as m


def registration(
    class_name: str, fields: tuple[m.Field, ...], attributes: Mapping[str, str]
) -> ForwardCompatibleView | None:
    """What registers `class_name`'s forward-compatible `fields` (`attributes`: the plan's
    attribute of each wire name), or None when it has none."""

    def marked_by(modifier: str) -> list[str]:
        return [
            python_string(attributes[f.name]) for f in fields if getattr(f, modifier) is not None
        ]

    view = ForwardCompatibleView(
        class_name, marked_by("lenient"), marked_by("skip_invalid"), marked_by("null_default")
    )
    if not (view.lenient or view.skip_invalid or view.null_default):
        return None
    return view
