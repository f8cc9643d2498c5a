"""Many WebSocket clients against one uvicorn process, beside the same over TCP.

The server is a child process (`bench/web.py --serve`) serving one interface both over
WebSocket (`serve_websocket`: uvicorn in its event loop) and over TCP (`serve_tcp`). This
process opens `--clients` connections at once (100) and has each make `--calls` calls (50)
one after the other, all clients together, then checks:

- every call was answered once, with its own result (each call adds a value unique to it);
- the server handled exactly the calls made, no more (no duplicate) and no fewer (no loss);
- the server's memory is bounded: after a warm-up round, its resident size after the last
  round is within `--growth` (10 %) of what it was after the first, so rounds do not pile
  up memory; its peak is reported.

It reports calls per second (the calls alone; connecting is timed apart) per transport,
the median over `--runs` rounds. A failed check exits 1.

Usage:  python bench/web.py [--clients 100] [--calls 50] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import resource
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, ClassVar

import msgspec

from idlc_runtime import (
    Execution,
    InputShape,
    InterfaceSpec,
    MethodSpec,
    Peer,
    connect_tcp,
    serve_tcp,
)
from idlc_runtime.web import connect_websocket, serve_websocket

# ---------------------------------------------------------------- the API, in generated shape


class TallyAddInput(msgspec.Struct, kw_only=True, omit_defaults=True):
    client: int
    call: int


class TallyStats(msgspec.Struct, kw_only=True):
    #: Calls of `add` handled, over all connections.
    handled: int
    #: Distinct (client, call) pairs among them.
    distinct: int
    #: The server's resident size now and at its peak, in KiB.
    rss_kib: int
    peak_rss_kib: int
    #: The most bytes its WebSocket peers held back at once (docs/wire.md §11).
    budget_peak: int


class Tally:
    """Counts what it is asked to add; one object shared by every connection."""

    __idlc_interface__: ClassVar[InterfaceSpec]

    def __init__(self, budget_peak: Callable[[], int]) -> None:
        self.handled = 0
        self.seen: set[tuple[int, int]] = set()
        self._budget_peak = budget_peak

    async def add(self, *, client: int, call: int) -> int:
        self.handled += 1
        self.seen.add((client, call))
        return client * 1_000_000 + call

    async def stats(self) -> TallyStats:
        # Closed connections leave reference cycles (peers and their tasks) that only a full
        # collection frees; without one, the resident size saws up and down with the
        # collector's thresholds and tells nothing about what is kept.
        gc.collect()
        return TallyStats(
            handled=self.handled,
            distinct=len(self.seen),
            rss_kib=_resident_kib(),
            peak_rss_kib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            budget_peak=self._budget_peak(),
        )

    async def reset(self) -> None:
        self.handled = 0
        self.seen.clear()


def _resident_kib() -> int:
    """This process's resident size now (Linux); its peak elsewhere."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


async def _add(implementation: Tally, params: TallyAddInput) -> int:
    return await implementation.add(client=params.client, call=params.call)


async def _stats(implementation: Tally, params: None) -> TallyStats:
    return await implementation.stats()


async def _reset(implementation: Tally, params: None) -> None:
    return await implementation.reset()


def _method(
    wire: str, member: str, shape: InputShape, params: Any, result: Any, invoke: Any
) -> MethodSpec:
    return MethodSpec(
        wire=wire,
        member=member,
        shape=shape,
        params_type=params,
        result_type=result,
        invoke=invoke,
        execution=Execution.SNAPSHOT,
        notify=False,
        required=True,
    )


Tally.__idlc_interface__ = InterfaceSpec(
    name="Tally",
    id="tally",
    revision="tally@1",
    methods={
        "tally:add:call": _method(
            "tally:add:call", "add", InputShape.RECORD, TallyAddInput, int, _add
        ),
        "tally:stats:get": _method(
            "tally:stats:get", "stats", InputShape.UNIT, None, TallyStats, _stats
        ),
        "tally:reset:call": _method(
            "tally:reset:call", "reset", InputShape.UNIT, None, None, _reset
        ),
    },
    skeleton=Tally,
)


