"""A handler is its own current task from its first line (idlc_runtime/rpc/eager.py).

`asyncio.timeout`, a `TaskGroup` and `asyncio.current_task()` work before a handler's first
await, over every kind of connection: a LineProtocol (memory_pair, TCP, the stdio of a
spawned process) and a StreamReader (`Peer(reader, writer)`, the parent's side of `spawn`);
a handler's timeout, expired or not, never affects the connection.
"""

from __future__ import annotations

import asyncio
import contextvars
import socket
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from idlc_runtime import Peer, connect_tcp, memory_pair, serve_tcp, spawn
from idlc_runtime.rpc.eager import start_eagerly

from . import task_handlers
from .support import SampleService, run_async, within
from .task_handlers import OPTIONS
from .test_transports import _child_env

TASK_SERVER = str(Path(__file__).with_name("task_server.py"))


class Route:
    """How a test reaches the `t:*` handlers: directly, or by having the other side call
    them back on our side (`relay`), so that they run behind our reading."""

    def __init__(self, peer: Peer, relay: bool = False) -> None:
        self.peer = peer
        self.relay = relay

    async def call(self, method: str) -> Any:
        if self.relay:
            return await within(self.peer.request("t:relay", {"method": method}, Any))
        return await within(self.peer.request(method, None, Any))

    async def notify(self, method: str) -> None:
        if self.relay:
            await within(self.peer.request("t:relay_notify", {"method": method}, Any))
        else:
            await self.peer.notify(method, None)

    async def assert_still_serving(self) -> None:
        assert await within(self.peer.request("sample:ping:get", None, str)) == "pong"


@asynccontextmanager
async def _memory() -> AsyncIterator[Route]:
    async with memory_pair(SampleService(), None, options=OPTIONS) as (_, client):
        yield Route(client)


@asynccontextmanager
async def _stream() -> AsyncIterator[Route]:
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=ours)
    server_reader, server_writer = await asyncio.open_connection(sock=theirs)
    async with Peer(server_reader, server_writer, SampleService(), options=OPTIONS):
        async with Peer(reader, writer, None) as client:
            yield Route(client)


@asynccontextmanager
async def _tcp() -> AsyncIterator[Route]:
    async with serve_tcp(SampleService, "127.0.0.1", 0, options=OPTIONS) as server:
        async with connect_tcp("127.0.0.1", server.port) as client:
            yield Route(client)


@asynccontextmanager
async def _spawned_child() -> AsyncIterator[Route]:
    # The handlers run in the child, behind serve_stdio's LineProtocol.
    async with spawn([sys.executable, TASK_SERVER], env=_child_env()) as peer:
        yield Route(peer)


@asynccontextmanager
async def _spawning_parent() -> AsyncIterator[Route]:
    # The handlers run here, behind the StreamReader of spawn's pipes.
    async with spawn(
        [sys.executable, TASK_SERVER], root=SampleService(), options=OPTIONS, env=_child_env()
    ) as peer:
        yield Route(peer, relay=True)


Connect = Callable[[], AbstractAsyncContextManager[Route]]
ROUTES: list[tuple[str, Connect]] = [
    ("memory", _memory),
    ("stream", _stream),
    ("tcp", _tcp),
    ("spawn-stdio", _spawned_child),
    ("spawn-parent", _spawning_parent),
]
routes = pytest.mark.parametrize(("name", "connect"), ROUTES, ids=[r[0] for r in ROUTES])


@routes
@run_async
async def test_asyncio_timeout_at_the_first_line(name: str, connect: Connect) -> None:
    async with connect() as route:
        assert await route.call("t:timeout") == "done"
        assert await route.call("t:sync_timeout") == "sync"
        await route.assert_still_serving()


@routes
@run_async
async def test_an_expired_timeout_ends_the_handler_not_the_connection(
    name: str, connect: Connect
) -> None:
    async with connect() as route:
        answers = await asyncio.gather(*(route.call("t:expire") for _ in range(3)))
        assert answers == ["timed out"] * 3
        await route.assert_still_serving()
        assert await route.call("t:timeout") == "done"


@routes
@run_async
async def test_a_task_group_at_the_first_line(name: str, connect: Connect) -> None:
    async with connect() as route:
        assert await route.call("t:taskgroup") == 3
        # A failing child cancels the group's parent: the handler, not the connection.
        assert await route.call("t:taskgroup_fails") == "group failed"
        await route.assert_still_serving()


@routes
@run_async
async def test_current_task_is_the_handlers_own(name: str, connect: Connect) -> None:
    async with connect() as route:
        assert await route.call("t:current") == {"same": True, "done": False}
        assert await route.call("t:cancel_self") == "cancelled itself"
        await route.assert_still_serving()


