"""`idlc check`, `idlc fmt` and `idlc generate` without click: the commands pre-commit hooks,
editors and builds run again and again.

Their whole-process start-up is what users wait for, and importing and setting up click is a
sixth of it. So `idlc` (`idlc.checking:main`, also `python -m idlc`) runs a plain `check`
here — `idlc check` with nothing else, or with file names only — a plain `fmt` (file
names and `--check` only) and a plain `generate` (file names, `--out`, `--package`,
`--check`), and hands every other command line (any other option, `--help`, other
commands, and anything click would refuse) to click (`idlc.cli`), which calls the same
`run_check`, `run_fmt` and `run_generate_command`. The output, the exit codes and the files
read are the same either way (tests/cli/test_plain_commands.py compares the two paths);
tests/cli/test_startup.py pins what this path imports.

The helpers take an `echo` with click's signature (`message`, `nl`, `err`): `click.echo`
from `idlc.cli`, `_echo` here.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from idlc.diagnostics import Diagnostic, Diagnostics, without_allowed
from idlc.source import SourceMap

if TYPE_CHECKING:
    from idlc.config import Config, NotConfigured

Echo = Callable[..., None]


def main() -> None:
    """The `idlc` command: a plain `check`, `fmt` or `generate` here, everything else through
    click."""
    arguments = sys.argv[1:]
    command, rest = arguments[:1], arguments[1:]
    if os.name != "nt":  # click expands wildcards in arguments on Windows
        names = [argument for argument in rest if argument and not argument.startswith("-")]
        options = [argument for argument in rest if argument not in names]
        if command == ["check"] and not options and _click_accepts(names):
            _plain(lambda: run_check(_paths(names), (), (), "human", _echo))
        if command == ["fmt"] and set(options) <= {"--check"} and _click_accepts(names):
            _plain(lambda: run_fmt(_paths(names), bool(options), False, "human", _echo))
        if command == ["generate"]:
            plain = _plain_generate(rest)
            if plain is not None:
                files, out, package, check_only = plain
                try:
                    _plain(
                        lambda: run_generate_command(
                            files, out, package, (), check_only, (), "human", _echo
                        ),
                        passed=(UsageProblem,),
                    )
                except UsageProblem:
                    pass  # nothing said yet: click says it, with its usage line
    from idlc.cli import main as with_click

    with_click()


def _paths(names: list[str]) -> tuple[Path, ...]:
    return tuple(Path(name) for name in names)


def _click_accepts(names: Sequence[str], folders_only: bool = False) -> bool:
    """Whether click's `click.Path` (`file_okay=not folders_only`) takes every one of `names`:
    a path that exists must be readable (and a folder where only folders are allowed). What
    it refuses goes to click, which says so with its usage line and exit code 2."""
    import stat

    for name in names:
        try:
            mode = os.stat(name).st_mode
        except OSError:
            continue  # need not exist: the command reports a missing file itself
        if folders_only and stat.S_ISREG(mode) or not os.access(name, os.R_OK):
            return False
    return True


def _plain_generate(
    arguments: Sequence[str],
) -> tuple[tuple[Path, ...], Path | None, str | None, bool] | None:
    """FILES, `--out`, `--package` and `--check` of a plain `idlc generate` command line
    (each option at most once, `--out DIR` or `--out=DIR`), or None for anything else, or
    anything click would refuse: click takes those."""
    names: list[str] = []
    values: dict[str, str] = {}
    check_only = False
    position = 0
    while position < len(arguments):
        argument = arguments[position]
        position += 1
        option, equals, value = argument.partition("=")
        if argument == "--check" and not check_only:
            check_only = True
        elif option in ("--out", "--package") and option not in values:
            if not equals:
                if position == len(arguments):
                    return None
                value = arguments[position]
                position += 1
            if not value or value.startswith("-"):
                return None  # click's to read: it may take it as the value or refuse it
            values[option] = value
        elif argument and not argument.startswith("-"):
            names.append(argument)
        else:
            return None
    out, package = values.get("--out"), values.get("--package")
    if not _click_accepts(names) or out is not None and not _click_accepts([out], True):
        return None
    if package is not None:
        from idlc.config import package_name_problem

        if package_name_problem(package) is not None:
            return None
    return _paths(names), None if out is None else Path(out), package, check_only


def _plain(run: Callable[[], NoReturn], passed: tuple[type[BaseException], ...] = ()) -> NoReturn:
    """A command run as click would run it: the same settings, exit codes, `Aborted!`."""
    # As the command group does (idlc.cli.main): no cyclic collection in a short batch.
    gc.disable()
    try:
        with internal_errors(_echo, passed):
            run()
    except (EOFError, KeyboardInterrupt):
        _echo(err=True)
        _echo("Aborted!", err=True)
        sys.exit(1)
    except BrokenPipeError:
        sys.exit(1)
    except SystemExit as done:
        _exit_now(done)


def _exit_now(done: SystemExit) -> NoReturn:
    """End the process once the output is out, without the interpreter's tear-down.

    Tearing down frees every object one by one, and a check's model is most of them: a
    tenth of the whole run at N = 1000 in docs/benchmarks.md's front-end comparison. Nothing
    on this path needs the tear-down: no `atexit` hook, no temporary file, no thread; what
    it wrote (the table cache) was written and closed before this.
    """
    code = done.code
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # its descriptor was closed at start: nothing was written to it
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe, a full disk, a closed file
            code = 1 if code in (0, None) else code
    if code is None or isinstance(code, int):
        os._exit(code or 0)
    raise done  # a message to print: the interpreter's own exit does that


def _echo(message: str = "", nl: bool = True, err: bool = False) -> None:
    """`click.echo` for the text idlc prints (str, never colour to strip: see `use_color`)."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    stream.write(message + "\n" if nl else message)
    stream.flush()


