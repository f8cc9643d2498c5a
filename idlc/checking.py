"""`idlc check` and `idlc fmt` without click: the commands pre-commit hooks and editors run
on every save.

Their whole-process start-up is what users wait for, and importing and setting up click is a
sixth of it. So `idlc` (`idlc.checking:main`, also `python -m idlc`) runs a plain `check`
here — `idlc check` with nothing else, or with file names only — and a plain `fmt` (file
names and `--check` only), and hands every other command line (any other option, `--help`,
other commands) to click (`idlc.cli`), which calls the same `run_check` and `run_fmt`. The output, the exit codes and the files read are the same either way;
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
    """The `idlc` command: a plain `check` or `fmt` here, everything else through click."""
    arguments = sys.argv[1:]
    command, rest = arguments[:1], arguments[1:]
    if os.name != "nt":  # click expands wildcards in arguments on Windows
        names = [argument for argument in rest if argument and not argument.startswith("-")]
        options = [argument for argument in rest if argument not in names]
        if command == ["check"] and not options:
            _plain(lambda: run_check(_paths(names), (), (), "human", _echo))
        if command == ["fmt"] and set(options) <= {"--check"}:
            _plain(lambda: run_fmt(_paths(names), bool(options), False, "human", _echo))
    from idlc.cli import main as with_click

    with_click()


def _paths(names: list[str]) -> tuple[Path, ...]:
    return tuple(Path(name) for name in names)


def _plain(run: Callable[[], NoReturn]) -> NoReturn:
    """A command run as click would run it: the same settings, exit codes, `Aborted!`."""
    # As the command group does (idlc.cli.main): no cyclic collection in a short batch.
    gc.disable()
    try:
        with internal_errors(_echo):
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