@routes
@run_async
async def test_a_notification_handler_with_a_timeout(name: str, connect: Connect) -> None:
    task_handlers.NOTES.clear()
    async with connect() as route:
        await route.notify("t:expire")
        await route.notify("t:timeout")
        for _ in range(200):
            notes = await route.call("t:notes")
            if len(notes) == 2:
                break
            await asyncio.sleep(0.01)
        assert sorted(notes) == ["t:expire timed out", "t:timeout done"]
        await route.assert_still_serving()


# ---------------------------------------------------------------- start_eagerly itself


@run_async
async def test_the_first_step_runs_at_once_as_the_new_task() -> None:
    outer = asyncio.current_task()
    seen: list[object] = []

    async def handler() -> None:
        seen.append(asyncio.current_task())
        await asyncio.sleep(0)
        seen.append(asyncio.current_task())

    task = start_eagerly(asyncio.get_running_loop(), handler())
    assert task is not None
    assert seen == [task]  # ran before start_eagerly returned
    assert asyncio.current_task() is outer  # the caller is current again
    await task
    assert seen == [task, task]


@run_async
async def test_a_handler_finished_in_its_first_step_gives_no_task() -> None:
    ran: list[object] = []

    async def handler() -> None:
        async with asyncio.timeout(1):
            ran.append(asyncio.current_task())

    outer = asyncio.current_task()
    assert start_eagerly(asyncio.get_running_loop(), handler()) is None
    assert ran and ran[0] is not None and ran[0] is not outer
    assert asyncio.current_task() is outer
    await asyncio.sleep(0)
    assert ran[0].done()  # type: ignore[attr-defined]


@run_async
async def test_started_from_a_callback_no_task_is_current_afterwards() -> None:
    loop = asyncio.get_running_loop()
    after: list[object] = []
    finished = loop.create_future()

    async def handler() -> None:
        async with asyncio.timeout(1):
            await asyncio.sleep(0.01)
        finished.set_result(asyncio.current_task())

    def callback() -> None:
        task = start_eagerly(loop, handler())
        after.append(task)
        after.append(asyncio.current_task(loop))

    loop.call_soon(callback)
    handler_task = await within(finished)
    assert after == [handler_task, None]


@run_async
async def test_a_timeout_expiring_in_a_handler_leaves_its_starter_alone() -> None:
    async def handler() -> str:
        try:
            async with asyncio.timeout(0.02):
                await asyncio.sleep(1)
        except TimeoutError:
            return "timed out"
        return "not timed out"

    task = start_eagerly(asyncio.get_running_loop(), handler())  # type: ignore[arg-type]
    assert task is not None
    await asyncio.sleep(0.05)  # would be cancelled if the timeout had bound to this task
    assert await task == "timed out"  # type: ignore[comparison-overlap]
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


@run_async
async def test_a_first_step_that_raises_fails_its_task_and_restores_the_caller() -> None:
    outer = asyncio.current_task()
    tasks: list[asyncio.Task[None] | None] = []

    async def handler() -> None:
        tasks.append(asyncio.current_task())
        raise ValueError("first step")

    assert start_eagerly(asyncio.get_running_loop(), handler()) is None
    assert asyncio.current_task() is outer
    await asyncio.sleep(0)
    task = tasks[0]
    assert task is not None and task is not outer and task.done()
    assert isinstance(task.exception(), ValueError)


@run_async
async def test_a_handler_that_cancels_itself_in_its_first_step() -> None:
    async def handler() -> None:
        asyncio.current_task().cancel()  # type: ignore[union-attr]
        await asyncio.sleep(1)

    task = start_eagerly(asyncio.get_running_loop(), handler())
    assert task is not None
    with pytest.raises(asyncio.CancelledError):
        await within(task)
    assert not asyncio.current_task().cancelling()  # type: ignore[union-attr]


@run_async
async def test_context_variables_set_by_a_handler_stay_in_its_task() -> None:
    variable: contextvars.ContextVar[str] = contextvars.ContextVar("variable", default="outer")
    seen: list[str] = []

    async def handler() -> None:
        variable.set("handler")
        await asyncio.sleep(0)
        seen.append(variable.get())

    task = start_eagerly(asyncio.get_running_loop(), handler())
    assert variable.get() == "outer"
    assert task is not None
    await task
    assert seen == ["handler"] and variable.get() == "outer"


@run_async
async def test_handlers_start_in_the_order_they_are_started() -> None:
    order: list[int] = []

    async def handler(index: int) -> None:
        order.append(index)
        if index % 2:
            await asyncio.sleep(0)
        order.append(100 + index)

    loop = asyncio.get_running_loop()
    tasks = [start_eagerly(loop, handler(index)) for index in range(4)]
    assert order == [0, 100, 1, 2, 102, 3]
    await asyncio.gather(*(task for task in tasks if task is not None))
    assert order[6:] == [101, 103]