def run_check(
    files: Sequence[Path],
    include: Sequence[Path],
    allow: Sequence[str],
    error_format: str,
    echo: Echo,
) -> NoReturn:
    """Parse, resolve and lint FILES (or everything in [tool.idlc]; without it, every *.idl
    file under the current folder, as one compilation); report; exit 1 on errors."""
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
            if found:
                jobs.append((found, include, allow))
    for paths, includes, allowed in jobs:
        compilation = compile_files(paths, includes)
        diagnostics.extend(without_allowed(compilation.diagnostics, allowed))
        for source in compilation.sources:
            sources.add(source)
    report(unique(diagnostics), sources, error_format, echo)
    finish(diagnostics)


def run_fmt(
    files: Sequence[Path], check_only: bool, diff: bool, error_format: str, echo: Echo
) -> NoReturn:
    """Rewrite FILES (or every configured source; without [tool.idlc], every *.idl file
    under the current folder) in the canonical layout; with `check_only` or `diff`, write
    nothing and exit 1 if a file would change."""
    from idlc.reformat import format_paths

    diagnostics = Diagnostics()
    paths: Sequence[Path] = files
    keep: Sequence[Path] = ()
    if not files:
        from idlc.config import Config

        configuration = configuration_of(diagnostics)
        if isinstance(configuration, Config):
            paths = configuration.all_sources
            keep = configuration.kept_sources
        elif configuration is not None:
            paths = discovered(diagnostics, echo)
    result = format_paths(paths, write=not (check_only or diff), diff=diff, keep=keep)
    diagnostics.extend(result.diagnostics)
    report(diagnostics.items, result.sources, error_format, echo)
    for text in result.diffs:
        echo(text, nl=False)
    verb = "would reformat" if check_only or diff else "reformatted"
    for path in result.changed:
        echo(f"{verb} {path}", err=True)
    finish(diagnostics, failed=bool(result.changed) and (check_only or diff))


class UsageProblem(Exception):
    """A command line that cannot run, found before anything was said: click reports it
    (`idlc.cli`), as a usage error with exit code 2."""

    def __init__(self, message: str, needs_output: bool = False) -> None:
        super().__init__(message)
        #: No `--out` and nothing configured: `idlc.cli` says how to configure idlc.
        self.needs_output = needs_output


