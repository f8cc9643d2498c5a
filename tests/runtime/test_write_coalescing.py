"""What one step writes goes out together, and never waits for a later write or loop pass
(`idlc_runtime.rpc.outbox`).

Each test reads with the other side's ordinary read: a message still held back would make
that read time out, not merely arrive late.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc_runtime import Peer, current_peer
from idlc_runtime.rpc.outbox import FLUSH_SIZE

from .sample_api import SampleEventInput
from .support import SampleService, raw_connection, run_async, within

EVENT = "sample:event:notify"


async def _event(text: str) -> None:
    await current_peer().notify(EVENT, SampleEventInput(text=text))


class Announcer(SampleService):
    """`hold_read` sends `before` notifications, then waits for its gate, then answers.

    With `as_task`, it first yields once, so that it runs as a task of its own (its later
    steps are then framed by the outbox); without, it runs in the read's callback.
    """

    def __init__(self, before: int, as_task: bool) -> None:
        super().__init__()
        self.before = before
        self.as_task = as_task

    async def hold_read(self, *, gate_key: str) -> str:
        if self.as_task:
            await asyncio.sleep(0)
        for index in range(self.before):
            await _event(f"{gate_key}:{index}")
        return await super().hold_read(gate_key=gate_key)


def _request(id: int, gate_key: str) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": id,
        "method": "sample:hold-read:call",
        "params": {"gateKey": gate_key},
    }


def _line(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode() + b"\n"


@contextlib.asynccontextmanager
async def _counting_writes(peer: Peer) -> AsyncIterator[list[int]]:
    """The size of every write the peer makes to its transport, in order."""
    transport: Any = peer._outbox.transport
    assert transport is not None
    sizes: list[int] = []
    real: Callable[[bytes], None] = transport.write

    def write(data: bytes) -> None:
        sizes.append(len(data))
        real(data)

    transport.write = write
    try:
        yield sizes
    finally:
        del transport.write


async def _notifications_then_answer(as_task: bool) -> None:
    service = Announcer(before=1, as_task=as_task)
    async with raw_connection(service) as (client, _):
        await client.send_json(_request(1, "g"))
        # The notification was written before the handler began to wait: the client's
        # read completes although nothing else is written until the gate opens.
        assert await client.receive() == {
            "jsonrpc": "2.0",
            "method": EVENT,
            "params": {"text": "g:0"},
        }
        assert service.started["g"].is_set() and not service.gates["g"].is_set()
        service.gates["g"].set()
        assert (await client.receive())["result"] == "g"


@run_async
async def test_a_message_written_in_the_read_callback_before_an_await_is_on_the_wire() -> None:
    await _notifications_then_answer(as_task=False)


@run_async
async def test_a_message_written_in_a_handler_task_before_an_await_is_on_the_wire() -> None:
    await _notifications_then_answer(as_task=True)


@run_async
async def test_a_request_to_the_other_side_from_a_handler_is_on_the_wire_while_it_waits() -> None:
    class Asker(SampleService):
        async def ping(self) -> str:
            await asyncio.sleep(0)
            answer: str = await current_peer().request("client:name", None, str)
            return f"pong to {answer}"

    async with raw_connection(Asker()) as (client, _):
        await client.send_json({"jsonrpc": "2.0", "id": 1, "method": "sample:ping:get"})
        call = await client.receive()
        assert call["method"] == "client:name"
        await client.send_json({"jsonrpc": "2.0", "id": call["id"], "result": "raw"})
        assert (await client.receive())["result"] == "pong to raw"


@run_async
async def test_what_one_step_writes_goes_out_in_one_write() -> None:
    service = Announcer(before=10, as_task=True)
    async with raw_connection(service) as (client, server):
        service.gates["g"].set()
        async with _counting_writes(server) as sizes:
            await client.send_json(_request(1, "g"))
            received = [await client.receive() for _ in range(11)]
        assert [message.get("params", {}).get("text") for message in received[:10]] == [
            f"g:{index}" for index in range(10)
        ]
        assert received[10]["result"] == "g"
        # The handler's first step (in the read's callback) is an `asyncio.sleep(0)`; its
        # second writes the ten notifications and the answer: one write.
        assert len(sizes) == 1


@run_async
async def test_a_step_that_writes_a_lot_is_written_in_bounded_pieces() -> None:
    count = 3 * FLUSH_SIZE // 60
    service = Announcer(before=count, as_task=True)
    async with raw_connection(service) as (client, server):
        service.gates["g"].set()
        async with _counting_writes(server) as sizes:
            await client.send_json(_request(1, "g"))
            for index in range(count):
                assert (await client.receive())["params"]["text"] == f"g:{index}"
            assert (await client.receive())["result"] == "g"
        assert len(sizes) >= 3
        # Written as soon as the held messages reach the bound, not at the end of the step.
        assert max(sizes) < FLUSH_SIZE + 100


# ------------------------------------------------------------------ property


async def _interleaved(plans: list[list[int]]) -> None:
    """Handlers each send notifications in several steps (an `asyncio.sleep(0)` between
    them) while the others run: every message arrives, each handler's in its order, each
    answer after its notifications."""

    class Stepper(SampleService):
        async def hold_read(self, *, gate_key: str) -> str:
            steps = plans[int(gate_key)]
            sent = 0
            for size in steps:
                for _ in range(size):
                    await _event(f"{gate_key}:{sent}")
                    sent += 1
                await asyncio.sleep(0)
            return gate_key

    async with raw_connection(Stepper()) as (client, _):
        await client.send(
            b"".join(_line(_request(index + 1, str(index))) for index in range(len(plans)))
        )
        seen: dict[str, int] = {str(index): 0 for index in range(len(plans))}
        answered: set[str] = set()
        while len(answered) < len(plans):
            message = await client.receive()
            if "method" in message:
                key, number = message["params"]["text"].split(":")
                assert key not in answered and int(number) == seen[key]
                seen[key] += 1
            else:
                key = message["result"]
                assert seen[key] == sum(plans[int(key)])
                answered.add(key)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(st.lists(st.integers(0, 5), max_size=4), min_size=1, max_size=5))
def test_interleaved_handlers_lose_and_reorder_nothing(plans: list[list[int]]) -> None:
    asyncio.run(within(_interleaved(plans), 20))


class _Transport(asyncio.WriteTransport):
    """Records writes; its buffer holds what the test says (a full pipe, a slow socket)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.buffered = 0
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def is_closing(self) -> bool:
        return self.closing


