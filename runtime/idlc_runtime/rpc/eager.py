"""Start each handler as a task of its own that takes its first step at once.

A handler is an ordinary task from its first line: `asyncio.current_task()` is its own task,
so `asyncio.timeout`, a `TaskGroup` or `current_task().cancel()` behave as anywhere else,
even before its first await, and a handler's timeout never touches the connection's
reading (the transport's callback or a `Peer`'s reading task).

The task's first step runs while the handler's line is handled, as Python 3.12's eager
tasks do: handlers start in the order their messages arrived, what a handler writes before
its first await goes out with the answers of the same read, and a handler that finishes
without suspending is never scheduled (3.12+) and is not counted as running.

- Python 3.12+: `asyncio.Task(..., eager_start=True)`, the standard eager task.
- Python 3.11, which has no eager tasks: the task is created (its first scheduled step
  only hands it what the coroutine is waiting for, or its outcome), and its first step runs
  at once with the task made current by `asyncio.tasks._enter_task` / `_leave_task`, the
  functions 3.11's own tasks use around each step, swapping out the reading task if there
  is one, as 3.12's eager start does. 3.11 only gets security fixes now, so these
  functions will not change under us, and tests/runtime/test_handler_task.py checks every
  behaviour this relies on (current task, timeouts, task groups, cancellation, restoring
  the reading task).

`step_as` is that by-hand step on its own, for a task that exists already: the ordered
worker (`ordered`) takes a notification handler's first step in its own long-lived task
the same way (written out there, on the path of every notification), on every Python
(3.12 and 3.13 have the same two functions, in C), instead of starting a task per
notification.

Each step of a handler's task is framed by `steps.hold()` and `steps.release()`
(`outbox.Outbox`: what a step writes goes out in one write when it ends).
"""

from __future__ import annotations

import asyncio
import contextvars
import sys

# `_enter_task`, `_leave_task`: what every Python's tasks call around each of their steps
# (3.11–3.13: C functions of `_asyncio`); they make a task current for a step taken by hand.
from asyncio.tasks import _enter_task, _leave_task
from collections.abc import Callable, Coroutine, Generator
from typing import Any, Final, Protocol

#: Python has eager tasks (3.12+).
NATIVE_EAGER: Final = sys.version_info >= (3, 12)

#: The loop's current task, or None (`asyncio.current_task` without its checks).
current_task: Callable[[asyncio.AbstractEventLoop], asyncio.Task[Any] | None]
if NATIVE_EAGER:  # pragma: no cover - depends on the Python version
    current_task = asyncio.current_task  # a C function since 3.12
else:  # pragma: no cover - depends on the Python version
    # 3.11's `current_task` is Python around this lookup: the loop's entry, or None.
    current_task = asyncio.tasks._current_tasks.get  # type: ignore[attr-defined]

#: `_Steps._first` when there is no first outcome left to hand over.
_HANDED: Final = object()


class StepHold(Protocol):
    """Told when each step of a handler begins and ends (`outbox.Outbox`: what a step
    writes goes out in one write when it ends)."""

    def hold(self) -> None: ...

    def release(self) -> None: ...


def start_eagerly(
    loop: asyncio.AbstractEventLoop,
    coro: Coroutine[Any, Any, None],
    steps: StepHold | None = None,
) -> asyncio.Task[None] | None:
    """Run `coro` as a task of its own whose first step runs now; None if it finished in
    that step, else its task.

    The task runs in a copy of the current context, so context variables a handler sets
    never leak into the reader or other handlers.
    """
    context = contextvars.copy_context()
    wrapper = _Steps(coro, steps)
    if NATIVE_EAGER:  # pragma: no cover - depends on the Python version
        task: asyncio.Task[None] = asyncio.Task(  # type: ignore[call-arg]
            wrapper, loop=loop, context=context, eager_start=True
        )
        return None if task.done() else task
    # Created first, its own first step scheduled: that step only hands it what this one
    # leaves (`_Steps.send`). This one runs now, with the task made current.
    task = asyncio.Task(wrapper, loop=loop, context=context)
    try:
        wrapper._first = step_as(loop, task, context, coro)
    except StopIteration as stop:
        wrapper._first = stop.value
        wrapper._finished = True
    except BaseException as error:  # the task reports it, as a task's step would
        wrapper._first = error
        wrapper._finished = True
    return None if wrapper._finished else task


def step_as(
    loop: asyncio.AbstractEventLoop,
    task: asyncio.Task[Any],
    context: contextvars.Context,
    coro: Coroutine[Any, Any, Any],
) -> Any:
    """Take one step of `coro` in `context` now, as if `task` took it: `task` is the
    current task meanwhile (the task current before, the reading task say, is put back
    after). Returns what the step awaits; raises what the coroutine raises, StopIteration
    included. The caller hands what it awaits to `task` (the ordered worker does)."""
    outer = current_task(loop)
    if outer is not None:
        _leave_task(loop, outer)
    _enter_task(loop, task)
    try:
        return context.run(coro.send, None)
    finally:
        _leave_task(loop, task)
        if outer is not None:
            _enter_task(loop, outer)


class _Steps(Coroutine[Any, Any, None]):
    """A handler's coroutine as its task runs it: every step framed by `steps`.

    On 3.11, `start_eagerly` runs the first step before the task takes any; the task's
    first step then only hands it what the coroutine was waiting for (or its outcome), and
    every later step, and any exception the task throws in (a cancellation, even before its
    first step), goes straight to the coroutine.
    """

    __slots__ = ("_coro", "_first", "_finished", "_steps")

    def __init__(self, coro: Coroutine[Any, Any, None], steps: StepHold | None) -> None:
        self._coro = coro
        self._steps = steps
        #: What the first step, run by `start_eagerly` (3.11), left for the task's first step.
        self._first: Any = _HANDED
        #: The first step ended the coroutine (`_first` is then its outcome).
        self._finished = False

    def send(self, value: Any) -> Any:
        first = self._first
        if first is not _HANDED:
            self._first = _HANDED
            if self._finished:
                if isinstance(first, BaseException):
                    raise first
                raise StopIteration(first)
            if first is not None:
                return first
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
        first = self._first
        self._first = _HANDED
        error = args[0] if args else None
        cancelled = isinstance(error, asyncio.CancelledError) or (
            isinstance(error, type) and issubclass(error, asyncio.CancelledError)
        )
        if cancelled and isinstance(first, asyncio.Future) and not first.done():
            # Cancelled before the task took its first step: the task never saw what the
            # coroutine awaits, so cancel that too, as a task's cancel() would have.
            first.cancel()
        # A coroutine that already finished raises what is thrown in: the task ends
        # cancelled, as a 3.12 eager task cancelled during its first step does.
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
        raise TypeError("a handler's coroutine is run by its task, not awaited")

    def __repr__(self) -> str:
        return f"<steps of {self._coro!r}>"
