"""What a command runs on when it is given no files: the packages `[tool.idlc]` configures
or, in a project that does not configure idlc, every IDL file under the working folder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from idlc.commands.console import Echo
from idlc.diagnostics import Diagnostics

if TYPE_CHECKING:
    from idlc.config import Config, NotConfigured


def configuration_of(diagnostics: Diagnostics) -> Config | NotConfigured | None:
    """`[tool.idlc]`, `NotConfigured` when nothing configures idlc, None when it is broken."""
    from idlc import config

    return config.lookup(diagnostics)


def discovered(diagnostics: Diagnostics, echo: Echo) -> tuple[Path, ...] | None:
    """Every IDL file under the working folder, for a project that does not configure idlc;
    None when there is none and nothing went wrong: the command is done, successfully.

    Finding none is a success with one line said about it: a pre-commit hook or a CI step in
    a repository without IDL files has nothing to check, and must not fail every commit.
    """
    from idlc.discovery import discover, nothing_found_message

    here = Path(".")
    found = discover(here, diagnostics)
    if not found and not diagnostics.has_errors:
        echo(nothing_found_message(here), err=True)
        return None
    return found
