"""Handlers that use their own task from their first line (`asyncio.timeout`, `TaskGroup`,
`current_task()`), served as `PeerOptions.fallback` methods named `t:*`; shared by
test_handler_task.py and the child process it spawns (task_server.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from idlc_runtime import PeerOptions, current_peer

#: What the notification handlers did, in order (read back with `t:notes`).
NOTES: list[str] = []


async def _value(value: int, delay: float = 0.0) -> int:
    await asyncio.sleep(delay)
    return value


async def _fail_soon() -> None:
    await asyncio.sleep(0.01)
    raise ValueError("a child of the group failed")


async def task_fallback(method: str, params: Any, notify: bool) -> Any:
    result = await _handle(method, params)
    if notify:
        NOTES.append(f"{method} {result}")
    return result


async def _handle(method: str, params: Any) -> Any:
    if method == "t:timeout":
        async with asyncio.timeout(5):
            await asyncio.sleep(0.01)
        return "done"
    if method == "t:expire":
        try:
            async with asyncio.timeout(0.05):
                await asyncio.sleep(2)
        except TimeoutError:
            return "timed out"
        return "not timed out"
    if method == "t:sync_timeout":
        async with asyncio.timeout(5):
            pass
        return "sync"
    if method == "t:taskgroup":
        async with asyncio.TaskGroup() as group:
            first = group.create_task(_value(1, 0.01))
            second = group.create_task(_value(2))
        return first.result() + second.result()
    if method == "t:taskgroup_fails":
        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(_fail_soon())
                group.create_task(asyncio.sleep(2))  # cancelled by the group
        except ExceptionGroup as group_error:
            if group_error.subgroup(ValueError) is not None:
                return "group failed"
            raise
        return "group did not fail"
    if method == "t:current":
        task = asyncio.current_task()
        assert task is not None
        await asyncio.sleep(0)
        again = asyncio.current_task()
        await asyncio.sleep(0.001)
        return {
            "same": again is task and asyncio.current_task() is task,
            "done": task.done(),
        }
    if method == "t:cancel_self":
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        try:
            await asyncio.sleep(2)
        except asyncio.CancelledError:
            task.uncancel()
            return "cancelled itself"
        return "not cancelled"
    if method == "t:notes":
        return list(NOTES)
    if method == "t:relay":
        # Calls the caller back: its handler then runs on the caller's side of this connection.
        return await current_peer().request(params["method"], None, Any)
    if method == "t:relay_notify":
        await current_peer().notify(params["method"], None)
        return None
    raise LookupError(method)


OPTIONS = PeerOptions(fallback=task_fallback)
