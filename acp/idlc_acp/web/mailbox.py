"""Messages waiting for one SSE stream of a streamable-HTTP connection (docs/acp-remote.md).

The agent's messages to the client leave on long-lived GET streams: one connection-scoped,
one per session. A `Mailbox` holds what is bound for one of them until a stream takes it.
It is bounded in bytes (and in count, for many tiny messages): once full, `put` waits, so a
client that reads nothing holds its agent back (the peer's writer stops, then its reader:
docs/wire.md §11) instead of filling memory. One message larger than the bound still goes
through when the mailbox is empty: it is within `max_message_size`, and refusing it would
stop the connection for good.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Final

#: Messages a mailbox holds before `put` waits.
MAILBOX_SIZE: Final = 256
#: Bytes (of JSON text, counted as UTF-8 at most 4 per character) a mailbox holds before
#: `put` waits.
MAILBOX_BYTES: Final = 4 * 1024 * 1024


def text_cost(text: str) -> int:
    """The bytes `text` holds in memory, bounded cheaply (no encoding)."""
    return len(text) if text.isascii() else 4 * len(text)


class Mailbox:
    """A bounded queue of JSON texts for one SSE stream, and whether a stream reads it."""

    def __init__(self, size: int = MAILBOX_SIZE, max_bytes: int = MAILBOX_BYTES) -> None:
        self._size = size
        self._max_bytes = max_bytes
        self._queue: deque[str] = deque()
        #: The bytes of the texts queued now.
        self.held = 0
        self._filled = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self.closed = False
        #: Whether a GET stream is attached and reading now.
        self.attached = False

    def __len__(self) -> int:
        return len(self._queue)

    def _full_for(self, cost: int) -> bool:
        if not self._queue:
            return False
        return len(self._queue) >= self._size or self.held + cost > self._max_bytes

    async def put(self, text: str) -> None:
        """Queue `text`; wait while there is no room for it. Dropped once closed."""
        cost = text_cost(text)
        while not self.closed and self._full_for(cost):
            self._room.clear()
            await self._room.wait()
        if self.closed:
            return
        self._append(text, cost)

    def _append(self, text: str, cost: int) -> None:
        self._queue.append(text)
        self.held += cost
        self._filled.set()

    async def get(self) -> str | None:
        """The next text, waiting for one; None once the mailbox is closed and empty."""
        while not self._queue:
            if self.closed:
                return None
            self._filled.clear()
            await self._filled.wait()
        text = self._queue.popleft()
        self.held -= text_cost(text)
        self._room.set()
        return text

    def drain_into(self, other: Mailbox) -> None:
        """Move what waits here to `other` (a session stream that went away: its
        messages go to the connection's stream rather than nowhere). `other` may go over
        its bound by what moves: these were already held, and its writers wait for it."""
        while self._queue:
            text = self._queue.popleft()
            other._append(text, text_cost(text))
        self.held = 0
        self._room.set()

    def close(self) -> None:
        """No more texts: readers get what is left, then None; writers return."""
        self.closed = True
        self._filled.set()
        self._room.set()
