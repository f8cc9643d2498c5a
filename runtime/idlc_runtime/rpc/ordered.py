"""The connection's ordered worker: notifications handled one after another, in the order
they arrived, and answers delivered after the notifications that arrived before them
(docs/wire.md §13).

The worker is one task that lives as long as the connection. A notification's handler runs
at once when none is running: its first step is taken while its line is read, as a
request's is, with the worker's task made current by hand (`eager.step_as`), so
`asyncio.current_task()`, `asyncio.timeout` and a `TaskGroup` see the worker. A handler that
finishes in that step — nearly every one — costs no task and no turn of the event loop. One
that awaits is handed to the worker's task, which carries it on; the notifications that
arrive meanwhile wait in the queue, behind it, and the worker runs them in turn.

An answer to one of this side's calls that arrives while notifications are running or
waiting joins the same queue, so its caller resumes only once they have all been handled —
except the answer to a call made by a notification handler itself (or a task it started):
that one is delivered at once. The handler waiting for it is the one holding the queue, so
queueing its answer behind the queue would wait for ever; delivered at once, no answer ever
waits for a notification handler that waits for the other side.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Callable, Coroutine, Generator
from typing import Any, Final, NamedTuple

from idlc_runtime.rpc.eager import StepHold, start_eagerly, step_as

#: True in the ordered worker's context, so in every notification handler it runs and in
#: the tasks those start: calls made there get their answers at once (see the module).
IN_ORDER: contextvars.ContextVar[bool] = contextvars.ContextVar("idlc_in_order", default=False)

#: A queued item: a notification's handler to await, or an answer to deliver.
_Item = Coroutine[Any, Any, None] | Callable[[], None]

#: `_InContext`'s "the handler has not taken its first step yet".
_NOT_STARTED: Final = object()


class _Carried(NamedTuple):
    """A handler whose first step, taken by hand, left it waiting: for the worker's task."""

    handler: Coroutine[Any, Any, None]
    context: contextvars.Context
    #: What that step awaits (a future, or None for a bare yield).
    waited: Any
    #: The worker's task had a cancellation pending from before this handler began: it
    #: was meant for a handler that has finished, not for this one.
    stale_cancel: bool


def _nothing() -> None:
    pass


