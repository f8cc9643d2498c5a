"""How a command speaks: diagnostics to the right stream in the format asked for, its exit
code, and a bug of idlc reported as one.

`Echo` has click's signature (`message`, `nl`, `err`): `click.echo` when click runs the
command (`idlc.cli`), `idlc.__main__.echo` on the plain path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from idlc.diagnostics import Diagnostic, Diagnostics
from idlc.source import SourceMap

Echo = Callable[..., None]


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


def exit_code(diagnostics: Diagnostics, failed: bool = False) -> int:
    """1 when anything failed or any diagnostic is an error, else 0."""
    return 1 if failed or diagnostics.has_errors else 0


def unique(diagnostics: Diagnostics) -> list[Diagnostic]:
    """Each diagnostic once, even when configured packages share a file."""
    return list(dict.fromkeys(diagnostics.items))


@contextmanager
def internal_errors(echo: Echo, passed: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """A bug in idlc is reported as one (exit code 3), not as a traceback users must read.
    `passed`: exceptions that are no bug (click's, for the commands click runs)."""
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
