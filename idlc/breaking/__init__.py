"""`idlc breaking`: the wire-incompatible changes between two versions of some IDL files.

`run_breaking` compiles both sides (files and folders, or the same paths at a git revision,
`git:REF`), compares the resolved models interface by interface (`compare.compare`, with the
rules of `rules.REGISTRY`) and says whether to fail: only when an interface changed
incompatibly while its `revision` stayed the same (or was removed). `report` renders the
result for people, as JSON lines, or as GitHub workflow commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from idlc.breaking.compare import Change, Comparison, InterfaceReport, compare
from idlc.breaking.inputs import GIT_PREFIX, InputError, Loaded, load_git, load_paths
from idlc.breaking.report import Shown
from idlc.breaking.rules import REGISTRY, Rule
from idlc.diagnostics import Diagnostic
from idlc.source import SourceMap, Span

__all__ = [
    "BreakingJob",
    "BreakingOutcome",
    "Change",
    "Comparison",
    "InputError",
    "InterfaceReport",
    "REGISTRY",
    "Rule",
    "compare",
    "run_breaking",
]


@dataclass(frozen=True, slots=True)
class BreakingJob:
    """One compilation to compare: its files or folders and its include folders."""

    sources: Sequence[Path]
    include: Sequence[Path] = ()


@dataclass(slots=True)
class BreakingOutcome:
    comparisons: list[Comparison] = field(default_factory=list)
    #: Errors of either side (the old side's shown as `REF:path` for a git revision).
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: The text of every file read, by the path shown, for rendering.
    sources: SourceMap = field(default_factory=SourceMap)
    shown: Shown = field(default_factory=lambda: Shown(SourceMap(), SourceMap(), _same, _same))

    @property
    def has_errors(self) -> bool:
        return bool(self.diagnostics)

    @property
    def failed(self) -> bool:
        return self.has_errors or any(comparison.failing for comparison in self.comparisons)


def _same(span: Span | None) -> Span | None:
    return span


def run_breaking(jobs: Sequence[BreakingJob], against: str) -> BreakingOutcome:
    """Compare each job's files (new) with `against` (old): a path, or `git:REF`.

    With a path, `against` replaces the job's sources (one job only makes sense then); with
    `git:REF` each job is compared with its own paths at that revision. Raises `InputError`
    when a side cannot be read at all (not a git repository, an unknown revision).
    """
    outcome = BreakingOutcome()
    new_sources, old_sources = SourceMap(), SourceMap()
    old_sides: list[Loaded] = []
    for job in jobs:
        new = load_paths(job.sources, job.include)
        if against.startswith(GIT_PREFIX):
            old = load_git(against[len(GIT_PREFIX) :], job.sources, job.include)
        else:
            old = load_paths([Path(against)], job.include)
        old_sides.append(old)
        for side in (new, old):
            errors = [item for item in side.diagnostics if item.is_error]
            outcome.diagnostics.extend(item for item in errors if item not in outcome.diagnostics)
            for source in side.sources:
                outcome.sources.add(source)
        for source in new.sources:
            new_sources.add(source)
        for source in old.sources:
            old_sources.add(source)
        old_model, new_model = old.compilation.model, new.compilation.model
        if old_model is not None and new_model is not None:
            outcome.comparisons.append(compare(old_model, new_model))

    def old_span(span: Span | None) -> Span | None:
        for side in old_sides:
            if span is not None and span.file in side.labels:
                return side.span(span)
        return span

    outcome.shown = Shown(new_sources, old_sources, _same, old_span)
    return outcome
