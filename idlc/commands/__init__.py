"""The commands of `idlc`, as a library: each takes its arguments as values, says what it
has to say through an `Echo` (`idlc.commands.console`) and returns the exit code.

- `check`: parse, resolve and lint;
- `fmt`: the canonical layout of IDL files (`format_paths`);
- `generate`: compile, generate and write or check packages (`run_generate`, which the
  Hatch build hook calls too);
- `dump`: the resolved model as JSON;
- `breaking`: wire-incompatible changes against an older version;
- `console` (how a command speaks and reports a bug of idlc) and `project` (the
  configured or discovered sources a command runs on, when it is given no files).

Two command lines read arguments into these calls and exit with what they return:
`idlc/__main__.py`, which runs a plain `check`, `fmt` or `generate` without click, and
`idlc/cli.py` (click), which takes every other command line. Each command is a module of
its own, imported only when it runs: `idlc check` imports nothing of generation
(tests/cli/test_startup.py).

Exit codes: 0 success (warnings allowed), 1 errors or `--check` findings; the command lines
add 2 for usage errors and 3 for an internal error of idlc itself.
"""

from __future__ import annotations


class UsageProblem(Exception):
    """A command line that cannot run, found before anything was said: the command line
    reports it as a usage error, with exit code 2."""

    def __init__(self, message: str, needs_output: bool = False) -> None:
        super().__init__(message)
        #: `generate` with no `--out` and nothing configured: `idlc.cli` says how to
        #: configure idlc.
        self.needs_output = needs_output
