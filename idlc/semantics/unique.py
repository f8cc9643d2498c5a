"""Names that must be unique in one scope, as written and as Python names.

Members of an interface, fields of a record and values of an enum follow the same rule:
each IDL name once (else a duplicate error), and each Python name once (else E0113, since
`fooBar` and `foo_bar` become the same attribute). Only the words of the messages differ.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from idlc.diagnostics import Code, Diagnostics, Related, codes
from idlc.source import Span


@dataclass(frozen=True, slots=True)
class Wording:
    """How the diagnostics of one kind of scope read."""

    duplicate: Code
    #: The message of a duplicate, from the name as shown.
    twice: Callable[[str], str]
    again: str  # label at the second one ("declared again here")
    duplicate_help: str
    first: str  # label at the first one ("first declared here")
    plural: str  # "members", "fields", "enum values"
    python_kind: str  # "Python method", …
    collision_help: str
    listed: str  # verb for the related note ("declared", "listed")


@dataclass(slots=True)
class UniqueNames:
    wording: Wording
    to_python: Callable[[str], str]
    diagnostics: Diagnostics
    _seen: dict[str, Span] = field(default_factory=dict)
    _python: dict[str, tuple[str, Span]] = field(default_factory=dict)

    def add(self, name: str, shown: str, span: Span) -> None:
        """Record `name` (shown in messages as `shown`), reporting a clash with an earlier one."""
        wording = self.wording
        first = self._seen.get(name)
        if first is not None:
            self.diagnostics.add(
                wording.duplicate,
                wording.twice(shown),
                span,
                label=wording.again,
                help=wording.duplicate_help,
                related=[Related(wording.first, first)],
            )
            return
        self._seen[name] = span
        python_name = self.to_python(name)
        other = self._python.get(python_name)
        if other is None:
            self._python[python_name] = (shown, span)
            return
        other_shown, other_span = other
        self.diagnostics.add(
            codes.PYTHON_NAME_COLLISION,
            f"{wording.plural} {other_shown} and {shown} both become the "
            f"{wording.python_kind} `{python_name}`",
            span,
            label=f"becomes `{python_name}`",
            help=wording.collision_help,
            related=[Related(f"{other_shown} is {wording.listed} here", other_span)],
        )
