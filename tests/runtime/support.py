"""Test helpers: an event-loop runner, the sample implementations, and a raw wire client."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import socket
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from idlc_runtime import Peer, PeerOptions, RpcError, current_peer

from .sample_api import AgentObjectRef, Item, Sample, SampleProxy

#: Upper bound for any single test; nothing should come close.
TEST_TIMEOUT = 20.0
#: Upper bound for one awaited answer.
STEP_TIMEOUT = 5.0


def run_async(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an `async def` test in a fresh event loop, with a timeout so it can never hang.

    Also checks that the test left no task running behind it.
    """

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        async def body() -> None:
            await asyncio.wait_for(test(*args, **kwargs), TEST_TIMEOUT)
            stray = asyncio.all_tasks() - {asyncio.current_task()}
            assert not stray, f"tasks left behind: {stray}"

        asyncio.run(body())

    return wrapper


async def within(awaitable: Any, timeout: float = STEP_TIMEOUT) -> Any:
    return await asyncio.wait_for(awaitable, timeout)


class SampleService(Sample):
    """The root object of the tests; gates let a test hold a handler at a known point."""

    def __init__(self) -> None:
        self.total = 0
        self.gates: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.started: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.journal: list[str] = []
        self.cancelled: set[str] = set()
        self._cancellations: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.completed: list[int] = []
        self.events: list[str] = []
        self._events_changed = asyncio.Event()

    async def add(self, *, amount: int, note_text: str | None = None) -> int:
        self.total += amount
        if note_text is not None:
            self.journal.append(note_text)
        return self.total

    async def echo(self, input: list[str]) -> list[str]:
        return list(reversed(input))

    async def ping(self) -> str:
        return "pong"

    async def hold_write(self, *, gate_key: str) -> str:
        return await self._hold(gate_key)

    async def hold_read(self, *, gate_key: str) -> str:
        return await self._hold(gate_key)

    async def _hold(self, key: str) -> str:
        self.journal.append(f"start {key}")
        self.started[key].set()
        try:
            await self.gates[key].wait()
        except asyncio.CancelledError:
            self.cancelled.add(key)
            self._cancellations[key].set()
            raise
        self.journal.append(f"end {key}")
        return key

    async def cancelled_event(self, key: str) -> None:
        await self._cancellations[key].wait()

    async def delay(self, *, ticks: int) -> int:
        for _ in range(ticks):
            await asyncio.sleep(0)
        self.completed.append(ticks)
        return ticks

    async def chatter(self, *, count: int) -> int:
        caller = SampleProxy(current_peer())
        for index in range(count):
            await caller.event(text=str(index))
        return count

    async def fail(self) -> None:
        raise ValueError("secret detail")

    async def refuse(self) -> None:
        raise RpcError(4242, "refused", {"why": "because"})

    async def agents(self) -> frozenset[AgentObjectRef]:
        return frozenset({AgentObjectRef("a"), AgentObjectRef("b")})

    async def find_agent(self, *, name: str) -> AgentObjectRef | None:
        return None if name == "nobody" else AgentObjectRef(name)

    async def event(self, *, text: str) -> None:
        self.events.append(text)
        self._events_changed.set()

    async def wait_for_events(self, count: int) -> list[str]:
        while len(self.events) < count:
            self._events_changed.clear()
            await within(self._events_changed.wait())
        return self.events


class MinimalSample(Sample):
    """Implements only the required member: everything else answers Unsupported."""

    async def add(self, *, amount: int, note_text: str | None = None) -> int:
        return amount


class NamedItem(Item):
    def __init__(self, name: str) -> None:
        self._name = name

    async def name(self) -> str:
        return self._name

    async def rename(self, *, name: str) -> None:
        self._name = name


class RawClient:
    """Speaks bytes to a served peer, to test what travels on the wire."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self._next_id = 10_000

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def send_json(self, message: object) -> None:
        await self.send(json.dumps(message).encode() + b"\n")

    async def receive(self) -> Any:
        line = await within(self.reader.readline())
        assert line.endswith(b"\n"), f"connection ended instead: {line!r}"
        return json.loads(line)

    async def call(self, method: str, params: object = None, id: object = None) -> Any:
        message: dict[str, object] = {"jsonrpc": "2.0", "id": id, "method": method}
        if id is None:
            self._next_id += 1
            message["id"] = self._next_id
        if params is not None:
            message["params"] = params
        await self.send_json(message)
        return await self.receive()

    async def assert_still_serving(self) -> None:
        """The next message must be the answer to a fresh ping: nothing else was pending."""
        self._next_id += 1
        await self.send_json({"jsonrpc": "2.0", "id": self._next_id, "method": "sample:ping:get"})
        answer = await self.receive()
        assert answer == {"jsonrpc": "2.0", "id": self._next_id, "result": "pong"}


@contextlib.asynccontextmanager
async def raw_connection(
    root: object, options: PeerOptions | None = None
) -> AsyncIterator[tuple[RawClient, Peer]]:
    """A `Peer` serving `root` on one end of a socket pair, a `RawClient` on the other."""
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=ours, limit=2**20)
    server_reader, server_writer = await asyncio.open_connection(sock=theirs)
    try:
        async with Peer(server_reader, server_writer, root, options=options) as server:
            yield RawClient(reader, writer), server
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
