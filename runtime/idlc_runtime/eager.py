"""Start a handler inline and make it a task only if it has to wait.

Most handlers finish without ever suspending (answer from memory, record a notification).
Running their first step directly in the reading task, the way Python 3.12's eager tasks do,
saves a task and an event-loop turn per message, and makes handlers start in the order their
messages arrived. A handler that does suspend continues in a real task, so it can still be
awaited, cancelled and tracked like any other.

Unlike 3.12's eager tasks, the first step runs in the reader's place: in the transport's
callback (no current task) or in the reading task of a `Peer` over a StreamReader. A handler
that needs `asyncio.current_task()` to be its own (`asyncio.timeout`, a `TaskGroup`) must
await something before using it, e.g. `await asyncio.sleep(0)`.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine, Generator
from typing import Any, Final, Protocol

_STARTED: Final = object()


class StepHold(Protocol):
    """Told when each later step of a handler begins and ends (`outbox.Outbox`: what a
    step writes goes out in one write when it ends)."""

    def hold(self) -> None: ...

    def release(self) -> None: ...


def start_eagerly(
    loop: asyncio.AbstractEventLoop,
    coro: Coroutine[Any, Any, None],
    steps: StepHold | None = None,
) -> asyncio.Task[None] | None:
    """Run `coro` up to its first suspension; None if it completed, else its task.

    The first step runs in a copy of the current context, which the task then keeps, so
    context variables a handler sets never leak into the reader or other handlers. Each
    step the task then runs is framed by `steps.hold()` and `steps.release()`.
    """
    context = contextvars.copy_context()
    try:
        yielded = context.run(coro.send, None)
    except StopIteration:
        return None
    return loop.create_task(_Continuation(coro, yielded, steps), context=context)


class _Continuation(Coroutine[Any, Any, None]):
    """The rest of a started coroutine, as a coroutine a task can run.

    Its first step hands the task what the coroutine was waiting for; every later step, and
    any exception the task throws in (a cancellation, even before the first step), goes
    straight to the coroutine, with no wrapper frame in between.
    """

    __slots__ = ("_coro", "_pending", "_steps")

    def __init__(
        self, coro: Coroutine[Any, Any, None], yielded: Any, steps: StepHold | None
    ) -> None:
        self._coro = coro
        self._pending = yielded
        self._steps = steps

    def send(self, value: Any) -> Any:
        pending = self._pending
        if pending is not _STARTED:
            self._pending = _STARTED
            if pending is not None:
                return pending
            # A bare yield (`asyncio.sleep(0)`) only asked to let the loop run once, which
            # it has by the time the task takes its first step: carry on at once.
        steps = self._steps
        if steps is None:
            return self._coro.send(value)
        steps.hold()
        try:
            return self._coro.send(value)
        finally:
            steps.release()

    def throw(self, *args: Any) -> Any:
        pending = self._pending
        self._pending = _STARTED
        error = args[0] if args else None
        cancelled = isinstance(error, asyncio.CancelledError) or (
            isinstance(error, type) and issubclass(error, asyncio.CancelledError)
        )
        if cancelled and isinstance(pending, asyncio.Future) and not pending.done():
            # Cancelled before the task took its first step: the task never saw what the
            # coroutine awaits, so cancel that too, as a task's cancel() would have.
            pending.cancel()
        steps = self._steps
        if steps is None:
            return self._coro.throw(*args)
        steps.hold()
        try:
            return self._coro.throw(*args)
        finally:
            steps.release()

    def close(self) -> None:
        self._coro.close()

    def __await__(self) -> Generator[Any, None, None]:
        raise TypeError("a handler's continuation is run by its task, not awaited")

    def __repr__(self) -> str:
        return f"<continuation of {self._coro!r}>"
