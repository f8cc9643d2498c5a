"""The connection's ordered worker: notifications handled one after another, in the order
they arrived, and answers delivered after the notifications that arrived before them
(docs/wire.md §13).

The worker is one task that lives as long as the connection. A notification's handler runs
at once when none is running: its first step is taken while its line is read, as a
request's is, with the worker's task made current by hand (as `eager.step_as` does), so
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
import logging

# What every Python's tasks call around each of their steps (see `eager`).
from asyncio.tasks import _enter_task, _leave_task
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator, Sequence
from types import CoroutineType
from typing import Any, Final, NamedTuple

from idlc_runtime.errors import RpcError
from idlc_runtime.rpc.eager import StepHold, current_task, start_eagerly

log = logging.getLogger("idlc_runtime")

#: True in the ordered worker's context, so in every notification handler it runs and in
#: the tasks those start: calls made there get their answers at once (see the module).
IN_ORDER: contextvars.ContextVar[bool] = contextvars.ContextVar("idlc_in_order", default=False)


#: A notification's handler: its wire method, and what is called, with its params, to get
#: the awaitable that handles it.
Handler = tuple[str, Callable[[Any, Any], Awaitable[Any]], object]


class _Queued(NamedTuple):
    """A notification waiting for the ones before it: `invoke(implementation, params)`."""

    wire: str
    invoke: Callable[[Any, Any], Awaitable[Any]]
    implementation: object
    params: Any


#: A queued item: a notification to handle, or an answer to deliver.
_Item = _Queued | Callable[[], None]

#: `_InContext`'s "the handler has not taken its first step yet".
_NOT_STARTED: Final = object()


class _Carried(NamedTuple):
    """A handler whose first step, taken by hand, left it waiting: for the worker's task."""

    wire: str
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
        #: A notification's handler is running (or the worker is handling the queue): an
        #: answer then waits too. Read-only outside the worker; while it is False the worker
        #: holds no slot of the bound on handlers (`running` is None, nothing `waiting`).
        self.busy = False
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

    def notification(
        self,
        wire: str,
        invoke: Callable[[Any, Any], Awaitable[Any]],
        implementation: object,
        params: Any,
    ) -> None:
        """Handle a notification of `wire` after those before it: `invoke(implementation,
        params)`, awaited in a copy of the worker's context with the worker's task current.
        What the handler raises is logged, never raised (`_report`), so the next one runs
        all the same."""
        if self.busy:
            self._queue.append(_Queued(wire, invoke, implementation, params))
            self.waiting += 1
            return
        self.first_steps([((wire, invoke, implementation), params)])

    def first_steps(self, notifications: Sequence[tuple[Handler, Any]]) -> int:
        """While the worker is idle (`busy` False): handle `notifications` (each a handler
        and its params) one after another, now, until one does not finish in its first
        step — the worker's task carries that one on — and return how many were taken; the
        caller hands the others over again (they then wait behind it). All of them when
        the worker is closing: those are dropped, as what waits in its queue is.

        Each first step is taken while its line is handled (so what it writes is held with
        that read's answers, `intake`, as a request's first step is), as the worker's task,
        made current by hand once for them all (`eager.step_as` written out), and in a copy
        of the worker's context of its own; the handler's coroutine is made in that step
        too, as a task's first step would make it."""
        if self._closing:
            return len(notifications)
        task = self._task
        if task is None:
            task = self._start()
        wake = self._wake
        assert wake is not None  # set by the worker's first step, taken in `_start`
        base = self._base
        loop = self._loop
        taken = 0
        self.busy = True
        outer = current_task(loop)
        if outer is not None:
            _leave_task(loop, outer)
        _enter_task(loop, task)
        try:
            for (wire, invoke, implementation), params in notifications:
                taken += 1
                stale_cancel = wake.done()
                context = base.copy()
                try:
                    handler = context.run(invoke, implementation, params)
                    if type(handler) is not CoroutineType:
                        handler = _awaiting(handler)
                    waited = context.run(handler.send, None)
                except StopIteration:
                    continue
                except BaseException as error:
                    _report(wire, error, closing=False)
                    continue
                self._carried = _Carried(wire, handler, context, waited, stale_cancel)
                break
            else:
                self.busy = False
                return taken
        except BaseException:
            self.busy = False  # only what nothing should catch (`_report` raised it)
            raise
        finally:
            _leave_task(loop, task)
            if outer is not None:
                _enter_task(loop, outer)
        if not wake.done():
            wake.set_result(None)
        self.running = loop.create_future()
        self.on_worker(True)
        return taken

    def after_preceding(self, deliver: Callable[[], None]) -> None:
        """Run `deliver` (an answer's delivery) once every notification before has been
        handled; at once when none is being handled or waits. Never for the answer to a
        call made where `IN_ORDER` is set (`PendingCalls` delivers those at once)."""
        if self.busy:
            self._queue.append(deliver)
        else:
            deliver()

    def flush_answers(self) -> None:
        """Nothing more will be read: deliver every answer still queued now (the answers
        did arrive), before the calls still waiting fail."""
        queue = self._queue
        for item in list(queue):
            if not isinstance(item, _Queued):
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
                try:
                    await _InContext(carried.handler, carried.context, carried.waited, error)
                except BaseException as failure:
                    _report(carried.wire, failure, closing=self._closing)
                while queue:
                    item = queue.popleft()
                    if isinstance(item, _Queued):
                        self.waiting -= 1
                        context = self._base.copy()
                        try:
                            handler = context.run(item.invoke, item.implementation, item.params)
                            if type(handler) is not CoroutineType:
                                handler = _awaiting(handler)
                            await _InContext(handler, context)
                        except BaseException as failure:
                            _report(item.wire, failure, closing=self._closing)
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
                if not isinstance(item, _Queued):
                    item()
            queue.clear()
            self.waiting = 0
            self._idle()

    def _idle(self) -> None:
        self.busy = False
        running, self.running = self.running, None
        if running is not None:
            running.set_result(None)
            self.on_worker(False)


def _report(wire: str, error: BaseException, *, closing: bool) -> None:
    """What a notification's handler raised: logged, except a cancellation while the
    connection closes (it stops the worker) and what nothing should catch (KeyboardInterrupt,
    SystemExit), which go on."""
    if isinstance(error, asyncio.CancelledError):
        if closing:
            raise error
    elif isinstance(error, RpcError):
        log.debug("notification %s answered an error: %s", wire, error)
    elif isinstance(error, Exception):
        log.exception("notification handler %s failed", wire, exc_info=error)
    else:
        raise error


async def _awaiting(awaitable: Awaitable[Any]) -> None:
    """A handler that returned an awaitable other than a coroutine, as a coroutine."""
    await awaitable


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
