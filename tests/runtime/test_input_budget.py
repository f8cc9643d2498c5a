"""A server bounds the input it buffers over all its connections (docs/wire.md §11).

Each connection may hold one incomplete message; many large ones at once used to add up
(eight clients took a server to 1.2 GiB). The bound here is measured independently of the
budget: the bytes every line splitter holds, summed after each read.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Iterator

import pytest

from idlc_runtime import PeerOptions, serve_tcp
from idlc_runtime.transports.budget import InputBudget
from idlc_runtime.transports.framing import CHUNK_SIZE, Line, LineSplitter

from .support import SampleService, run_async, within

LIMIT = 64 * 1024
MAX_MESSAGE = 1024 * 1024
CLIENTS = 8
NOTE = 900 * 1024


class _Measured:
    """The most bytes all live line splitters held at once."""

    def __init__(self) -> None:
        self.splitters: weakref.WeakSet[LineSplitter] = weakref.WeakSet()
        self.peak = 0


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Measured]:
    measure = _Measured()
    feed = LineSplitter.feed

    def measured_feed(self: LineSplitter, chunk: bytes) -> list[Line]:
        lines = feed(self, chunk)
        measure.splitters.add(self)
        held = sum(len(splitter._partial) for splitter in measure.splitters)
        measure.peak = max(measure.peak, held)
        return lines

    monkeypatch.setattr(LineSplitter, "feed", measured_feed)
    yield measure


async def _call_with_large_note(port: int, index: int) -> object:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        message = {
            "jsonrpc": "2.0",
            "id": index,
            "method": "sample:add:call",
            "params": {"amount": 1, "noteText": "n" * NOTE},
        }
        writer.write(json.dumps(message).encode() + b"\n")
        await writer.drain()
        return json.loads(await reader.readline())
    finally:
        writer.close()
        await writer.wait_closed()


@run_async
async def test_many_large_messages_at_once_stay_within_the_server_wide_bound(
    measured: _Measured,
) -> None:
    service = SampleService()
    options = PeerOptions(max_message_size=MAX_MESSAGE)
    async with serve_tcp(
        lambda: service, "127.0.0.1", 0, options=options, max_buffered_input=LIMIT
    ) as server:
        answers = await within(
            asyncio.gather(*(_call_with_large_note(server.port, i) for i in range(CLIENTS))), 15
        )
        assert sorted(answer["id"] for answer in answers) == list(range(CLIENTS))  # type: ignore[index]
        assert sorted(answer["result"] for answer in answers) == list(range(1, CLIENTS + 1))  # type: ignore[index]
        # The documented bound: the limit, one message over it, one read per connection.
        bound = LIMIT + MAX_MESSAGE + CLIENTS * CHUNK_SIZE
        assert measured.peak <= bound, (measured.peak, bound)
        assert server.input_budget.peak <= bound
        assert server.input_budget.held == 0


class _Holder:
    def __init__(self) -> None:
        self.paused = False

    def budget_pause(self) -> None:
        self.paused = True

    def budget_resume(self) -> None:
        self.paused = False


def test_the_budget_lets_one_connection_over_and_resumes_the_others_in_turn() -> None:
    budget = InputBudget(100)
    a, b, c = _Holder(), _Holder(), _Holder()
    budget.update(a, 80, False)
    budget.update(b, 60, False)  # over: b takes the overdraft and goes on
    assert not b.paused
    budget.update(c, 10, False)  # over, overdraft taken: c waits
    assert c.paused
    budget.update(a, 90, False)  # a too
    assert a.paused
    budget.update(b, 0, True)  # b's message is complete: the first waiter gets the overdraft
    assert not c.paused and a.paused
    budget.update(c, 0, True)  # total 90 < 100: a resumes
    assert not a.paused
    budget.release(a)
    assert budget.held == 0 and budget.peak == 160


def test_a_waiting_connection_that_goes_away_frees_its_share() -> None:
    budget = InputBudget(10)
    a, b = _Holder(), _Holder()
    budget.update(a, 20, False)
    budget.update(b, 5, False)
    assert b.paused
    budget.release(b)
    budget.update(a, 0, True)
    assert budget.held == 0
