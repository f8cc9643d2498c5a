"""`idlc generate`: compile every job, generate every package, then write (or check) them.

All or nothing: if any job has an error, no file of any job is written; each package is
switched from old to new in one step, and every package is built before the first switch.

`run_generate` does it for jobs (the Hatch build hook calls it too); `run_generate_command`
is the command, which makes the jobs of its arguments or of `[tool.idlc]`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from idlc.commands import UsageProblem
from idlc.commands.console import Echo, exit_code, report, unique
from idlc.commands.project import configuration_of, discovered
from idlc.diagnostics import Diagnostics, codes, without_allowed
from idlc.nodes import field, node
from idlc.source import SourceMap, display_path
from idlc.targets.python.naming import snake_case

if TYPE_CHECKING:
    from idlc.codegen import GeneratedPackage


@node
class GenerateJob:
    sources: Sequence[Path]
    include: Sequence[Path]
    out: Path  # the folder that receives the package folder
    package: str | None  # None: named after the first source file
    allow: Sequence[str] = ()  # warning codes not to report
    #: The project folder the generated headers name the sources relative to (None: the
    #: one found from the sources, `idlc.codegen.provenance.source_names`).
    root: Path | None = None
    #: The `@unstable` features whose items the package has besides the stable ones (None:
    #: every feature; docs/language.md, "Stability").
    features: frozenset[str] | None = frozenset()
    #: The import path of the package generated from the same sources' stable view, which
    #: this one (of some features) imports every declaration they leave alone from.
    stable_package: str | None = None
    #: The target language: "python" or "typescript" (docs/typescript-mapping.md).
    target: str = "python"


@node(frozen=False)
class GenerateOutcome:
    sources: SourceMap = field(default_factory=SourceMap)
    messages: list[str] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    failed: bool = False
    #: `--check` found a stale, missing, extra or leftover file: generating again fixes it.
    out_of_date: bool = False


def default_package_name(sources: Sequence[Path]) -> str:
    """The package name when none is given: the first source file's name in snake_case."""
    first = sources[0]
    return snake_case(first.stem if first.suffix else first.name)


def run_generate(
    jobs: Sequence[GenerateJob], *, check: bool, diagnostics: Diagnostics
) -> GenerateOutcome:
    # Imported here: Jinja2 and the templates are only needed by this command.
    from idlc.codegen import generate
    from idlc.codegen.provenance import source_names
    from idlc.config import package_name_problem, typescript_package_name_problem
    from idlc.output.package import check_package
    from idlc.pipeline import compile_files

    outcome = GenerateOutcome()
    planned = []
    for job in jobs:
        compilation = compile_files(job.sources, job.include, features=job.features)
        diagnostics.extend(without_allowed(compilation.diagnostics, job.allow))
        for source in compilation.sources:
            outcome.sources.add(source)
        if compilation.model is None:
            continue
        package = job.package or default_package_name(job.sources)
        typescript = job.target == "typescript"
        problem = (typescript_package_name_problem if typescript else package_name_problem)(package)
        if problem is not None:
            diagnostics.add(
                codes.RESERVED_GENERATED_NAME,
                f"the package name `{package}` (from the first file's name) cannot be used: {problem}",
                None,
                help="name the package with `--package NAME` (or `name` in [tool.idlc])",
            )
            continue
        names = source_names(compilation.model.sources, job.root)
        if typescript:
            from idlc.codegen.typescript import generate as generate_typescript

            if job.stable_package is not None:
                diagnostics.add(
                    codes.BAD_CONFIGURATION,
                    f"package `{package}`: a TypeScript package has no `stable-package` "
                    "(it is generated whole)",
                    None,
                )
                continue
            generated = generate_typescript(compilation.model, package, source_names=names)
            diagnostics.extend(generated.diagnostics)
            planned.append((job, generated))
            continue
        base = None
        if job.stable_package is not None:
            base = compilation.overlay(job.stable_package)
        generated = generate(
            compilation.model, package, source_names=names, plan=compilation.plan, base=base
        )
        diagnostics.extend(generated.diagnostics)
        planned.append((job, generated))
    if diagnostics.has_errors:
        outcome.failed = True
        outcome.messages.append("nothing was written: fix the errors above first")
        return outcome
    if not check:
        _write_all(planned, diagnostics, outcome)
        return outcome
    for job, generated in planned:
        try:
            findings = check_package(job.out, generated)
        except OSError as error:  # a symlink loop, a folder it may not read
            problem = _os_problem("cannot read", job.out / generated.package, error)
            diagnostics.add(codes.UNWRITABLE_OUTPUT, problem, None)
            outcome.failed = True
            continue
        for finding in findings:
            outcome.messages.append(f"{finding.kind}: {display_path(finding.path)}")
            if finding.diff:
                outcome.diffs.append(finding.diff)
        outcome.failed |= bool(findings)
        outcome.out_of_date |= bool(findings)
    return outcome