# ---------------------------------------------------------------- the server (a child)


async def serve() -> None:
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    peaks: list[Callable[[], int]] = []
    tally = Tally(lambda: peaks[0]())
    async with (
        serve_websocket(lambda: tally) as web,
        serve_tcp(lambda: tally, "127.0.0.1", 0) as tcp,
    ):
        peaks.append(lambda: web.input_budget.peak)
        print(json.dumps({"ws": web.url, "tcp": tcp.port}), flush=True)
        await stop.wait()


# ---------------------------------------------------------------- the clients


Connect = Callable[[], contextlib.AbstractAsyncContextManager[Peer]]


async def one_round(connect: Connect, clients: int, calls: int) -> tuple[float, float]:
    """Connect `clients` peers, have each make `calls` calls; (connect seconds, calls/s)."""
    async with contextlib.AsyncExitStack() as stack:
        started = time.perf_counter()
        peers = await asyncio.gather(
            *(stack.enter_async_context(connect()) for _ in range(clients))
        )
        connected = time.perf_counter() - started

        async def work(client: int, peer: Peer) -> None:
            for call in range(calls):
                params = TallyAddInput(client=client, call=call)
                result = await peer.request("tally:add:call", params, int)
                if result != client * 1_000_000 + call:
                    raise SystemExit(f"client {client}, call {call}: answered {result}")

        started = time.perf_counter()
        await asyncio.gather(*(work(client, peer) for client, peer in enumerate(peers)))
        elapsed = time.perf_counter() - started
    return connected, clients * calls / elapsed


@contextlib.asynccontextmanager
async def server_process() -> AsyncIterator[dict[str, Any]]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--serve", stdout=subprocess.PIPE
    )
    assert process.stdout is not None
    try:
        yield json.loads(await asyncio.wait_for(process.stdout.readline(), 30))
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 30)


async def stats_of(connect: Connect) -> TallyStats:
    async with connect() as peer:
        stats: TallyStats = await peer.request("tally:stats:get", None, TallyStats)
        await peer.request("tally:reset:call", None, type(None))
        return stats


async def measure(clients: int, calls: int, runs: int, growth: float) -> int:
    failures = 0
    async with server_process() as address:
        transports: dict[str, Connect] = {
            "WebSocket": lambda: connect_websocket(address["ws"]),
            "TCP": lambda: connect_tcp("127.0.0.1", address["tcp"]),
        }
        for name, connect in transports.items():
            # A round to warm up (imports, allocator pools, decoders), neither timed nor
            # counted in the memory check.
            await one_round(connect, clients, calls)
            await stats_of(connect)
            rates, connects, resident = [], [], []
            for _ in range(runs):
                connected, rate = await one_round(connect, clients, calls)
                stats = await stats_of(connect)
                expected = clients * calls
                if (stats.handled, stats.distinct) != (expected, expected):
                    print(
                        f"{name}: the server handled {stats.handled} calls "
                        f"({stats.distinct} distinct) of {expected}"
                    )
                    failures += 1
                rates.append(rate)
                connects.append(connected)
                resident.append(stats.rss_kib)
            grew = (resident[-1] - resident[0]) / resident[0]
            if grew > growth:
                print(f"{name}: the server's memory grew {grew:.0%} from round 1 to {runs}")
                failures += 1
            print(
                f"{name:>9}: {statistics.median(rates):8.0f} calls/s "
                f"(min {min(rates):.0f}, max {max(rates):.0f}); "
                f"{clients} connections in {statistics.median(connects) * 1000:.0f} ms; "
                f"server RSS {resident[0] / 1024:.0f} MiB after round 1, "
                f"{resident[-1] / 1024:.0f} MiB after round {runs}, "
                f"peak {stats.peak_rss_kib / 1024:.0f} MiB"
                + (f"; input budget peak {stats.budget_peak} B" if name == "WebSocket" else "")
            )
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--growth", type=float, default=0.10)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve())
        return
    print(f"{args.clients} clients x {args.calls} calls, {args.runs} rounds per transport")
    failures = asyncio.run(measure(args.clients, args.calls, args.runs, args.growth))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
