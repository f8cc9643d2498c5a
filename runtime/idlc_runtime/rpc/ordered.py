"""The connection's ordered worker: notifications handled one after another, in the order
they arrived, and answers delivered after the notifications that arrived before them
(docs/wire.md §13).

A notification's handler runs at once when none is running (its first step while its line
is read, as a request's does); otherwise it waits in the queue, behind the others. An answer
to one of this side's calls that arrives while notifications are running or waiting joins
the same queue, so its caller resumes only once they have all been handled — except the
answer to a call made by a notification handler itself (or a task it started): that one is
delivered at once. The handler waiting for it is the one holding the queue, so queueing its
answer behind the queue would wait for ever; delivered at once, no answer ever waits for a
notification handler that waits for the other side.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Callable, Coroutine, Generator
from typing import Any

from idlc_runtime.rpc.eager import StepHold, start_eagerly

#: True in the ordered worker's context, so in every notification handler it runs and in
#: the tasks those start: calls made there get their answers at once (see the module).
IN_ORDER: contextvars.ContextVar[bool] = contextvars.ContextVar("idlc_in_order", default=False)

#: A queued item: a notification's handler to await, or an answer to deliver.
_Item = Coroutine[Any, Any, None] | Callable[[], None]


def _nothing() -> None:
    pass


class OrderedWorker:
    """Runs notification handlers one at a time, in arrival order, and answers after them.

    `on_handler_done` is called whenever a queued notification's handler ends (what a bound
    on handlers held back may go on); `on_worker` is told of the worker's task when a handler
    did not finish in its first step, and of None once the queue is empty.
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
        self.on_worker: Callable[[asyncio.Task[None] | None], None] = _nothing_task

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
        self._busy = True
        task = start_eagerly(self._loop, self._work(handler), self._steps)
        if task is not None:
            self.on_worker(task)

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

    async def _work(self, first: Coroutine[Any, Any, None]) -> None:
        IN_ORDER.set(True)
        # What every handler starts from: this task's context (a copy of the connection's,
        # made by `start_eagerly`) before the first handler changes anything in it.
        base = contextvars.copy_context()
        queue = self._queue
        try:
            await first  # in this task's own context: no wrapper for the usual case
            while queue:
                item = queue.popleft()
                if isinstance(item, Coroutine):
                    self.waiting -= 1
                    await _InContext(item, base.copy())
                    self.on_handler_done()
                else:
                    item()
        finally:
            # Closing cancelled the worker: what waits is dropped, answers delivered.
            for item in queue:
                if isinstance(item, Coroutine):
                    item.close()
                else:
                    item()
            queue.clear()
            self.waiting = 0
            self._busy = False
            self.on_worker(None)


class _InContext:
    """Awaits a handler with each of its steps run in `context`: a copy of the worker's for
    each handler, so what one handler sets in a context variable stays its own (as it does
    in a task of its own), without a task per handler."""

    __slots__ = ("_context", "_coro")

    def __init__(self, coro: Coroutine[Any, Any, None], context: contextvars.Context) -> None:
        self._coro = coro
        self._context = context

    def __await__(self) -> Generator[Any, Any, None]:
        run = self._context.run
        coro = self._coro
        value: Any = None
        error: BaseException | None = None
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


def _nothing_task(task: asyncio.Task[None] | None) -> None:
    pass
