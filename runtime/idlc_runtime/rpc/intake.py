"""How a peer takes in lines: one path for every source, with its backpressure.

A source delivers lines to an `Intake` as they arrive (`LineSink`): a `LineProtocol` in the
transport's callback, or a `StreamSource` from a task reading an `asyncio.StreamReader`.
The intake hands each line to the peer, in the peer's context (`current_peer()`), and holds
back what it cannot take yet, pausing its source (docs/wire.md §11):

- at the bound on concurrent handlers, the lines not yet handled are kept in order and
  reading pauses; a finished handler schedules their handling, and reading resumes once
  they are all taken up;
- while the writer's buffer may be over its limit (a flood of error answers), reading
  pauses until it drains;
- before the peer starts, lines are kept and handled once it does, in a callback of their
  own, as they would have been had they come later.

The end of input is acted on after the lines already received; a failed connection ends at
once, as a read would raise.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Callable, Sequence, Sized

from idlc_runtime.rpc.express import Express
from idlc_runtime.rpc.outbox import Outbox
from idlc_runtime.rpc.replies import Batch
from idlc_runtime.transports.contract import LineSink, LineSource
from idlc_runtime.transports.framing import Line, LineReader


class Rest:
    """What a batch leaves to be taken once handlers are free: its members not started at
    the handler bound (docs/wire.md §7, §11). The one kind of leftover: `Inbound.take`
    returns one instead of starting more handlers than the bound allows; the intake keeps it
    first in its backlog and hands it to `take` again, as it would a line."""

    __slots__ = ("batch", "members")

    def __init__(self, batch: Batch, members: list[bytes]) -> None:
        self.batch = batch
        self.members = members


#: What the intake hands to `take`: a line as received, or what one left.
Item = Line | Rest


class StreamSource:
    """Reads an `asyncio.StreamReader` in a task of its own and delivers its lines.

    For `Peer(reader, writer)` on any stream; the transports use `LineProtocol`, which
    needs no task.
    """

    def __init__(self, stream: asyncio.StreamReader, max_line: int) -> None:
        self._lines = LineReader(stream, max_line)
        self._sink: LineSink | None = None
        self._task: asyncio.Task[None] | None = None
        #: Set while reading may go on; cleared by `pause_reading`.
        self._reading = asyncio.Event()
        self._reading.set()

    def attach(self, sink: LineSink) -> None:
        if self._sink is not None:
            raise RuntimeError("this stream already has a reader")
        self._sink = sink
        self._task = asyncio.get_running_loop().create_task(self._pump(sink))

    async def _pump(self, sink: LineSink) -> None:
        try:
            while True:
                if not self._reading.is_set():
                    await self._reading.wait()
                lines = await self._lines.read_lines()
                if not lines:
                    break
                sink.lines_received(lines)
        except asyncio.CancelledError:
            return  # closed: nobody listens for the end any more
        except Exception as error:
            sink.input_ended(error)
            return
        sink.input_ended(None)

    def pause_reading(self) -> None:
        self._reading.clear()

    def resume_reading(self) -> None:
        self._reading.set()

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def wait_closed(self) -> None:
        """Return once the reading task has stopped (after `close`)."""
        if self._task is not None:
            await asyncio.wait([self._task])


class Intake:
    """Takes lines from a source and hands them to `take`, within the handler bound.

    `handlers` is the collection of running handlers, whose size is checked against
    `bound`; the owner calls `handler_finished()` whenever one ends. Each read's lines go
    first to `express` (`rpc/express.py`), which takes the notifications it can on its own,
    and those it leaves to `take`, one at a time. `done` is resolved
    once the input has ended and everything received before has been handled; `error`
    then says why if the connection failed.
    """

    def __init__(
        self,
        source: LineSource,
        take: Callable[[Item], Rest | None],
        handlers: Sized,
        bound: int,
        outbox: Outbox,
        express: Express | None = None,
    ) -> None:
        self._loop = asyncio.get_running_loop()
        self._source = source
        self._take = take
        self._express = express
        self._handlers = handlers
        self._bound = bound
        self._outbox = outbox
        #: The context lines are handled in; None until the peer starts.
        self._context: contextvars.Context | None = None
        #: Lines received but not yet handled: before `start()`, at the handler bound, or
        #: while waiting for the writer to drain. Reading is paused while there are any.
        self._backlog: deque[Item] = deque()
        #: The end of input the source reported, held until the backlog is handled.
        self._end_reported: tuple[BaseException | None] | None = None
        self._draining: asyncio.Task[None] | None = None
        self._resume_scheduled = False
        #: Set once no more lines are to be handled (the input ended, or closing began).
        self._stopped = False
        self.done: asyncio.Future[None] = self._loop.create_future()
        self.error: BaseException | None = None
        source.attach(self)

    def start(self, context: contextvars.Context) -> None:
        """Handle lines from now on, in `context`; those that came before first."""
        self._context = context
        # Lines that came before now are handled in a callback of their own, as they
        # would have been had they come later.
        self._schedule_resume()

    def stop(self) -> None:
        """Handle no more lines, even those already received."""
        self._set_stopped()

    def _set_stopped(self) -> None:
        self._stopped = True
        if self._express is not None:
            self._express.stopped = True

    def close(self) -> None:
        """Stop, drop what was not handled and close the source."""
        self._set_stopped()
        if self._draining is not None:
            self._draining.cancel()
        self._backlog.clear()
        self._source.close()

    async def wait_closed(self) -> None:
        """Return once the source has stopped reading, after `close`: a `StreamSource`'s
        task is cancelled then, which takes a step of its own to end."""
        if isinstance(self._source, StreamSource):
            await self._source.wait_closed()

    def handler_finished(self) -> None:
        """A handler ended: lines held at the bound may go on."""
        if self._backlog and self._context is not None:
            self._schedule_resume()

    # ---------------------------------------------------------------- LineSink

    def lines_received(self, lines: list[Line]) -> None:
        context = self._context
        if context is None or self._backlog or self._draining is not None:
            # Not started, or paused: keep them in order behind the others.
            self._backlog.extend(lines)
            self._source.pause_reading()
            return
        if not self._stopped:
            context.run(self._handle, lines)

    def input_ended(self, error: BaseException | None) -> None:
        if error is not None or not (self._backlog or self._draining is not None):
            # A failed connection ends at once, as a StreamReader read would raise.
            self._finish(error)
        else:
            self._end_reported = (error,)

    # ---------------------------------------------------------------- handling

    def _finish(self, error: BaseException | None) -> None:
        if not self.done.done():
            self.error = error
            self.done.set_result(None)

    def _handle(self, lines: Sequence[Item]) -> None:
        outbox = self._outbox
        # What the lines of this read cause to be written goes out in one write, at the end.
        outbox.hold()
        try:
            try:
                taken = self._take_all(lines)
            finally:
                outbox.release()
            if taken and outbox.may_be_paused():
                self._wait_for_writer()
        except Exception as error:
            # Reported through `done`; the peer then closes the connection.
            self._finish(error)

    def _take_all(self, lines: Sequence[Item]) -> bool:
        """Take lines up to the handler bound; False if some were held back or handling
        stopped."""
        bound = self._bound
        handlers = self._handlers
        take = self._take
        express = self._express
        count = len(lines)
        index = 0
        while index < count:
            if express is not None:
                index = express.take(lines, index)
                if self._stopped:
                    return False
                if index == count:
                    break
            if len(handlers) >= bound:
                # Backpressure: what is not read stays in the transport, which stops
                # reading from the other side once its buffer is full.
                self._backlog.extend(lines[index:])
                self._source.pause_reading()
                return False
            rest = take(lines[index])
            if self._stopped:
                return False
            index += 1
            if rest is not None:
                # A batch reached the bound: its other members go first once handlers end.
                self._backlog.append(rest)
                self._backlog.extend(lines[index:])
                self._source.pause_reading()
                return False
        return True

    def _wait_for_writer(self) -> None:
        """Error answers are written without waiting: the writer may be paused (its
        buffer over the limit), so respect it before taking in more, reading paused."""
        self._source.pause_reading()
        self._draining = self._loop.create_task(self._drain_then_resume(), context=self._context)

    async def _drain_then_resume(self) -> None:
        try:
            await self._outbox.drain()
        except (ConnectionError, OSError) as error:
            self._finish(error)
            return
        finally:
            self._draining = None
        self._resume()

    def _schedule_resume(self) -> None:
        if not self._resume_scheduled:
            self._resume_scheduled = True
            self._loop.call_soon(self._resume, context=self._context)

    def _resume(self) -> None:
        """Handle the backlog as far as the bound allows; then read again."""
        self._resume_scheduled = False
        if self._draining is not None or self._stopped:
            return
        if self._backlog:
            # What the bound leaves unhandled goes back into the (then empty) backlog.
            lines = list(self._backlog)
            self._backlog.clear()
            self._handle(lines)
            if self._backlog or self._draining is not None or self.done.done():
                return
        if self._end_reported is not None:
            self._finish(self._end_reported[0])
            return
        self._source.resume_reading()
