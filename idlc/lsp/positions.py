"""Offsets in a text ↔ LSP positions (0-based line, column in the negotiated code units).

idlc counts columns in characters (code points); LSP clients count UTF-16 code units unless
they negotiate UTF-8 or UTF-32 (`positionEncoding`). Lines end as LSP says they do: at
`\r\n`, `\n` or `\r` (not at the other breaks Python's `str.splitlines` knows, such as a
form feed). Conversions go through offsets, so idlc's own line numbering (`\n` only, in
`idlc.source.SourceFile`) never leaks into LSP positions.
"""

from __future__ import annotations

import bisect
import re

from idlc.source import Span

_BREAK = re.compile(r"\r\n|\r|\n")


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class Lines:
    """One text's lines, for converting in both directions."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0]
        #: Where each line's text ends (its line break excluded).
        self.ends: list[int] = []
        for match in _BREAK.finditer(text):
            self.ends.append(match.start())
            self.starts.append(match.end())
        self.ends.append(len(text))

    def position(self, offset: int) -> tuple[int, int]:
        """The LSP (line, character) of a character offset (clamped to the text)."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        return line, _units(self.text[start : min(offset, self.ends[line])], self.encoding)

    def offset(self, line: int, character: int) -> int:
        """The character offset of an LSP position; past a line's end is its end."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = self.ends[line]
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

    def apply(self, start: tuple[int, int], end: tuple[int, int], new_text: str) -> str:
        """The text with the LSP range from `start` to `end` replaced by `new_text`."""
        begin = self.offset(*start)
        finish = max(begin, self.offset(*end))
        return self.text[:begin] + new_text + self.text[finish:]
