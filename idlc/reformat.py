"""`idlc fmt` on files: parse, format, then check, diff or write back atomically."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from idlc.diagnostics import Diagnostics, codes
from idlc.fsutil import write_atomic
from idlc.source import SourceMap, display_path
from idlc.syntax import parser, reader
from idlc.syntax.format import format_file


@dataclass(slots=True)
class FormatResult:
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    sources: SourceMap = field(default_factory=SourceMap)
    #: Files whose text is not canonical (rewritten unless checking).
    changed: list[str] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)


def expand(paths: Sequence[Path], diagnostics: Diagnostics) -> list[Path]:
    """Files as given, folders as every `*.idl` below them (sorted)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(path.rglob("*.idl")))
        elif path.exists():
            files.append(path)
        else:
            diagnostics.add(codes.FILE_NOT_FOUND, f"no such file: {path}", None)
    return files


def format_paths(paths: Sequence[Path], *, write: bool, diff: bool) -> FormatResult:
    result = FormatResult()
    for path in expand(paths, result.diagnostics):
        shown = display_path(path)
        try:
            data = path.read_bytes()
        except OSError as error:
            result.diagnostics.add(
                codes.UNREADABLE_FILE, f"cannot read {shown}: {error.strerror}", None
            )
            continue
        source = reader.decode(shown, data, result.diagnostics)
        if source is None:
            continue
        result.sources.add(source)
        tree = parser.parse(source, result.diagnostics)
        if tree is None:
            continue
        formatted = format_file(tree, source)
        if formatted == source.text:
            continue
        result.changed.append(shown)
        if diff:
            result.diffs.append(
                "".join(
                    difflib.unified_diff(
                        source.text.splitlines(keepends=True),
                        formatted.splitlines(keepends=True),
                        f"a/{shown}",
                        f"b/{shown}",
                    )
                )
            )
        if write:
            write_atomic(path, formatted.encode("utf-8"))
    return result
