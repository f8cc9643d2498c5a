"""Source text and positions in it.

A `Span` is a value: it names the file by its display path, so diagnostics can be
rendered late, against a `SourceMap`, by whatever front end wants them.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from pathlib import Path


class Span:
    """A range of characters in one file. Lines and columns are 1-based; `end_*` is exclusive.

    Spans made by `SourceFile.span` compute their lines and columns only when asked: the
    parser makes one for every node, and most are never shown.
    """

    __slots__ = ("file", "start", "end", "_source", "_position")

    def __init__(
        self,
        file: str,
        start: int,
        end: int,
        line: int = 0,
        column: int = 0,
        end_line: int = 0,
        end_column: int = 0,
        *,
        source: SourceFile | None = None,
    ) -> None:
        self.file = file
        self.start = start
        self.end = end
        self._source = source
        self._position: tuple[int, int, int, int] | None = (
            None if source is not None else (line, column, end_line, end_column)
        )

    def _lines(self) -> tuple[int, int, int, int]:
        if self._position is None:
            assert self._source is not None
            line, column = self._source.position(self.start)
            end_line, end_column = self._source.position(self.end)
            self._position = (line, column, end_line, end_column)
        return self._position

    @property
    def line(self) -> int:
        return self._lines()[0]

    @property
    def column(self) -> int:
        return self._lines()[1]

    @property
    def end_line(self) -> int:
        return self._lines()[2]

    @property
    def end_column(self) -> int:
        return self._lines()[3]

    def _key(self) -> tuple[str, int, int, int, int, int, int]:
        return (self.file, self.start, self.end, *self._lines())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Span) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.file, self.start, self.end))

    def __repr__(self) -> str:
        line, column, end_line, end_column = self._lines()
        return f"Span({self.file!r}, {self.start}..{self.end}, {line}:{column}-{end_line}:{end_column})"

    def to(self, other: Span) -> Span:
        """The span from the start of this one to the end of `other`."""
        if self._source is not None and self._source is other._source:
            return Span(self.file, self.start, other.end, source=self._source)
        return Span(
            self.file,
            self.start,
            other.end,
            self.line,
            self.column,
            other.end_line,
            other.end_column,
        )

    def head(self, length: int) -> Span:
        """The first `length` characters of this span, on its first line (a name that
        starts a declaration, say); its lines and columns are computed as lazily as this
        span's."""
        if self._source is not None:
            return Span(self.file, self.start, self.start + length, source=self._source)
        line, column = self.line, self.column
        return Span(self.file, self.start, self.start + length, line, column, line, column + length)

    def to_json(self) -> dict[str, object]:
        line, column, end_line, end_column = self._lines()
        return {
            "file": self.file,
            "line": line,
            "column": column,
            "endLine": end_line,
            "endColumn": end_column,
        }


class SourceFile:
    """One file's text, with what is needed to turn offsets into lines and columns."""

    # A plain class, not a dataclass: `idlc check` imports no `dataclasses` (it loads
    # `inspect`, docs/benchmarks.md), and `_line_starts` is worked out, not given.
    __slots__ = ("path", "text", "_line_starts")
    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value: unhashable

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        starts = [0]
        find = self.text.find
        position = find("\n")
        while position != -1:
            starts.append(position + 1)
            position = find("\n", position + 1)
        self._line_starts = starts

    def __eq__(self, other: object) -> bool:
        if type(other) is not SourceFile:
            return NotImplemented
        return self.path == other.path and self.text == other.text

    def __repr__(self) -> str:
        return f"SourceFile(path={self.path!r}, text={self.text!r})"

    @property
    def line_count(self) -> int:
        return len(self._line_starts)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its line ending."""
        begin = self._line_starts[line - 1]
        end = self._line_starts[line] - 1 if line < len(self._line_starts) else len(self.text)
        return self.text[begin:end].rstrip("\r")

    def line_bounds(self, line: int) -> tuple[int, int]:
        """The offsets where a 1-based line's text begins and ends (before its line ending),
        for showing part of a long line without copying all of it."""
        begin = self._line_starts[line - 1]
        end = self._line_starts[line] - 1 if line < len(self._line_starts) else len(self.text)
        while end > begin and self.text[end - 1] == "\r":
            end -= 1
        return begin, end

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based (line, column) of a character offset."""
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + 1, offset - self._line_starts[index] + 1

    def span(self, start: int, end: int) -> Span:
        # `Span(self.path, start, end, source=self)` without its `__init__` (half the time):
        # the parser makes one span per node, over 300,000 for a large schema.
        span = _new_object(Span)
        span.file = self.path
        span.start = start
        span.end = end
        span._source = self
        span._position = None
        return span


_new_object = object.__new__


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
        return str(path.absolute().relative_to(Path.cwd().absolute()))
    except ValueError:
        return str(path)
