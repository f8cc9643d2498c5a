"""Errors are values: one `Diagnostic` type, created by every stage, rendered late.

Codes are stable (`E0101` means "unknown type" forever); `codes.py` is their registry.
Rendering for people, for tools (JSON) and for GitHub workflow commands is in `render.py`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator

from idlc.diagnostics.codes import Code
from idlc.nodes import field, node
from idlc.source import Span

__all__ = ["Code", "Diagnostic", "Diagnostics", "Related", "Severity", "without_allowed"]


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@node
class Related:
    """A second place a diagnostic points at ("first declared here")."""

    message: str
    span: Span


@node
class Diagnostic:
    code: Code
    message: str
    span: Span | None
    help: str | None = None
    label: str | None = None
    related: tuple[Related, ...] = ()

    @property
    def severity(self) -> Severity:
        return Severity.WARNING if self.code.id.startswith("W") else Severity.ERROR

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


@node(frozen=False)
class Diagnostics:
    """What one run has found so far, in the order it was found."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(
        self,
        code: Code,
        message: str,
        span: Span | None,
        *,
        help: str | None = None,
        label: str | None = None,
        related: Iterable[Related] = (),
    ) -> Diagnostic:
        diagnostic = Diagnostic(code, message, span, help, label, tuple(related))
        self.items.append(diagnostic)
        return diagnostic

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.items.extend(diagnostics)

    @property
    def has_errors(self) -> bool:
        return any(item.is_error for item in self.items)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


def without_allowed(diagnostics: Iterable[Diagnostic], allow: Iterable[str]) -> list[Diagnostic]:
    """The diagnostics less the warnings whose codes are allowed (errors always stay)."""
    allowed = frozenset(allow)
    return [d for d in diagnostics if d.is_error or d.code.id not in allowed]
