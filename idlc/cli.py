"""The `idlc` command line, read by click: parse the arguments, call the command
(`idlc.commands`), exit with its code.

Exit codes: 0 success (warnings allowed), 1 errors or `--check` findings, 2 usage errors
(click's own, and a command's `UsageProblem`), 3 an internal error of idlc itself.

A plain `idlc check`, `fmt` or `generate` does not even import this module: the `idlc`
script (`idlc/__main__.py`) reads those command lines itself and hands every other one
here. Each command's module is imported only when it runs, so `idlc check` starts fast.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import click

from idlc import __version__
from idlc.commands import UsageProblem
from idlc.commands.console import internal_errors

_FORMATS = click.Choice(["human", "json", "github"])
#: What click raises to say something itself: no bug of idlc.
_CLICKS = (click.exceptions.ClickException, click.exceptions.Exit)


def _run(command: Callable[[], int]) -> NoReturn:
    """Run a command as the `idlc` command line does: its usage problems as click's usage
    errors, a bug of idlc reported as one, its exit code the process's."""
    with internal_errors(click.echo, _CLICKS):
        try:
            code = command()
        except UsageProblem as problem:
            if problem.needs_output:
                raise _NeedsOutput() from None
            raise click.UsageError(str(problem)) from None
    sys.exit(code)


class _NeedsOutput(click.ClickException):
    """`idlc generate` with nothing saying where to write: a usage error, said in one line."""

    exit_code = 2

    def __init__(self) -> None:
        super().__init__(
            "`idlc generate` needs `--out DIR`: no [tool.idlc] in pyproject.toml says where "
            "to write the package (or configure [[tool.idlc.packages]] with name, sources, out)"
        )


_files_argument = click.argument("files", nargs=-1, type=click.Path(path_type=Path))
_include_option = click.option(
    "-I",
    "--include",
    "include",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Also look for imported interfaces in this folder (repeatable).",
)


