"""Start a handler inline and make it a task only if it has to wait.

Most handlers finish without ever suspending (answer from memory, record a notification).
Running their first step directly in the reading task, the way Python 3.12's eager tasks do,
saves a task and an event-loop turn per message, and makes handlers start in the order their
messages arrived. A handler that does suspend continues in a real task, so it can still be
awaited, cancelled and tracked like any other.
"""

from __future__ import annotations

import asyncio
import contextvars
import types
from collections.abc import Coroutine, Generator
from typing import Any


def start_eagerly(
    loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, None]
) -> asyncio.Task[None] | None:
    """Run `coro` up to its first suspension; None if it completed, else its task.

    The first step runs in a copy of the current context, which the task then keeps, so
    context variables a handler sets never leak into the reader or other handlers.
    """
    context = contextvars.copy_context()
    try:
        yielded = context.run(coro.send, None)
    except StopIteration:
        return None
    return loop.create_task(_continue(coro, yielded), context=context)


async def _continue(coro: Coroutine[Any, Any, None], yielded: Any) -> None:
    await _resume(coro, yielded)


@types.coroutine
def _resume(coro: Coroutine[Any, Any, None], yielded: Any) -> Generator[Any, Any, None]:
    # Hands what the handler awaits to the task, and what the task receives (a value, or
    # an exception such as CancelledError) back to the handler, until it returns.
    while True:
        try:
            value = yield yielded
        except BaseException as error:
            try:
                yielded = coro.throw(error)
            except StopIteration:
                return
        else:
            try:
                yielded = coro.send(value)
            except StopIteration:
                return
