"""Offsets in a text ↔ LSP positions (0-based line, column in the negotiated code units).

idlc counts columns in characters (code points); LSP clients count UTF-16 code units unless
they negotiate UTF-8 or UTF-32 (`positionEncoding`). Lines end at `\\n` (a `\\r` before it
belongs to the line ending), as in `idlc.source.SourceFile`.
"""

from __future__ import annotations

import bisect

from idlc.source import SourceFile, Span


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class Lines:
    """One text's line starts, for converting in both directions."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.text = text
        self.encoding = encoding
        starts = [0]
        position = text.find("\n")
        while position != -1:
            starts.append(position + 1)
            position = text.find("\n", position + 1)
        self.starts = starts

    @classmethod
    def of(cls, source: SourceFile, encoding: str = "utf-16") -> Lines:
        return cls(source.text, encoding)

    def _line_end(self, line: int) -> int:
        if line + 1 == len(self.starts):
            return len(self.text)
        end = self.starts[line + 1] - 1  # the `\n`
        if end > self.starts[line] and self.text[end - 1] == "\r":
            end -= 1
        return end

    def position(self, offset: int) -> tuple[int, int]:
        """The LSP (line, character) of a character offset (clamped to the text)."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        return line, _units(self.text[start:offset], self.encoding)

    def offset(self, line: int, character: int) -> int:
        """The character offset of an LSP position; past a line's end is its end."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = self._line_end(line)
        if self.encoding == "utf-32":
            return min(start + max(character, 0), end)
        counted = 0
        index = start
        while index < end and counted < character:
            counted += _units(self.text[index], self.encoding)
            index += 1
        return index

    def span_range(self, span: Span) -> tuple[tuple[int, int], tuple[int, int]]:
        return self.position(span.start), self.position(span.end)
