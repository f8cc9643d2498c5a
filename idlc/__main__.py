"""The `idlc` script (and `python -m idlc`): a plain `check`, `fmt` or `generate` read here
without click, every other command line handed to click (`idlc.cli`).

These are the commands pre-commit hooks, editors and builds run again and again: their
whole-process start-up is what users wait for, and importing and setting up click is a
sixth of it. So this module reads a plain `check` — `idlc check` with nothing else, or
with file names only — a plain `fmt` (file names and `--check` only) and a plain
`generate` (file names, `--out`, `--package`, `--check`), and hands every other command
line (any other option, `--help`, other commands, and anything click would refuse) to
click, which calls the same commands (`idlc.commands`). The output, the exit codes and the
files read are the same either way (tests/cli/test_plain_commands.py compares the two
paths); tests/cli/test_startup.py pins what this path imports.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from idlc.commands import UsageProblem
from idlc.commands.console import internal_errors


def main() -> None:
    """The `idlc` command: a plain `check`, `fmt` or `generate` here, everything else through
    click."""
    arguments = sys.argv[1:]
    command, rest = arguments[:1], arguments[1:]
    if os.name != "nt":  # click expands wildcards in arguments on Windows
        names = [argument for argument in rest if argument and not argument.startswith("-")]
        options = [argument for argument in rest if argument not in names]
        if command == ["check"] and not options and _click_accepts(names):
            from idlc.commands.check import run_check

            _plain(lambda: run_check(_paths(names), (), (), "human", echo))
        if command == ["fmt"] and set(options) <= {"--check"} and _click_accepts(names):
            from idlc.commands.fmt import run_fmt

            _plain(lambda: run_fmt(_paths(names), bool(options), False, "human", echo))
        if command == ["generate"]:
            plain = _plain_generate(rest)
            if plain is not None:
                from idlc.commands.generate import run_generate_command

                files, out, package, check_only = plain
                try:
                    _plain(
                        lambda: run_generate_command(
                            files, out, package, (), check_only, (), "human", echo
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


def _plain(run: Callable[[], int], passed: tuple[type[BaseException], ...] = ()) -> NoReturn:
    """A command run as click would run it: the same settings, exit codes, `Aborted!`."""
    # As the command group does (idlc.cli.main): no cyclic collection in a short batch.
    gc.disable()
    try:
        with internal_errors(echo, passed):
            code = run()
    except (EOFError, KeyboardInterrupt):
        echo(err=True)
        echo("Aborted!", err=True)
        sys.exit(1)
    except BrokenPipeError:
        sys.exit(1)
    except SystemExit as done:
        _exit_now(done)
    _exit_now(SystemExit(code))


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


def echo(message: str = "", nl: bool = True, err: bool = False) -> None:
    """`click.echo` for the text idlc prints (str, never colour to strip: see
    `idlc.commands.console.use_color`)."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    stream.write(message + "\n" if nl else message)
    stream.flush()


if __name__ == "__main__":
    main()