def run_generate_command(
    files: Sequence[Path],
    out: Path | None,
    package: str | None,
    include: Sequence[Path],
    check_only: bool,
    allow: Sequence[str],
    error_format: str,
    echo: Echo,
) -> NoReturn:
    """Generate a typed Python package from FILES (or every package in [tool.idlc]; without
    it, every *.idl file under the current folder into `out`); with `check_only`, write
    nothing and exit 1 naming what is stale. Raises `UsageProblem` before saying anything
    when the command line cannot run."""
    from idlc.config import Config
    from idlc.generation import GenerateJob, run_generate

    diagnostics = Diagnostics()
    jobs: list[GenerateJob] = []
    if files:
        if out is None:
            raise UsageProblem("`--out DIR` is required when files are named")
        jobs.append(GenerateJob(files, include, out, package, allow))
    else:
        configuration = configuration_of(diagnostics)
        if configuration is None or isinstance(configuration, Config):
            if out is not None or package is not None:
                raise UsageProblem(
                    "`--out` and `--package` go with named files (`[tool.idlc]` sets both)"
                )
            if configuration is not None:
                for p in configuration.packages:
                    if p.out is None:
                        echo(_hook_only_note(p.name, check_only), err=True)
                        continue
                    jobs.append(
                        GenerateJob(
                            p.sources,
                            (*p.include, *include),
                            p.out,
                            p.name,
                            (*p.allow, *allow),
                            root=configuration.path.parent,
                        )
                    )
        elif out is None:
            raise UsageProblem("no output folder", needs_output=True)
        else:
            found = discovered(diagnostics, echo)
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
        command = fix_command(files, out, package, include, allow)
        echo(f"run `{command}` to update the generated files", err=True)
    finish(diagnostics, failed=outcome.failed)


def fix_command(
    files: Sequence[Path],
    out: Path | None,
    package: str | None,
    include: Sequence[Path],
    allow: Sequence[str],
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
    return shlex.join(words)


def _hook_only_note(name: str, check_only: bool) -> str:
    """What `generate` says of a package configured without `out`: the build hook makes
    it at build time, so no committed copy exists to write or to compare."""
    nothing = "nothing committed to compare" if check_only else "nothing to write"
    return (
        f"idlc: package `{name}` has no `out`: the Hatch build hook generates it into the "
        f"wheel, {nothing} (add `out` to keep a committed copy)"
    )


def use_color(stream: object) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def report(
    diagnostics: Sequence[Diagnostic], sources: SourceMap, error_format: str, echo: Echo
) -> None:
    """Human diagnostics go to stderr; JSON and GitHub commands to stdout, for tools."""
    if not diagnostics:
        return
    from idlc.diagnostics import render

    if error_format == "json":
        echo(render.render_json(diagnostics), nl=False)
    elif error_format == "github":
        echo(render.render_github(diagnostics), nl=False)
    else:
        text = render.render_human(diagnostics, sources, color=use_color(sys.stderr))
        echo(text, nl=False, err=True)


def finish(diagnostics: Diagnostics, failed: bool = False) -> NoReturn:
    sys.exit(1 if failed or diagnostics.has_errors else 0)


def unique(diagnostics: Diagnostics) -> list[Diagnostic]:
    """Each diagnostic once, even when configured packages share a file."""
    return list(dict.fromkeys(diagnostics.items))


@contextmanager
def internal_errors(echo: Echo, passed: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """A bug in idlc is reported as one, not as a traceback users must read. `passed`:
    exceptions that are no bug (click's, for the commands click runs)."""
    try:
        yield
    except (SystemExit, KeyboardInterrupt):
        raise
    except Exception as error:  # noqa: BLE001 - the last line of defence
        if isinstance(error, passed) or os.environ.get("IDLC_DEBUG"):
            raise
        echo(
            f"idlc: internal error: {type(error).__name__}: {error}\n"
            "This is a bug in idlc. Run again with IDLC_DEBUG=1 for the traceback, and "
            "please report it with the input that caused it.",
            err=True,
        )
        sys.exit(3)


def configuration_of(diagnostics: Diagnostics) -> Config | NotConfigured | None:
    """`[tool.idlc]`, `NotConfigured` when nothing configures idlc, None when it is broken."""
    from idlc import config

    return config.lookup(diagnostics)


def discovered(diagnostics: Diagnostics, echo: Echo) -> tuple[Path, ...]:
    """Every IDL file under the working folder, for a project that does not configure idlc.

    Finding none is a success with one line said about it: a pre-commit hook or a CI step in
    a repository without IDL files has nothing to check, and must not fail every commit.
    """
    from idlc.discovery import discover, nothing_found_message

    here = Path(".")
    found = discover(here, diagnostics)
    if not found and not diagnostics.has_errors:
        echo(nothing_found_message(here), err=True)
        sys.exit(0)
    return found