def _os_problem(doing: str, path: Path, error: OSError) -> str:
    """`cannot write out/pkg: <reason>`, naming the file the system refused when it is
    another one (`out/pkg/.idlc-manifest`)."""
    message = f"{doing} {display_path(path)}: {error.strerror or error}"
    if error.filename is not None and Path(os.fsdecode(error.filename)) != path:
        message += f" ({display_path(Path(os.fsdecode(error.filename)))})"
    return message


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: mkdir reports it
        return path.absolute()


def _write_all(
    planned: Sequence[tuple[GenerateJob, GeneratedPackage]],
    diagnostics: Diagnostics,
    outcome: GenerateOutcome,
) -> None:
    """Write every package, all or nothing: clean up after interrupted runs, look for
    anything in the way of any package, build every new package beside its old one, and
    only then switch them in (`idlc.output.package`)."""
    from idlc.output.atomic import folder_lock
    from idlc.output.package import OutputConflict, StagedPackage, conflicts, recover, stage_package

    def unwritable(path: Path, error: OSError) -> None:
        diagnostics.add(codes.UNWRITABLE_OUTPUT, _os_problem("cannot write", path, error), None)
        outcome.failed = True

    def fail() -> None:
        outcome.failed = True
        outcome.messages.append("nothing was written: fix the errors above first")

    with ExitStack() as locks:
        # Each folder locked once (a second lock on it would wait for the first) and in one
        # order, by real path, so that two runs never wait for each other.
        folders = {_real(job.out): job.out for job, _ in planned}
        for _, out in sorted(folders.items()):
            try:
                out.mkdir(parents=True, exist_ok=True)
                locks.enter_context(folder_lock(out))
            except OSError as error:
                unwritable(out, error)
        if outcome.failed:
            return fail()
        for job, generated in planned:
            try:
                for path in recover(job.out, generated.package):
                    outcome.messages.append(f"removed leftover {display_path(path)}")
            except OSError as error:
                unwritable(job.out / generated.package, error)
        for job, generated in planned:
            try:
                in_the_way = conflicts(job.out, generated)
            except OSError as error:
                unwritable(job.out / generated.package, error)
                continue
            for path in in_the_way:
                diagnostics.add(
                    codes.FOREIGN_OUTPUT_FILE,
                    f"{display_path(path)} exists and was not written by idlc",
                    None,
                    help="move it away, or generate into another folder",
                )
        if diagnostics.has_errors:
            return fail()
        staged: list[StagedPackage] = []
        try:
            for job, generated in planned:
                try:
                    staged.append(stage_package(job.out, generated))
                except OSError as error:
                    unwritable(job.out / generated.package, error)
                    break
                except OutputConflict as conflict:  # appeared since the look above
                    for path in conflict.paths:
                        diagnostics.add(
                            codes.FOREIGN_OUTPUT_FILE,
                            f"{display_path(path)} exists and was not written by idlc",
                            None,
                        )
                    break
        finally:
            if diagnostics.has_errors or len(staged) != len(planned):
                for package in staged:
                    package.discard()
        if diagnostics.has_errors or len(staged) != len(planned):
            return fail()
        for (job, generated), package in zip(planned, staged, strict=True):
            try:
                report = package.switch()
            except OSError as error:
                unwritable(job.out / generated.package, error)
                package.discard()
                continue
            outcome.messages.extend(report.summary_lines())


