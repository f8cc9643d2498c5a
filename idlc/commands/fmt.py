"""`idlc fmt`: parse, format, then check, diff or write back atomically.

`format_paths` does it for files and folders; `run_fmt` is the command, which finds the
configured sources when it is given none.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from idlc.commands.console import Echo, exit_code, report
from idlc.commands.project import configuration_of, discovered
from idlc.diagnostics import Diagnostics, codes, without_allowed
from idlc.nodes import field, node
from idlc.output.atomic import write_atomic
from idlc.pipeline import parse_files
from idlc.source import SourceMap
from idlc.syntax.format import format_file, is_canonical


@node(frozen=False)
class FormatResult:
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    sources: SourceMap = field(default_factory=SourceMap)
    #: Files whose text is not canonical (rewritten unless checking).
    changed: list[str] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)


def format_paths(
    paths: Sequence[Path], *, write: bool, diff: bool, keep: Sequence[Path] = ()
) -> FormatResult:
    """Format files (folders: every `*.idl` below), reading them as `idlc check` does.

    A file with syntax errors is reported and left alone, and so is a file that is, or lies
    under, one of `keep` (sources configured with `format = false`).
    """
    parsed = parse_files(paths)
    # What a file declares is `check`'s business, not the layout's: an empty file is
    # canonical as it is, and a project that allows W0005 must not see it from every fmt.
    said = without_allowed(parsed.diagnostics, [codes.EMPTY_FILE.id])
    result = FormatResult(Diagnostics(said), parsed.sources)
    kept = [path.resolve() for path in keep]
    for item in parsed.files:
        if item.file is None or item.source is None:
            continue
        if kept and _under_any(item.path.resolve(), kept):
            continue
        if not (write or diff):
            # `--check`: only whether it would change, known at the first line that does.
            if not is_canonical(item.file, item.source):
                result.changed.append(item.display)
            continue
        formatted = format_file(item.file, item.source)
        if formatted == item.source.text:
            continue
        result.changed.append(item.display)
        if diff:
            import difflib

            result.diffs.append(
                "".join(
                    difflib.unified_diff(
                        item.source.text.splitlines(keepends=True),
                        formatted.splitlines(keepends=True),
                        f"a/{item.display}",
                        f"b/{item.display}",
                    )
                )
            )
        if write:
            write_atomic(item.path, formatted.encode("utf-8"))
    return result


def _under_any(path: Path, folders: list[Path]) -> bool:
    return any(path == folder or path.is_relative_to(folder) for folder in folders)


def run_fmt(
    files: Sequence[Path], check_only: bool, diff: bool, error_format: str, echo: Echo
) -> int:
    """Rewrite FILES (or every configured source; without [tool.idlc], every *.idl file
    under the current folder) in the canonical layout; with `check_only` or `diff`, write
    nothing and fail (1) if a file would change."""
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
            found = discovered(diagnostics, echo)
            if found is None:
                return 0
            paths = found
    result = format_paths(paths, write=not (check_only or diff), diff=diff, keep=keep)
    diagnostics.extend(result.diagnostics)
    report(diagnostics.items, result.sources, error_format, echo)
    for text in result.diffs:
        echo(text, nl=False)
    verb = "would reformat" if check_only or diff else "reformatted"
    for path in result.changed:
        echo(f"{verb} {path}", err=True)
    return exit_code(diagnostics, failed=bool(result.changed) and (check_only or diff))
