"""Newline-delimited framing with a size limit that skips, rather than fails on, long lines.

`asyncio.StreamReader.readline` raises once a line exceeds the reader's limit and leaves the
stream in a state that is awkward to recover from. Splitting chunks here keeps the limit
ours: an oversized line is dropped as it streams in (only its first bytes are kept, to
answer it) and the next line is read normally. One chunk also yields every complete line it
carried, so a burst of small messages is handled in one go, not one wake-up per line.

Two ways in: `LineReader` reads an `asyncio.StreamReader` from a task; `LineProtocol` is an
`asyncio.Protocol` that the transport feeds directly and that hands lines to its sink as
they arrive, in the event loop's callback, with no task to wake. The transports use the
protocol; the reader serves `Peer(reader, writer)` on any stream.
"""

from __future__ import annotations

import asyncio
import collections
from dataclasses import dataclass
from typing import Final, cast

from idlc_runtime.transports.budget import InputBudget
from idlc_runtime.transports.contract import LineSink

#: How much one read asks for; also the largest overshoot of the concurrency bound per read.
CHUNK_SIZE: Final = 256 * 1024
#: How much a transport that `LineProtocol` serves reads at a time: under the C library's
#: usual threshold for mapping memory, so that a read allocates from the heap.
READ_SIZE: Final = 64 * 1024
#: How much of each end of an oversized line is kept to find out what it was.
PREFIX_SIZE: Final = 1024


@dataclass(frozen=True, slots=True)
class Oversized:
    """Stands for a line longer than the limit, which was skipped."""

    size: int
    prefix: bytes
    #: Its last bytes: some encoders put the id after the params (docs/wire.md §8).
    suffix: bytes


Line = bytes | Oversized


class LineSplitter:
    """Cuts a byte stream into lines (without their newline), skipping oversized ones."""

    def __init__(self, max_line: int) -> None:
        self._max_line = max_line
        self._partial = bytearray()
        #: While skipping an oversized line: its first bytes, the size seen so far and
        #: its last bytes so far.
        self._skipped: tuple[bytes, int, bytes] | None = None

    @property
    def buffered(self) -> int:
        """The bytes of the incomplete line held now."""
        return len(self._partial)

    def feed(self, chunk: bytes) -> list[Line]:
        """The lines `chunk` completes, in order; possibly none."""
        out: list[Line] = []
        if self._skipped is not None:
            end = chunk.find(b"\n")
            prefix, size, suffix = self._skipped
            if end < 0:
                self._skipped = (prefix, size + len(chunk), _last(suffix, chunk))
                return out
            self._skipped = None
            out.append(
                Oversized(
                    size + end,
                    prefix,
                    _last(suffix, chunk[max(0, end - PREFIX_SIZE) : end]),
                )
            )
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
        if max(map(len, parts), default=0) <= limit:
            out.extend(parts)  # the usual read: no line too long, all taken as they are
        else:
            for line in parts:
                if len(line) <= limit:
                    out.append(line)
                else:
                    out.append(Oversized(len(line), line[:PREFIX_SIZE], line[-PREFIX_SIZE:]))
        if tail:
            self._extend_partial(tail)
        return out

    def _extend_partial(self, data: bytes) -> None:
        self._partial += data
        if len(self._partial) > self._max_line:
            # Stop buffering: keep what identifies the message and drop the rest as it comes.
            partial = self._partial
            self._skipped = (
                bytes(partial[:PREFIX_SIZE]),
                len(partial),
                bytes(partial[-PREFIX_SIZE:]),
            )
            partial.clear()

    def finish(self) -> list[Line]:
        """At end of stream: a last line without a newline, as it is, so that a truncated
        message gets its parse error instead of vanishing."""
        if self._skipped is not None:
            prefix, size, suffix = self._skipped
            self._skipped = None
            return [Oversized(size, prefix, suffix)]
        if self._partial:
            line = bytes(self._partial)
            self._partial.clear()
            return [line]
        return []


def _last(suffix: bytes, more: bytes) -> bytes:
    """The last `PREFIX_SIZE` bytes of `suffix + more`, without copying all of `more`."""
    if len(more) >= PREFIX_SIZE:
        return more[-PREFIX_SIZE:]
    return (suffix + more)[-PREFIX_SIZE:]


class LineReader:
    """Lines from an `asyncio.StreamReader`, read by whoever awaits `read_lines`."""

    def __init__(self, stream: asyncio.StreamReader, max_line: int) -> None:
        self._stream = stream
        self._splitter = LineSplitter(max_line)

    async def read_lines(self) -> list[Line]:
        """The next complete lines; an empty list at end of stream."""
        while True:
            chunk = await self._stream.read(CHUNK_SIZE)
            if not chunk:
                return self._splitter.finish()
            lines = self._splitter.feed(chunk)
            if lines:
                return lines


