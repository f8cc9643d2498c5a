"""Source text and positions in it.

A `Span` is a value: it names the file by its display path, so diagnostics can be
rendered late, against a `SourceMap`, by whatever front end wants them.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Span:
    """A range of characters in one file. Lines and columns are 1-based; `end_*` is exclusive."""

    file: str
    start: int
    end: int
    line: int
    column: int
    end_line: int
    end_column: int

    def to(self, other: Span) -> Span:
        """The span from the start of this one to the end of `other`."""
        return Span(
            self.file,
            self.start,
            other.end,
            self.line,
            self.column,
            other.end_line,
            other.end_column,
        )

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "endLine": self.end_line,
            "endColumn": self.end_column,
        }


@dataclass(slots=True)
class SourceFile:
    """One file's text, with what is needed to turn offsets into lines and columns."""

    path: str
    text: str
    _line_starts: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        starts = [0]
        find = self.text.find
        position = find("\n")
        while position != -1:
            starts.append(position + 1)
            position = find("\n", position + 1)
        self._line_starts = starts

    @property
    def line_count(self) -> int:
        return len(self._line_starts)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its line ending."""
        begin = self._line_starts[line - 1]
        end = self._line_starts[line] - 1 if line < len(self._line_starts) else len(self.text)
        return self.text[begin:end].rstrip("\r")

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based (line, column) of a character offset."""
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + 1, offset - self._line_starts[index] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Span(self.path, start, end, line, column, end_line, end_column)


class SourceMap:
    """Every file read in one run, by display path, for rendering diagnostics."""

    def __init__(self) -> None:
        self._files: dict[str, SourceFile] = {}

    def add(self, source: SourceFile) -> SourceFile:
        self._files[source.path] = source
        return source

    def get(self, path: str) -> SourceFile | None:
        return self._files.get(path)

    def __iter__(self) -> Iterator[SourceFile]:
        return iter(self._files.values())


def display_path(path: Path) -> str:
    """A path as users should see it: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
