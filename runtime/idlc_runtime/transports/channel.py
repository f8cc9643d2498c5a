"""A peer over a message channel: one JSON-RPC message per frame, not per line.

WebSocket (and, later, other message transports) deliver whole messages, received and sent
by awaiting: `receive()` gives the next frame, `send(text)` sends one. Two adapters put a
`Peer` on such a channel with the semantics of every other transport (docs/wire.md):

- `ChannelSource` is the peer's `LineSource`: a task that receives one frame at a time and
  hands it over as one line. It receives only while the peer takes more (the handler bound),
  the server's input budget allows, and the writer is not backed up: what is not received
  stays with the server and then with the sender (docs/wire.md §11).
- `ChannelWriter` is the peer's `ByteWriter`: `write` is synchronous, as the peer's writers
  are, so messages wait in a queue that one task sends in order; `drain()` makes writers wait
  while that queue is over its high-water mark.

A frame is one message (docs/wire.md §2 on WebSocket): newlines inside it are JSON
whitespace, so a pretty-printed message is read as one, and two messages in one frame are
one unreadable text (-32700). A frame longer than `max_message_size` is not parsed and is
answered as an oversized line (§8). A binary frame is read as the UTF-8 text of a message,
as a text frame would be: it is answered, never dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Final

from idlc_runtime.rpc.peer import PeerOptions
from idlc_runtime.transports.budget import InputBudget
from idlc_runtime.transports.contract import LineSink
from idlc_runtime.transports.framing import PREFIX_SIZE, Line, Oversized

log = logging.getLogger("idlc_runtime")

#: What a channel delivers: a text frame (str) or a binary one (bytes); None once it closed.
Frame = str | bytes
Receive = Callable[[], Awaitable[Frame | None]]
Send = Callable[[str], Awaitable[None]]
Close = Callable[[], Awaitable[None]]

#: Queued outgoing bytes past which writers wait (`drain`) and the source stops receiving.
HIGH_WATER: Final = 256 * 1024
#: Writers and the source go on once the queue is back under this.
LOW_WATER: Final = 64 * 1024
#: How much longer than `max_message_size` a frame still read may be. A frame a
#: little over the limit is read and answered as docs/wire.md §8 says; one longer than this
#: cannot be skipped without reading it whole, so the connection is closed with 1009
#: ("message too big", RFC 6455 §7.4.1) instead.
FRAME_MARGIN: Final = 1024 * 1024


def frame_limit(options: PeerOptions | None) -> int:
    """The longest frame read at all, for a peer with these options (see FRAME_MARGIN)."""
    return (options or PeerOptions()).max_message_size + FRAME_MARGIN


def frame_line(frame: Frame, max_message_size: int) -> Line:
    """The line a frame stands for: its UTF-8 bytes, or `Oversized` past the limit."""
    data = frame.encode("utf-8", "surrogatepass") if isinstance(frame, str) else frame
    if len(data) <= max_message_size:
        return data
    return Oversized(len(data), data[:PREFIX_SIZE], data[-PREFIX_SIZE:])


class ChannelWriter:
    """Sends a peer's messages over a channel, one frame per message, in order.

    Every write is one or more complete lines (each message ends with its newline); each
    becomes a text frame without it. `close()` sends what is queued, then closes the
    channel; `abort()` drops it. Once a send fails, the rest is dropped and `drain()` raises
    `ConnectionResetError`, as a closed socket's would.
    """

    def __init__(self, send: Send, close: Close) -> None:
        self._send = send
        self._close_channel = close
        self._queue: deque[str] = deque()
        self._queued = 0
        self._closing = False
        self._failed: BaseException | None = None
        self._wake = asyncio.Event()
        #: Set while the queue is under the low-water mark (writers need not wait).
        self._room = asyncio.Event()
        self._room.set()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="idlc-channel-send")
        # `Outbox.abort()` aborts its writer's `transport`: here, this writer itself. It is
        # no asyncio transport, so the outbox writes through `write` as for any writer.
        self.transport = self

    @property
    def backed_up(self) -> bool:
        """Whether the queue is over the high-water mark: the other side reads slowly."""
        return self._queued > HIGH_WATER

    def write(self, data: bytes) -> None:
        if self._closing or self._failed is not None:
            return
        queue = self._queue
        if data.count(b"\n") == 1:
            text = data.decode().rstrip("\n")
            queue.append(text)
            self._queued += len(text)
        else:
            for line in data.split(b"\n"):
                if line:
                    text = line.decode()
                    queue.append(text)
                    self._queued += len(text)
        if self._queued > LOW_WATER:
            self._room.clear()
        self._wake.set()

    async def drain(self) -> None:
        while True:
            if self._failed is not None:
                raise ConnectionResetError("the connection is lost") from self._failed
            if self._queued <= HIGH_WATER:
                return
            await self._room.wait()

    async def writable(self) -> None:
        """Return once the queue is under the low-water mark, or the channel failed."""
        if self._queued > LOW_WATER and self._failed is None:
            await self._room.wait()

    def close(self) -> None:
        self._closing = True
        self._wake.set()

    async def wait_closed(self) -> None:
        await asyncio.wait([self._task])

    def abort(self) -> None:
        self._task.cancel()

    async def _run(self) -> None:
        queue = self._queue
        try:
            while True:
                while queue:
                    text = queue.popleft()
                    self._queued -= len(text)
                    await self._send(text)
                    if self._queued <= LOW_WATER:
                        self._room.set()
                if self._closing:
                    break
                self._wake.clear()
                await self._wake.wait()
        except asyncio.CancelledError:
            self._fail(ConnectionAbortedError("the connection was aborted"))
            return
        except Exception as error:
            # The other side went away while we sent: what is left cannot be delivered.
            log.debug("sending a frame failed: %r", error)
            self._fail(error)
        try:
            await self._close_channel()
        except Exception as error:
            log.debug("closing the channel: %r", error)

    def _fail(self, error: BaseException) -> None:
        self._failed = error
        self._queue.clear()
        self._queued = 0
        self._room.set()


class ChannelSource:
    """Receives a channel's frames, one at a time, and delivers each as one line.

    A `LineSource` for `Peer`; with a `budget` (shared by the connections of one server) it
    is also a `BudgetHolder`: a frame the peer holds back (at its handler bound) counts
    against the budget until the peer takes it.
    """

    def __init__(
        self,
        receive: Receive,
        max_message_size: int,
        *,
        writer: ChannelWriter | None = None,
        budget: InputBudget | None = None,
    ) -> None:
        self._receive = receive
        self._max_message_size = max_message_size
        self._writer = writer
        self._budget = budget
        self._sink: LineSink | None = None
        self._task: asyncio.Task[None] | None = None
        self._paused_by_sink = False
        self._paused_by_budget = False
        #: The bytes of the frames delivered and held back by the sink (one, unless the
        #: source is misused: it receives nothing while the sink has it paused).
        self._held = 0
        #: Set while receiving may go on.
        self._may_receive = asyncio.Event()
        self._may_receive.set()

    def attach(self, sink: LineSink) -> None:
        if self._sink is not None:
            raise RuntimeError("this channel already has a reader")
        self._sink = sink
        self._task = asyncio.get_running_loop().create_task(
            self._pump(sink), name="idlc-channel-receive"
        )

    async def _pump(self, sink: LineSink) -> None:
        writer = self._writer
        try:
            while True:
                if not self._may_receive.is_set():
                    await self._may_receive.wait()
                if writer is not None and writer.backed_up:
                    # Answers pile up unread (a flood of malformed frames): take no more
                    # until the other side reads them (docs/wire.md §11, "Output").
                    await writer.writable()
                    continue
                frame = await self._receive()
                if frame is None:
                    break
                line = frame_line(frame, self._max_message_size)
                sink.lines_received([line])
                if self._paused_by_sink and self._budget is not None:
                    # Held back by the peer until it resumes: counted against the budget.
                    self._held += len(line) if isinstance(line, bytes) else line.size
                    self._budget.update(self, self._held, False)
                # Not kept while waiting for the next frame: an idle connection would hold
                # its last message (twice: the frame and its line) for as long as it idles.
                del frame, line
        except asyncio.CancelledError:
            return  # closed: nobody listens for the end any more
        except Exception as error:
            sink.input_ended(error)
            return
        finally:
            if self._budget is not None:
                self._budget.release(self)
        sink.input_ended(None)

    def pause_reading(self) -> None:
        self._paused_by_sink = True
        self._may_receive.clear()

    def resume_reading(self) -> None:
        self._paused_by_sink = False
        if self._held and self._budget is not None:
            # The sink took what it held back.
            self._held = 0
            self._budget.update(self, 0, True)
        self._apply()

    def budget_pause(self) -> None:
        self._paused_by_budget = True
        self._apply()

    def budget_resume(self) -> None:
        self._paused_by_budget = False
        self._apply()

    def _apply(self) -> None:
        if self._paused_by_sink or self._paused_by_budget:
            self._may_receive.clear()
        else:
            self._may_receive.set()

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
