"""`idlc fmt` on files: parse, format, then check, diff or write back atomically."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from idlc.diagnostics import Diagnostics, codes, without_allowed
from idlc.fsutil import write_atomic
from idlc.pipeline import parse_files
from idlc.source import SourceMap
from idlc.syntax.format import format_file


@dataclass(slots=True)
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