class _Writer:
    def __init__(self, transport: _Transport) -> None:
        self.transport = transport


_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("send"), st.integers(1, FLUSH_SIZE // 2)),
        st.tuples(st.sampled_from(["hold", "release", "fill", "empty", "close"]), st.just(0)),
    ),
    max_size=40,
)


@given(steps=_STEPS)
@settings(max_examples=200, deadline=None)
def test_send_writes_and_answers_as_write_then_flushed(steps: list[tuple[str, int]]) -> None:
    """`Outbox.send` is `write` then `flushed()` in one call: the same bytes in the same
    writes, and its answer the one `flushed()` gives, whatever holds, flushes and transport
    states come between (`flushed()` asks the transport once per hold and `send` keeps
    that answer: the two must not drift apart)."""
    from idlc_runtime.rpc.outbox import Outbox

    one, two = _Transport(), _Transport()
    sending, writing = Outbox(_Writer(one)), Outbox(_Writer(two))  # type: ignore[arg-type]
    holds = 0
    for index, (step, size) in enumerate(steps):
        if step == "send":
            message = bytes([48 + index % 10]) * size
            writing.write(message)
            assert sending.send(message) == writing.flushed()
        elif step == "hold":
            holds += 1
            sending.hold()
            writing.hold()
        elif step == "release" and holds:
            holds -= 1
            sending.release()
            writing.release()
        elif step in ("fill", "empty", "close"):
            for transport in (one, two):
                transport.buffered = 1 if step == "fill" else 0
                transport.closing = transport.closing or step == "close"
        assert one.writes == two.writes