class LineProtocol(asyncio.Protocol):
    """Splits what a transport receives into lines and hands them to a sink at once.

    Lines and the end of input that arrive before a sink is attached are kept and delivered
    on `attach`. For a transport that also writes (a socket), it keeps the write side's flow
    control, which `TransportWriter` waits on. With a `budget` (the connections of one
    server share it), what it buffers counts against that bound, which may pause it.
    """

    def __init__(self, max_line: int, budget: InputBudget | None = None) -> None:
        self._splitter = LineSplitter(max_line)
        self._budget = budget
        #: Reading is paused while the sink or the budget asks for it.
        self._paused_by_sink = False
        self._paused_by_budget = False
        self._sink: LineSink | None = None
        self._early: list[Line] = []
        self._early_end: tuple[BaseException | None] | None = None
        self._ended = False
        self._transport: asyncio.BaseTransport | None = None
        self._write_paused = False
        #: One future per task waiting to write: a shared one would be cancelled for all
        #: of them when one waiter is cancelled (asyncio's streams keep a deque too).
        self._write_waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._lost = False
        self._closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    @property
    def transport(self) -> asyncio.BaseTransport:
        if self._transport is None:
            raise RuntimeError("not connected yet")
        return self._transport

    def attach(self, sink: LineSink) -> None:
        if self._sink is not None:
            raise RuntimeError("this connection already has a reader")
        self._sink = sink
        if self._early:
            early, self._early = self._early, []
            sink.lines_received(early)
        if self._early_end is not None:
            sink.input_ended(self._early_end[0])

    # ------------------------------------------------------------ reading

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        if isinstance(getattr(transport, "max_size", None), int):
            # asyncio's pipe and socket transports read `max_size` bytes at a time into a
            # new bytes object of that size (256 KiB), shrunk to what came. Above glibc's
            # threshold for mapping memory (128 KiB, unless an earlier free raised it, so it
            # depends on the process's history), that is an mmap, an mremap and a munmap
            # per read: a third of an ACP turn's CPU time in some processes and none in
            # others (docs/benchmarks.md, "ACP SDK"). Reads of READ_SIZE come from the heap.
            transport.max_size = READ_SIZE  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        lines = self._splitter.feed(data)
        if self._budget is not None:
            self._budget.update(self, self._splitter.buffered, bool(lines))
        if lines:
            # `_deliver`, written out: this is every read's path.
            sink = self._sink
            if sink is None:
                self._early.extend(lines)
            else:
                sink.lines_received(lines)

    def eof_received(self) -> bool:
        self._end(None)
        # Keep a socket open for writing: handlers may still answer a half-closed peer.
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        if self._budget is not None:
            self._budget.release(self)
        self._end(exc)
        self._lost = True
        for waiter in self._write_waiters:
            if not waiter.done():
                waiter.set_exception(ConnectionResetError("Connection lost"))
        self._write_waiters.clear()
        if not self._closed.done():
            self._closed.set_result(None)

    def _end(self, error: BaseException | None) -> None:
        if self._ended:
            return
        self._ended = True
        lines = self._splitter.finish() if error is None else []
        if lines:
            self._deliver(lines)
        if self._sink is None:
            self._early_end = (error,)
        else:
            self._sink.input_ended(error)

    def _deliver(self, lines: list[Line]) -> None:
        if self._sink is None:
            self._early.extend(lines)
        else:
            self._sink.lines_received(lines)

    def pause_reading(self) -> None:
        """The sink takes no more for now."""
        self._paused_by_sink = True
        self._apply_pause()

    def resume_reading(self) -> None:
        self._paused_by_sink = False
        self._apply_pause()

    def budget_pause(self) -> None:
        """The server's input budget is spent (`BudgetHolder`)."""
        self._paused_by_budget = True
        self._apply_pause()

    def budget_resume(self) -> None:
        self._paused_by_budget = False
        self._apply_pause()

    def _apply_pause(self) -> None:
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        reader = cast(asyncio.ReadTransport, transport)
        if self._paused_by_sink or self._paused_by_budget:
            reader.pause_reading()
        else:
            reader.resume_reading()

    def close(self) -> None:
        """Stop reading and close the transport (for a socket, once its writes are out)."""
        if self._transport is not None:
            self._transport.close()

    # ------------------------------------------------------------ writing (sockets)

    def pause_writing(self) -> None:
        self._write_paused = True

    def resume_writing(self) -> None:
        self._write_paused = False
        for waiter in self._write_waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._write_waiters.clear()

    async def writable(self) -> None:
        """Return once the transport takes more; raise if the connection is lost."""
        if self._lost:
            raise ConnectionResetError("Connection lost")
        if not self._write_paused:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._write_waiters.append(waiter)
        try:
            await waiter
        finally:
            if waiter in self._write_waiters:
                self._write_waiters.remove(waiter)

    async def wait_closed(self) -> None:
        await self._closed


class TransportWriter:
    """The writing half of a transport whose protocol is a `LineProtocol` (a socket)."""

    def __init__(self, protocol: LineProtocol) -> None:
        self._protocol = protocol
        self.transport = cast(asyncio.WriteTransport, protocol.transport)

    def write(self, data: bytes) -> None:
        self.transport.write(data)

    async def drain(self) -> None:
        await self._protocol.writable()

    def close(self) -> None:
        self.transport.close()

    async def wait_closed(self) -> None:
        await self._protocol.wait_closed()
