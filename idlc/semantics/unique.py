"""Names that must be unique in one scope, as written.

Members of an interface, fields of a record and values of an enum follow the same rule:
each IDL name once, else a duplicate error. Only the words of the messages differ. (That
two names become one name of a target language, `fooBar` and `foo_bar` one Python
attribute, is the target's to check: `idlc.targets.python.names`.)
"""

from __future__ import annotations

from collections.abc import Callable

from idlc.diagnostics import Code, Diagnostics, Related
from idlc.nodes import field, node
from idlc.source import Span


@node
class Wording:
    """How the diagnostics of one kind of scope read."""

    duplicate: Code
    #: The message of a duplicate, from the name as shown.
    twice: Callable[[str], str]
    again: str  # label at the second one ("declared again here")
    duplicate_help: str
    first: str  # label at the first one ("first declared here")


@node(frozen=False)
class UniqueNames:
    wording: Wording
    diagnostics: Diagnostics
    _seen: dict[str, Span] = field(default_factory=dict)

    def add(self, name: str, shown: str, span: Span) -> None:
        """Record `name` (shown in messages as `shown`), reporting a clash with an earlier one."""
        wording = self.wording
        first = self._seen.get(name)
        if first is None:
            self._seen[name] = span
            return
        self.diagnostics.add(
            wording.duplicate,
            wording.twice(shown),
            span,
            label=wording.again,
            help=wording.duplicate_help,
            related=[Related(wording.first, first)],
        )
