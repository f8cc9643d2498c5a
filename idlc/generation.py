"""`idlc generate`: compile every job, generate every package, then write (or check) them.

All or nothing: if any job has an error, no file of any job is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from idlc.diagnostics import Diagnostics, codes, without_allowed
from idlc.naming import snake_case
from idlc.source import SourceMap, display_path


@dataclass(frozen=True, slots=True)
class GenerateJob:
    sources: Sequence[Path]
    include: Sequence[Path]
    out: Path  # the folder that receives the package folder
    package: str | None  # None: named after the first source file
    allow: Sequence[str] = ()  # warning codes not to report


@dataclass(slots=True)
class GenerateOutcome:
    sources: SourceMap = field(default_factory=SourceMap)
    messages: list[str] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    failed: bool = False


def default_package_name(sources: Sequence[Path]) -> str:
    """The package name when none is given: the first source file's name in snake_case."""
    first = sources[0]
    return snake_case(first.stem if first.suffix else first.name)


def run_generate(
    jobs: Sequence[GenerateJob], *, check: bool, diagnostics: Diagnostics
) -> GenerateOutcome:
    # Imported here: Jinja2 and the templates are only needed by this command.
    from idlc.codegen import generate
    from idlc.codegen.output import check_package, conflicts, write_package
    from idlc.pipeline import compile_files

    outcome = GenerateOutcome()
    planned = []
    for job in jobs:
        compilation = compile_files(job.sources, job.include)
        diagnostics.extend(without_allowed(compilation.diagnostics, job.allow))
        for source in compilation.sources:
            outcome.sources.add(source)
        if compilation.model is None:
            continue
        package = job.package or default_package_name(job.sources)
        generated = generate(compilation.model, package)
        diagnostics.extend(generated.diagnostics)
        planned.append((job, generated))
    if diagnostics.has_errors:
        outcome.failed = True
        outcome.messages.append("nothing was written: fix the errors above first")
        return outcome
    if not check:
        # All or nothing across packages too: look for anything in the way of any
        # package before writing the first one.
        for job, generated in planned:
            for path in conflicts(job.out, generated):
                diagnostics.add(
                    codes.FOREIGN_OUTPUT_FILE,
                    f"{display_path(path)} exists and was not written by idlc",
                    None,
                    help="move it away, or generate into another folder",
                )
        if diagnostics.has_errors:
            outcome.failed = True
            outcome.messages.append("nothing was written: fix the errors above first")
            return outcome
    for job, generated in planned:
        if check:
            findings = check_package(job.out, generated)
            for finding in findings:
                outcome.messages.append(f"{finding.kind}: {display_path(finding.path)}")
                if finding.diff:
                    outcome.diffs.append(finding.diff)
            outcome.failed |= bool(findings)
            continue
        try:
            report = write_package(job.out, generated)
        except OSError as error:
            diagnostics.add(
                codes.UNWRITABLE_OUTPUT,
                f"cannot write {display_path(job.out / generated.package)}: "
                f"{error.strerror or error}",
                None,
            )
            outcome.failed = True
            continue
        outcome.messages.extend(report.summary_lines())
    return outcome
