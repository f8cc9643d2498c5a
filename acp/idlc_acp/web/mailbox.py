"""Messages waiting for one SSE stream of a streamable-HTTP connection (docs/acp-remote.md).

The agent's messages to the client leave on long-lived GET streams: one connection-scoped,
one per session. A `Mailbox` holds what is bound for one of them until a stream takes it.
It is bounded: once full, `put` waits, so a client that reads nothing holds its agent back
(the peer's writer stops, then its reader: docs/wire.md §11) instead of filling memory.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Final

#: Messages a mailbox holds before `put` waits.
MAILBOX_SIZE: Final = 256


class Mailbox:
    """A bounded queue of JSON texts for one SSE stream, and whether a stream reads it."""

    def __init__(self, size: int = MAILBOX_SIZE) -> None:
        self._size = size
        self._queue: deque[str] = deque()
        self._filled = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self.closed = False
        #: Whether a GET stream is attached and reading now.
        self.attached = False

    def __len__(self) -> int:
        return len(self._queue)

    async def put(self, text: str) -> None:
        """Queue `text`; wait while the mailbox is full. Dropped once closed."""
        while not self.closed and len(self._queue) >= self._size:
            self._room.clear()
            await self._room.wait()
        if self.closed:
            return
        self._queue.append(text)
        self._filled.set()

    async def get(self) -> str | None:
        """The next text, waiting for one; None once the mailbox is closed and empty."""
        while not self._queue:
            if self.closed:
                return None
            self._filled.clear()
            await self._filled.wait()
        text = self._queue.popleft()
        if len(self._queue) < self._size:
            self._room.set()
        return text

    def drain_into(self, other: Mailbox) -> None:
        """Move what waits here to `other` (a session stream that went away: its
        messages go to the connection's stream rather than nowhere)."""
        while self._queue:
            other._queue.append(self._queue.popleft())
            other._filled.set()
        self._room.set()

    def close(self) -> None:
        """No more texts: readers get what is left, then None; writers return."""
        self.closed = True
        self._filled.set()
        self._room.set()
