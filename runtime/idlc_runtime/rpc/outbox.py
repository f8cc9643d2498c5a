"""Where a peer's messages go out: the writing half of its transport, and its flow control.

Every message is written to the transport by whoever produced it: no queue or writer task
between handlers and the wire. A writer waits (`drain`) only when the transport holds more
than it took (docs/wire.md §11, "Output").

What one step writes goes out in one system call: while the peer handles the lines of one
read, and while one of its handler tasks takes a step, messages are held (`hold`) and
written together when that callback or step ends (`release`) — never later, so no message
waits for a later write or a later pass of the event loop. A turn of ACP, for example,
where the agent sends ten updates and its answer in one step, is one write instead of
eleven. Anything else (a task of the application calling out) writes at once.
"""

from __future__ import annotations

import asyncio
from typing import Final

from idlc_runtime.transports.contract import ByteWriter

#: Held messages are written as soon as they reach this size, without waiting for the end
#: of the step: the transport's flow control then sees them, and a writer that never stops
#: cannot pile up memory here.
FLUSH_SIZE: Final = 64 * 1024


class Outbox:
    """Writes a peer's messages and tells when a writer should wait for the transport."""

    def __init__(self, writer: ByteWriter) -> None:
        self._writer = writer
        #: Where bytes go: the transport itself when the writer is an asyncio StreamWriter
        #: (or our own `TransportWriter`), whose `write` only forwards to it.
        transport = getattr(writer, "transport", None)
        self.transport: asyncio.WriteTransport | None = (
            transport if isinstance(transport, asyncio.WriteTransport) else None
        )
        #: Write one message (a line with its newline).
        self.write = self._write_or_hold if self.transport is not None else writer.write
        #: Messages held until the current step ends, and their size (transports only).
        self._held: list[bytes] = []
        self._held_size = 0
        #: How many steps are holding messages now (they may nest).
        self._holds = 0
        #: What `flushed()` found during the current hold: until the held messages are
        #: written, nothing else can change the transport's state within one step.
        self._flushed_in_hold: bool | None = None
        self.closed = False

    def _write_or_hold(self, message: bytes) -> None:
        self.send(message)

    def send(self, message: bytes) -> bool:
        """Write one message (held while a step holds them); then what `flushed()` says:
        whether the writer may go on without `drain()`. One call for the two, on the path
        of every request, notification and answer; `write` is this without the answer."""
        transport = self.transport
        if transport is None:
            self._writer.write(message)
            return False  # only a transport can say it took everything
        if self._holds:
            self._held.append(message)
            size = self._held_size = self._held_size + len(message)
            if size >= FLUSH_SIZE:
                self.flush()
            known = self._flushed_in_hold
            if known is None:
                known = self._flushed_in_hold = self._transport_flushed()
            return known
        transport.write(message)
        return self._transport_flushed()

    def hold(self) -> None:
        """Keep what is written until the matching `release()`."""
        self._holds += 1
        self._flushed_in_hold = None

    def release(self) -> None:
        """End a `hold()`; once none is left, write what was held, in one system call."""
        self._holds -= 1
        if not self._holds and self._held:
            self.flush()

    def flush(self) -> None:
        """Write what is held now."""
        held = self._held
        if held and self.transport is not None:
            self._held = []
            self._held_size = 0
            self._flushed_in_hold = None
            self.transport.write(held[0] if len(held) == 1 else b"".join(held))

    def flushed(self) -> bool:
        """True when `drain()` would return at once: everything written has gone out.

        Checked before each drain so that the usual case (the transport took the whole
        message) costs no coroutine. Only known for an asyncio transport; an empty buffer
        means its protocol is not paused, and a closing one still goes through `drain()`,
        which raises the connection's error.
        """
        if self._holds:
            known = self._flushed_in_hold
            if known is None:
                known = self._flushed_in_hold = self._transport_flushed()
            return known
        return self._transport_flushed()

    def _transport_flushed(self) -> bool:
        transport = self.transport
        return (
            transport is not None
            and not transport.is_closing()
            and not transport.get_write_buffer_size()
        )

    def may_be_paused(self) -> bool:
        """True when the transport's protocol may have been told to stop writing (its
        buffer is over the low-water mark), so a `drain()` may wait."""
        transport = self.transport
        if transport is None:
            return False  # our writers without a transport never make anyone wait
        if transport.is_closing():
            return True
        size = transport.get_write_buffer_size()
        if not size:
            return False  # the usual case: nothing is over any mark
        low, _ = transport.get_write_buffer_limits()
        return size > low

    async def drain(self) -> None:
        await self._writer.drain()

    def close(self) -> None:
        """Write nothing more, and close the transport once what it holds is out."""
        self.closed = True
        self.flush()
        self._writer.close()

    async def wait_closed(self) -> None:
        await self._writer.wait_closed()

    def abort(self) -> None:
        """Close the transport at once, dropping what it still holds."""
        transport = self.transport or getattr(self._writer, "transport", None)
        abort = getattr(transport, "abort", None)
        if abort is not None:
            abort()
