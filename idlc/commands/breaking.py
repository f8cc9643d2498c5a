"""`idlc breaking`: wire-incompatible changes of a new version against an old one
(`idlc.breaking` compares; this command finds the inputs and prints the changes)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from idlc.commands import UsageProblem
from idlc.commands.console import Echo, exit_code, report, use_color
from idlc.diagnostics import Diagnostics
from idlc.source import SourceMap

if TYPE_CHECKING:
    from idlc.breaking import BreakingJob


def print_rules(echo: Echo) -> int:
    """Every rule's id, name and explanation, one a line."""
    from idlc.breaking import REGISTRY

    for rule in REGISTRY.values():
        echo(f"{rule.id}  {rule.name}: {rule.explanation}")
    return 0


def run_breaking_command(
    new: Path | None,
    against: str,
    include: tuple[Path, ...],
    error_format: str,
    echo: Echo,
) -> int:
    """Compare NEW (a file or folder; without it, every package in [tool.idlc] with its
    sources at `against`, which must then be `git:REF`) with `against`; print the changes on
    stdout; fail (1) when an interface changed incompatibly and kept its revision. Raises
    `UsageProblem` when the inputs cannot be compared."""
    from idlc.breaking import BreakingJob, InputError, run_breaking
    from idlc.breaking.report import render_github, render_human, render_json

    diagnostics = Diagnostics()
    jobs: list[BreakingJob] = []
    if new is not None:
        jobs.append(BreakingJob((new,), include))
    elif not against.startswith("git:"):
        raise UsageProblem("without NEW, `--against` must be `git:REF`")
    else:
        from idlc import config

        configuration = config.load(diagnostics)
        if configuration is not None:
            jobs.extend(
                BreakingJob(p.sources, (*p.include, *include)) for p in configuration.packages
            )
    if diagnostics.has_errors:
        report(diagnostics.items, SourceMap(), error_format, echo)
        return exit_code(diagnostics)
    try:
        outcome = run_breaking(jobs, against)
    except InputError as error:
        raise UsageProblem(str(error)) from None
    report(outcome.diagnostics, outcome.sources, error_format, echo)
    if error_format == "json":
        echo(render_json(outcome.comparisons, outcome.shown), nl=False)
    elif error_format == "github":
        echo(render_github(outcome.comparisons, outcome.shown), nl=False)
    else:
        text = render_human(outcome.comparisons, outcome.shown, color=use_color(sys.stdout))
        echo(text, nl=False)
    return exit_code(diagnostics, failed=outcome.failed)
