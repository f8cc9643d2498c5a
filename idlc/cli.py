"""The `idlc` command. Thin: parse arguments, call the library, choose the exit code.

Exit codes: 0 success (warnings allowed), 1 errors or `--check` findings, 2 usage errors
(click's own), 3 an internal error of idlc itself.

Heavy imports (Jinja2) happen only inside `generate`, so `idlc check` starts fast;
a plain `idlc check`, `fmt` or `generate` does not even import this module
(idlc/checking.py runs them without click).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from idlc import __version__, checking
from idlc.diagnostics import Diagnostic, Diagnostics
from idlc.source import SourceMap

if TYPE_CHECKING:
    from idlc.config import Config

_FORMATS = click.Choice(["human", "json", "github"])


_use_color = checking.use_color
_finish = checking.finish
_unique = checking.unique


def _report(diagnostics: Sequence[Diagnostic], sources: SourceMap, error_format: str) -> None:
    """Human diagnostics go to stderr; JSON and GitHub commands to stdout, for tools."""
    checking.report(diagnostics, sources, error_format, click.echo)


def _internal_errors() -> AbstractContextManager[None]:
    """A bug in idlc is reported as one, not as a traceback users must read."""
    return checking.internal_errors(
        click.echo, (click.exceptions.ClickException, click.exceptions.Exit)
    )


def _configured(diagnostics: Diagnostics) -> Config | None:
    from idlc import config

    return config.load(diagnostics)


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


def _check_package(
    context: click.Context, parameter: click.Parameter, value: str | None
) -> str | None:
    from idlc.config import package_name_problem

    problem = package_name_problem(value) if value is not None else None
    if problem is not None:
        raise click.BadParameter(f"{value!r}: {problem}", context, parameter)
    return value


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
    with _internal_errors():
        checking.run_check(files, include, allow, error_format, click.echo)


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
    with _internal_errors():
        checking.run_fmt(files, check_only, diff, error_format, click.echo)


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
    import json

    from idlc.pipeline import compile_files
    from idlc.semantics.dump import model_to_json

    if not as_json:
        raise click.UsageError("`idlc dump` needs `--json` (JSON is its only format)")
    if not files:
        raise click.UsageError("`idlc dump` needs at least one file")
    with _internal_errors():
        compilation = compile_files(files, include)
        _report(compilation.diagnostics.items, compilation.sources, error_format)
        if compilation.model is None:
            _finish(compilation.diagnostics, failed=True)
        click.echo(json.dumps(model_to_json(compilation.model), indent=2, ensure_ascii=False))
        _finish(compilation.diagnostics)


@main.command()
@_files_argument
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    help="The folder the package is written into.",
)
@click.option(
    "--package",
    callback=_check_package,
    help="The Python package name (default: the first file's name).",
)
@_include_option
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Write nothing; exit 1 naming every stale, missing or extra file, and what an interrupted run left.",
)
@_allow_option
@_error_format_option
def generate(
    files: tuple[Path, ...],
    out: Path | None,
    package: str | None,
    include: tuple[Path, ...],
    check_only: bool,
    allow: tuple[str, ...],
    error_format: str,
) -> None:
    """Generate a typed Python package from FILES (or every package in [tool.idlc]; without
    it, every *.idl file under the current folder into `--out`)."""
    with _internal_errors():
        try:
            checking.run_generate_command(
                files, out, package, include, check_only, allow, error_format, click.echo
            )
        except checking.UsageProblem as problem:
            if problem.needs_output:
                raise _NeedsOutput() from None
            raise click.UsageError(str(problem)) from None


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
    from idlc.breaking import REGISTRY, BreakingJob, InputError, run_breaking
    from idlc.breaking.report import render_github, render_human, render_json

    if list_rules:
        for rule in REGISTRY.values():
            click.echo(f"{rule.id}  {rule.name}: {rule.explanation}")
        return
    if against is None:
        raise click.UsageError("`idlc breaking` needs `--against OLD`")
    with _internal_errors():
        diagnostics = Diagnostics()
        jobs: list[BreakingJob] = []
        if new is not None:
            jobs.append(BreakingJob((new,), include))
        elif not against.startswith("git:"):
            raise click.UsageError("without NEW, `--against` must be `git:REF`")
        else:
            configuration = _configured(diagnostics)
            if configuration is not None:
                jobs.extend(
                    BreakingJob(p.sources, (*p.include, *include)) for p in configuration.packages
                )
        if diagnostics.has_errors:
            _report(diagnostics.items, SourceMap(), error_format)
            _finish(diagnostics)
        try:
            outcome = run_breaking(jobs, against)
        except InputError as error:
            raise click.UsageError(str(error)) from None
        _report(outcome.diagnostics, outcome.sources, error_format)
        if error_format == "json":
            click.echo(render_json(outcome.comparisons, outcome.shown), nl=False)
        elif error_format == "github":
            click.echo(render_github(outcome.comparisons, outcome.shown), nl=False)
        else:
            text = render_human(outcome.comparisons, outcome.shown, color=_use_color(sys.stdout))
            click.echo(text, nl=False)
        _finish(diagnostics, failed=outcome.failed)


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
    with _internal_errors():
        from idlc.lsp.server import serve

        serve()
