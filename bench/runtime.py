"""Round trips per second of idlc_runtime against a raw asyncio + json baseline.

Both sides of each connection live in this one process, joined by two `os.pipe` pairs, so
the figures measure the runtime's own cost per message (framing, decoding, dispatch, tasks,
encoding, writes), not a network. Scenarios:

  (a) a small request answered directly;
  (b) a request whose handler sends 10 notifications to the caller before answering.

The baseline is what one writes without a runtime: asyncio streams, `readline`, stdlib
`json`, a dict of handlers, no validation; like idlc_runtime it runs every incoming request
and notification in its own task, so both do the same work.

Usage:  python bench/runtime.py [--runs 7] [--count 3000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import msgspec

from idlc_runtime import (
    Execution,
    InputShape,
    InterfaceSpec,
    MethodSpec,
    connect_fds,
    current_peer,
)

NOTIFICATIONS = 10

# ---------------------------------------------------------------- the API, in generated shape


class BenchAddInput(msgspec.Struct, kw_only=True, omit_defaults=True):
    left: int
    right: int


class BenchTickInput(msgspec.Struct, kw_only=True, omit_defaults=True):
    index: int


class Bench:
    __idlc_interface__: ClassVar[InterfaceSpec]

    async def add(self, *, left: int, right: int) -> int:
        return left + right

    async def chatty_add(self, *, left: int, right: int) -> int:
        peer = current_peer()
        for index in range(NOTIFICATIONS):
            await peer.notify("bench:tick:notify", BenchTickInput(index=index))
        return left + right

    async def tick(self, *, index: int) -> None:
        self.ticks += 1

    ticks = 0


async def _add(implementation: Bench, params: BenchAddInput) -> int:
    return await implementation.add(left=params.left, right=params.right)


async def _chatty_add(implementation: Bench, params: BenchAddInput) -> int:
    return await implementation.chatty_add(left=params.left, right=params.right)


async def _tick(implementation: Bench, params: BenchTickInput) -> None:
    return await implementation.tick(index=params.index)


def _method(
    wire: str, member: str, params: type, result: Any, invoke: Any, notify: bool
) -> MethodSpec:
    return MethodSpec(
        wire=wire,
        member=member,
        shape=InputShape.RECORD,
        params_type=params,
        result_type=result,
        invoke=invoke,
        execution=None if notify else Execution.SNAPSHOT,
        notify=notify,
        # The class below is its own skeleton: every member counts as implemented (the
        # runtime answers members a subclass leaves out -32601 without calling them).
        required=True,
    )


Bench.__idlc_interface__ = InterfaceSpec(
    name="Bench",
    id="bench",
    revision="bench@1",
    methods={
        "bench:add:call": _method("bench:add:call", "add", BenchAddInput, int, _add, False),
        "bench:chatty-add:call": _method(
            "bench:chatty-add:call", "chatty_add", BenchAddInput, int, _chatty_add, False
        ),
        "bench:tick:notify": _method(
            "bench:tick:notify", "tick", BenchTickInput, None, _tick, True
        ),
    },
    skeleton=Bench,
)


# ---------------------------------------------------------------- idlc_runtime


async def ours(method: str, count: int) -> float:
    server_in, client_out = os.pipe()
    client_in, server_out = os.pipe()
    client_root = Bench()
    async with (
        connect_fds(server_in, server_out, Bench()),
        connect_fds(client_in, client_out, client_root) as client,
    ):
        params = BenchAddInput(left=1, right=2)
        await client.request(method, params, int)  # warm up the decoders
        started = time.perf_counter()
        for _ in range(count):
            await client.request(method, params, int)
        elapsed = time.perf_counter() - started
    return count / elapsed


# ---------------------------------------------------------------- the raw baseline


class RawPeer:
    """The baseline: what a JSON-RPC loop looks like with no runtime at all."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        handlers: dict[str, Callable[[RawPeer, Any], Awaitable[Any]]],
    ) -> None:
        self.reader, self.writer, self.handlers = reader, writer, handlers
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.next_id = 0
        self.tasks: set[asyncio.Task[None]] = set()

    def send(self, message: dict[str, Any]) -> None:
        self.writer.write(json.dumps(message).encode() + b"\n")

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return await future

    async def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def answer(self, id: int, method: str, params: Any) -> None:
        result = await self.handlers[method](self, params)
        self.send({"jsonrpc": "2.0", "id": id, "result": result})

    async def run(self) -> None:
        while line := await self.reader.readline():
            message = json.loads(line)
            if "method" in message:
                if "id" in message:
                    coro = self.answer(message["id"], message["method"], message["params"])
                else:
                    coro = self.handlers[message["method"]](self, message["params"])
                task = asyncio.create_task(coro)
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
            else:
                self.pending.pop(message["id"]).set_result(message["result"])


async def _raw_add(peer: RawPeer, params: Any) -> Any:
    return params["left"] + params["right"]


async def _raw_chatty_add(peer: RawPeer, params: Any) -> Any:
    for index in range(NOTIFICATIONS):
        await peer.notify("bench:tick:notify", {"index": index})
    return params["left"] + params["right"]


async def _raw_tick(peer: RawPeer, params: Any) -> None:
    return None


RAW_HANDLERS: dict[str, Callable[[RawPeer, Any], Awaitable[Any]]] = {
    "bench:add:call": _raw_add,
    "bench:chatty-add:call": _raw_chatty_add,
    "bench:tick:notify": _raw_tick,
}


async def _raw_end(read_fd: int, write_fd: int) -> RawPeer:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", 0)
    )
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), os.fdopen(write_fd, "wb", 0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return RawPeer(reader, writer, RAW_HANDLERS)


async def baseline(method: str, count: int) -> float:
    server_in, client_out = os.pipe()
    client_in, server_out = os.pipe()
    server = await _raw_end(server_in, server_out)
    client = await _raw_end(client_in, client_out)
    running = [asyncio.create_task(server.run()), asyncio.create_task(client.run())]
    params = {"left": 1, "right": 2}
    await client.request(method, params)
    started = time.perf_counter()
    for _ in range(count):
        await client.request(method, params)
    elapsed = time.perf_counter() - started
    client.writer.close()
    server.writer.close()
    await asyncio.gather(*running)
    return count / elapsed


# ---------------------------------------------------------------- report


SCENARIOS = {
    "(a) small request": "bench:add:call",
    f"(b) request + {NOTIFICATIONS} notifications": "bench:chatty-add:call",
}


async def measure(runs: int, count: int) -> dict[str, tuple[float, float]]:
    samples: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in SCENARIOS}
    for _ in range(runs):
        # Interleaved, so drift in machine load affects both sides alike.
        for name, method in SCENARIOS.items():
            samples[name][0].append(await ours(method, count))
            samples[name][1].append(await baseline(method, count))
    return {
        name: (statistics.median(mine), statistics.median(raw))
        for name, (mine, raw) in samples.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per scenario (median kept)")
    parser.add_argument("--count", type=int, default=3000, help="round trips per run")
    args = parser.parse_args()
    results = asyncio.run(measure(args.runs, args.count))
    print(
        f"Python {sys.version.split()[0]}, msgspec {msgspec.__version__}, "
        f"{args.runs} runs x {args.count} round trips, median round trips/s"
    )
    print(f"{'scenario':36} {'idlc_runtime':>14} {'raw baseline':>14} {'ratio':>7}")
    for name, (mine, raw) in results.items():
        print(f"{name:36} {mine:14,.0f} {raw:14,.0f} {mine / raw:6.2f}x")


if __name__ == "__main__":
    main()
