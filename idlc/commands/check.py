"""`idlc check`: parse, resolve and lint, as one compilation per configured package."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from idlc.commands.console import Echo, exit_code, report, unique
from idlc.commands.project import configuration_of, discovered
from idlc.diagnostics import Diagnostics, without_allowed
from idlc.source import SourceMap


def run_check(
    files: Sequence[Path],
    include: Sequence[Path],
    allow: Sequence[str],
    error_format: str,
    echo: Echo,
) -> int:
    """Parse, resolve and lint FILES (or everything in [tool.idlc]; without it, every *.idl
    file under the current folder, as one compilation); report; 1 on errors."""
    from idlc.pipeline import compile_files

    diagnostics = Diagnostics()
    sources = SourceMap()
    jobs: list[tuple[Sequence[Path], Sequence[Path], Sequence[str]]] = []
    if files:
        jobs.append((files, include, allow))
    else:
        from idlc.config import Config

        configuration = configuration_of(diagnostics)
        if configuration is None:
            pass  # broken: the diagnostics say how
        elif isinstance(configuration, Config):
            jobs.extend(
                (p.sources, (*p.include, *include), (*p.allow, *allow))
                for p in configuration.packages
            )
        else:
            found = discovered(diagnostics, echo)
            if found is None:
                return 0
            if found:
                jobs.append((found, include, allow))
    for paths, includes, allowed in jobs:
        compilation = compile_files(paths, includes, plan_facts=False)  # (writes no code)
        diagnostics.extend(without_allowed(compilation.diagnostics, allowed))
        for source in compilation.sources:
            sources.add(source)
    report(unique(diagnostics), sources, error_format, echo)
    return exit_code(diagnostics)