def _check_allow(
    context: click.Context, parameter: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    if not value:
        return value  # nothing to check: `idlc.config` (and tomllib) stays unimported
    from idlc.config import warning_code_problem

    for code in value:
        problem = warning_code_problem(code)
        if problem is not None:
            raise click.BadParameter(problem, context, parameter)
    return value


def _check_features(
    context: click.Context, parameter: click.Parameter, value: str
) -> tuple[str, ...]:
    from idlc.config import feature_name_problem

    names = tuple(name.strip() for name in value.split(",") if name.strip())
    for name in names:
        problem = feature_name_problem(name)
        if problem is not None:
            raise click.BadParameter(f"{name!r}: {problem}", context, parameter)
    return names


_allow_option = click.option(
    "-A",
    "--allow",
    "allow",
    multiple=True,
    callback=_check_allow,
    metavar="CODE",
    help="Do not report this warning (repeatable), e.g. -A W0002.",
)
_error_format_option = click.option(
    "--error-format",
    type=_FORMATS,
    default="human",
    show_default=True,
    help="How to print diagnostics: for people, JSON lines, or GitHub workflow commands.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="idlc")
def main() -> None:
    """Compile interface definitions into typed Python."""
    # Every command is one short batch that allocates millions of small, long-lived,
    # acyclic objects (syntax trees, models, view models): the cyclic collector would only
    # rescan them (a full pass over a large model took 0.8 s). Reference counting still
    # frees what is dropped; the process ends with the command.
    gc.disable()


@main.command()
@_files_argument
@_include_option
@_allow_option
@_error_format_option
def check(
    files: tuple[Path, ...], include: tuple[Path, ...], allow: tuple[str, ...], error_format: str
) -> None:
    """Parse, resolve and lint FILES (or everything in [tool.idlc]; without it, every *.idl
    file under the current folder, as one compilation)."""
    from idlc.commands.check import run_check

    _run(lambda: run_check(files, include, allow, error_format, click.echo))


@main.command()
@_files_argument
@click.option(
    "--check", "check_only", is_flag=True, help="Write nothing; exit 1 if a file would change."
)
@click.option(
    "--diff", is_flag=True, help="Print what would change as a unified diff; write nothing."
)
@_error_format_option
def fmt(files: tuple[Path, ...], check_only: bool, diff: bool, error_format: str) -> None:
    """Rewrite FILES (or every configured source; without [tool.idlc], every *.idl file
    under the current folder) in the canonical layout."""
    from idlc.commands.fmt import run_fmt

    _run(lambda: run_fmt(files, check_only, diff, error_format, click.echo))


@main.command()
@_files_argument
@_include_option
@click.option(
    "--json", "as_json", is_flag=True, help="Print the resolved model as JSON (the only format)."
)
@_error_format_option
def dump(
    files: tuple[Path, ...], include: tuple[Path, ...], as_json: bool, error_format: str
) -> None:
    """Print the resolved model of FILES, spans included, for tools."""
    from idlc.commands.dump import run_dump

    if not as_json:
        raise click.UsageError("`idlc dump` needs `--json` (JSON is its only format)")
    if not files:
        raise click.UsageError("`idlc dump` needs at least one file")
    _run(lambda: run_dump(files, include, error_format, click.echo))


@main.command()
@_files_argument
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    help="The folder the package is written into.",
)
@click.option(
    "--package",
    help="The package name (default: the first file's name in snake_case).",
)
@click.option(
    "--target",
    type=click.Choice(["python", "typescript"]),
    default="python",
    show_default=True,
    help="The language of the generated package (docs/typescript-mapping.md for TypeScript).",
)
@_include_option
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Write nothing; exit 1 naming every stale, missing or extra file, and what an interrupted run left.",
)
@click.option(
    "--features",
    default="",
    callback=_check_features,
    metavar="A,B",
    help="The @unstable features whose items the package has besides the stable ones (`*`: all).",
)
@click.option(
    "--stable-package",
    metavar="IMPORT.PATH",
    help="With --features: import what the features leave alone from this package, generated from the same files' stable view.",
)
@_allow_option
@_error_format_option
def generate(
    files: tuple[Path, ...],
    out: Path | None,
    package: str | None,
    target: str,
    include: tuple[Path, ...],
    check_only: bool,
    features: tuple[str, ...],
    stable_package: str | None,
    allow: tuple[str, ...],
    error_format: str,
) -> None:
    """Generate a typed Python (or TypeScript) package from FILES (or every package in
    [tool.idlc]; without it, every *.idl file under the current folder into `--out`)."""
    from idlc.commands.generate import run_generate_command
    from idlc.config import package_name_problem, typescript_package_name_problem

    if package is not None:
        check = typescript_package_name_problem if target == "typescript" else package_name_problem
        problem = check(package)
        if problem is not None:
            raise click.BadParameter(f"{package!r}: {problem}", param_hint="'--package'")
    if stable_package is not None and target == "typescript":
        raise click.UsageError("`--stable-package` is for Python packages only")

    _run(
        lambda: run_generate_command(
            files,
            out,
            package,
            include,
            check_only,
            allow,
            error_format,
            click.echo,
            features,
            stable_package,
            target,
        )
    )


@main.command()
@click.argument("new", required=False, type=click.Path(path_type=Path))
@click.option(
    "--against",
    metavar="OLD",
    help="The old version: a file or folder, or `git:REF` for the same paths at a git revision.",
)
@_include_option
@_error_format_option
@click.option("--list-rules", is_flag=True, help="Print every rule's id, name and explanation.")
def breaking(
    new: Path | None,
    against: str | None,
    include: tuple[Path, ...],
    error_format: str,
    list_rules: bool,
) -> None:
    """List wire-incompatible changes of NEW against OLD; fail when an interface changed
    incompatibly and kept its revision.

    NEW is a file or a folder (every *.idl below); without it, every package in
    [tool.idlc] is compared with its sources at `--against git:REF`. The changes are
    printed on stdout.
    """
    from idlc.commands.breaking import print_rules, run_breaking_command

    if list_rules:
        _run(lambda: print_rules(click.echo))
    if against is None:
        raise click.UsageError("`idlc breaking` needs `--against OLD`")
    _run(lambda: run_breaking_command(new, against, include, error_format, click.echo))


@main.command()
@click.option(
    "--stdio", is_flag=True, help="Talk over stdin/stdout (the default and only transport)."
)
def lsp(stdio: bool) -> None:
    """Run the IDL language server (LSP over stdio) for editors; see docs/editors.md."""
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        click.echo("idlc lsp needs the language server extra: pip install 'idlc[lsp]'", err=True)
        sys.exit(2)
    with internal_errors(click.echo, _CLICKS):
        from idlc.lsp.server import serve

        serve()