def run_generate_command(
    files: Sequence[Path],
    out: Path | None,
    package: str | None,
    include: Sequence[Path],
    check_only: bool,
    allow: Sequence[str],
    error_format: str,
    echo: Echo,
    features: Sequence[str] = (),
    stable_package: str | None = None,
    target: str = "python",
) -> int:
    """Generate a typed Python package from FILES (or every package in [tool.idlc]; without
    it, every *.idl file under the current folder into `out`); with `check_only`, write
    nothing and fail (1) naming what is stale. Raises `UsageProblem` before saying anything
    when the command line cannot run."""
    from idlc.config import Config

    diagnostics = Diagnostics()
    jobs: list[GenerateJob] = []
    if files:
        if out is None:
            raise UsageProblem("`--out DIR` is required when files are named")
        jobs.append(
            GenerateJob(
                files,
                include,
                out,
                package,
                allow,
                features=feature_set(features),
                stable_package=stable_package,
                target=target,
            )
        )
    else:
        configuration = configuration_of(diagnostics)
        if configuration is None or isinstance(configuration, Config):
            if out is not None or package is not None or target != "python":
                raise UsageProblem(
                    "`--out`, `--package` and `--target` go with named files (`[tool.idlc]` sets them)"
                )
            if configuration is not None:
                for p in configuration.packages:
                    for language in p.targets:
                        folder = p.out
                        if language == "typescript" and p.typescript_out is not None:
                            folder = p.typescript_out
                        if folder is None:
                            echo(_hook_only_note(p.name, check_only), err=True)
                            continue
                        jobs.append(
                            GenerateJob(
                                p.sources,
                                (*p.include, *include),
                                folder,
                                p.name,
                                (*p.allow, *allow),
                                root=configuration.path.parent,
                                features=feature_set(p.features),
                                stable_package=(p.stable_package if language == "python" else None),
                                target=language,
                            )
                        )
        elif out is None:
            raise UsageProblem("no output folder", needs_output=True)
        else:
            found = discovered(diagnostics, echo)
            if found is None:
                return 0
            if found:
                jobs.append(GenerateJob(found, include, out, package, allow))
    outcome = run_generate(jobs, check=check_only, diagnostics=diagnostics)
    report(unique(diagnostics), outcome.sources, error_format, echo)
    for line in outcome.messages:
        echo(line, err=True)
    for text in outcome.diffs:
        echo(text, nl=False)
    if outcome.out_of_date:
        # Last, after the diffs: the line a person (or a pre-commit log) reads first.
        command = fix_command(files, out, package, include, allow, features, stable_package, target)
        echo(f"run `{command}` to update the generated files", err=True)
    return exit_code(diagnostics, failed=outcome.failed)


def fix_command(
    files: Sequence[Path],
    out: Path | None,
    package: str | None,
    include: Sequence[Path],
    allow: Sequence[str],
    features: Sequence[str] = (),
    stable_package: str | None = None,
    target: str = "python",
) -> str:
    """The `idlc generate` command line that rewrites what `idlc generate --check` checked
    with these arguments: the same one, less `--check`, quoted for a POSIX shell."""
    import shlex

    words = ["idlc", "generate", *(str(path) for path in files)]
    if out is not None:
        words += ["--out", str(out)]
    if package is not None:
        words += ["--package", package]
    for folder in include:
        words += ["-I", str(folder)]
    for code in allow:
        words += ["-A", code]
    if features:
        words += ["--features", ",".join(features)]
    if stable_package is not None:
        words += ["--stable-package", stable_package]
    if target != "python":
        words += ["--target", target]
    return shlex.join(words)


def feature_set(names: Sequence[str]) -> frozenset[str] | None:
    """The features of a package as `--features` or `features` name them: `*` is every one."""
    return None if "*" in names else frozenset(names)


def _hook_only_note(name: str, check_only: bool) -> str:
    """What `generate` says of a package configured without `out`: the build hook makes
    it at build time, so no committed copy exists to write or to compare."""
    nothing = "nothing committed to compare" if check_only else "nothing to write"
    return (
        f"idlc: package `{name}` has no `out`: the Hatch build hook generates it into the "
        f"wheel, {nothing} (add `out` to keep a committed copy)"
    )
