"""Newline-delimited framing with a size limit that skips, rather than fails on, long lines.

`asyncio.StreamReader.readline` raises once a line exceeds the reader's limit and leaves the
stream in a state that is awkward to recover from. Reading chunks and splitting them here
keeps the limit ours: an oversized line is dropped as it streams in (only its first bytes are
kept, to answer it) and the next line is read normally. One read also yields every complete
line it carried, so a burst of small messages costs one wake-up, not one per line.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Final

#: How much one read asks for; also the largest overshoot of the concurrency bound per read.
CHUNK_SIZE: Final = 256 * 1024
#: How much of an oversized line is kept to find out what it was.
PREFIX_SIZE: Final = 1024


@dataclass(frozen=True, slots=True)
class Oversized:
    """Stands for a line longer than the limit, which was skipped."""

    size: int
    prefix: bytes


class LineReader:
    def __init__(self, stream: asyncio.StreamReader, max_line: int) -> None:
        self._stream = stream
        self._max_line = max_line
        self._partial = bytearray()
        #: While skipping an oversized line: its first bytes and the size seen so far.
        self._skipped: tuple[bytes, int] | None = None

    async def read_lines(self) -> list[bytes | Oversized]:
        """The next complete lines (without their newline); an empty list at end of stream.

        A last line without a newline is returned at end of stream as it is, so that a
        truncated message gets its parse error instead of vanishing.
        """
        while True:
            chunk = await self._stream.read(CHUNK_SIZE)
            if not chunk:
                return self._finish()
            lines = self._feed(chunk)
            if lines:
                return lines

    def _feed(self, chunk: bytes) -> list[bytes | Oversized]:
        out: list[bytes | Oversized] = []
        if self._skipped is not None:
            end = chunk.find(b"\n")
            prefix, size = self._skipped
            if end < 0:
                self._skipped = (prefix, size + len(chunk))
                return out
            self._skipped = None
            out.append(Oversized(size + end, prefix))
            chunk = chunk[end + 1 :]
        if b"\n" not in chunk:
            self._extend_partial(chunk)
            return out
        parts = chunk.split(b"\n")
        if self._partial:
            self._partial += parts[0]
            parts[0] = bytes(self._partial)
            self._partial.clear()
        tail = parts.pop()
        limit = self._max_line
        for line in parts:
            out.append(line if len(line) <= limit else Oversized(len(line), line[:PREFIX_SIZE]))
        self._extend_partial(tail)
        return out

    def _extend_partial(self, data: bytes) -> None:
        self._partial += data
        if len(self._partial) > self._max_line:
            # Stop buffering: keep what identifies the message and drop the rest as it comes.
            self._skipped = (bytes(self._partial[:PREFIX_SIZE]), len(self._partial))
            self._partial.clear()

    def _finish(self) -> list[bytes | Oversized]:
        if self._skipped is not None:
            prefix, size = self._skipped
            self._skipped = None
            return [Oversized(size, prefix)]
        if self._partial:
            line = bytes(self._partial)
            self._partial.clear()
            return [line]
        return []