class OrderedWorker:
    """Runs notification handlers one at a time, in arrival order, and answers after them.

    `on_handler_done` is called whenever a queued notification's handler ends (what a bound
    on handlers held back may go on); `on_worker` is told True when a handler did not finish
    in its first step (the worker counts as a running handler from then on) and False once
    the queue is empty again.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, steps: StepHold) -> None:
        self._loop = loop
        self._steps = steps
        self._queue: deque[_Item] = deque()
        #: A notification's handler is running (or the worker is handling the queue).
        self._busy = False
        #: Notifications in the queue, counted against the bound on handlers.
        self.waiting = 0
        self.on_handler_done: Callable[[], None] = _nothing
        self.on_worker: Callable[[bool], None] = _nothing_flag
        #: Resolved when the worker next has nothing left to do; set while it has.
        self.running: asyncio.Future[None] | None = None
        #: The worker's task, started by the first notification; it lives as long as the
        #: connection.
        self._task: asyncio.Task[None] | None = None
        #: What the idle worker awaits: done once a first step taken by hand left a handler
        #: waiting (`_carried`), or cancelled by a cancellation of the worker's task.
        self._wake: asyncio.Future[None] | None = None
        self._carried: _Carried | None = None
        #: What every handler starts from (a copy each): the worker's context.
        self._base = contextvars.Context()
        self._closing = False

    @property
    def busy(self) -> bool:
        """Whether a notification is being handled or waits: an answer then waits too."""
        return self._busy

    def notification(self, handler: Coroutine[Any, Any, None]) -> None:
        """Handle a notification after those before it: `handler` must not raise."""
        if self._busy:
            self._queue.append(handler)
            self.waiting += 1
            return
        if self._closing:
            handler.close()
            return
        task = self._task
        if task is None:
            task = self._start()
        wake = self._wake
        assert wake is not None  # set by the worker's first step, taken in `_start`
        stale_cancel = wake.done()
        context = self._base.copy()
        self._busy = True
        # Taken while its line is handled, so what it writes is held with that read's
        # answers (`intake`), as a request's first step is.
        try:
            waited = step_as(self._loop, task, context, handler)
        except StopIteration:
            self._busy = False
            return
        except BaseException:
            self._busy = False  # only what nothing should catch (`handler` raises no other)
            raise
        self._carried = _Carried(handler, context, waited, stale_cancel)
        if not wake.done():
            wake.set_result(None)
        self.running = self._loop.create_future()
        self.on_worker(True)

    def after_preceding(self, deliver: Callable[[], None]) -> None:
        """Run `deliver` (an answer's delivery) once every notification before has been
        handled; at once when none is being handled or waits. Never for the answer to a
        call made where `IN_ORDER` is set (`PendingCalls` delivers those at once)."""
        if self._busy:
            self._queue.append(deliver)
        else:
            deliver()

    def flush_answers(self) -> None:
        """Nothing more will be read: deliver every answer still queued now (the answers
        did arrive), before the calls still waiting fail."""
        queue = self._queue
        for item in list(queue):
            if not isinstance(item, Coroutine):
                queue.remove(item)
                item()

    def close(self) -> asyncio.Task[None] | None:
        """The connection is closing: stop the worker (a handler it runs is cancelled, the
        queued ones are dropped); its task, to wait for, if it has one still running."""
        self._closing = True
        task = self._task
        if task is None or task.done():
            return None
        task.cancel()
        return task

    def _start(self) -> asyncio.Task[None]:
        # Its first step, taken now, leaves it waiting for its first handler.
        task = start_eagerly(self._loop, self._serve(), self._steps)
        assert task is not None, "the ordered worker waits for handlers until it is closed"
        self._task = task
        return task

    async def _serve(self) -> None:
        IN_ORDER.set(True)
        self._base = contextvars.copy_context()
        loop = self._loop
        queue = self._queue
        self._wake = loop.create_future()
        try:
            while True:
                error: BaseException | None = None
                try:
                    await self._wake
                except asyncio.CancelledError as cancelled:
                    carried = self._carried
                    if self._closing:
                        raise
                    if carried is None or carried.stale_cancel:
                        # Meant for a handler that has finished (it cancelled its own task
                        # and returned): there is nothing left to cancel.
                        _uncancel()
                        if carried is None:
                            self._wake = loop.create_future()
                            continue
                    else:
                        error = cancelled
                carried = self._carried
                assert carried is not None
                self._carried = None
                await _InContext(carried.handler, carried.context, carried.waited, error)
                while queue:
                    item = queue.popleft()
                    if isinstance(item, Coroutine):
                        self.waiting -= 1
                        await _InContext(item, self._base.copy())
                        self.on_handler_done()
                    else:
                        item()
                self._wake = loop.create_future()
                self._idle()
        finally:
            # Closing cancelled the worker: what waits is dropped, answers delivered.
            if self._carried is not None:
                self._carried.handler.close()
                self._carried = None
            for item in queue:
                if isinstance(item, Coroutine):
                    item.close()
                else:
                    item()
            queue.clear()
            self.waiting = 0
            self._idle()

    def _idle(self) -> None:
        self._busy = False
        running, self.running = self.running, None
        if running is not None:
            running.set_result(None)
            self.on_worker(False)


def _uncancel() -> None:
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        task.uncancel()


class _InContext:
    """Awaits a handler with each of its steps run in `context`: a copy of the worker's for
    each handler, so what one handler sets in a context variable stays its own (as it does
    in a task of its own), without a task per handler.

    A handler whose first step was taken by hand comes with what that step awaits
    (`waited`), and with the cancellation that reached the worker before it could await
    that (`error`)."""

    __slots__ = ("_context", "_coro", "_error", "_waited")

    def __init__(
        self,
        coro: Coroutine[Any, Any, None],
        context: contextvars.Context,
        waited: Any = _NOT_STARTED,
        error: BaseException | None = None,
    ) -> None:
        self._coro = coro
        self._context = context
        self._waited = waited
        self._error = error

    def __await__(self) -> Generator[Any, Any, None]:
        run = self._context.run
        coro = self._coro
        value: Any = None
        error = self._error
        waited = self._waited
        if waited is not _NOT_STARTED and error is None:
            try:
                value = yield waited
            except BaseException as thrown:  # a cancellation, passed on to the handler
                error = thrown
        if error is not None and isinstance(waited, asyncio.Future) and not waited.done():
            # Cancelled before the worker's task awaited what the handler awaits: cancel
            # that too, as the task's cancel() would have.
            waited.cancel()
        while True:
            try:
                if error is None:
                    waited = run(coro.send, value)
                else:
                    waited = run(coro.throw, error)
            except StopIteration:
                return
            try:
                value = yield waited
                error = None
            except BaseException as thrown:  # a cancellation, passed on to the handler
                value = None
                error = thrown


def _nothing_flag(busy: bool) -> None:
    pass
