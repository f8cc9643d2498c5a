"""Typed calls through proxies and skeletons, both directions, over an in-memory pair."""

from __future__ import annotations

import asyncio
import random

import pytest

from idlc_runtime import (
    ErrorCode,
    PeerOptions,
    ProtocolError,
    RpcError,
    Unsupported,
    current_peer,
    implemented_members,
    memory_pair,
)

from .sample_api import AgentObjectRef, ItemProxy, SampleProxy
from .support import MinimalSample, NamedItem, SampleService, run_async, within


@run_async
async def test_every_input_shape_and_result_type_round_trips() -> None:
    service = SampleService()
    async with memory_pair(None, service) as (client, _server):
        proxy = SampleProxy(client)
        assert await within(proxy.add(amount=2)) == 2
        assert await within(proxy.add(amount=3, note_text="hello")) == 5
        assert service.journal == ["hello"]
        assert await within(proxy.echo(["a", "b", "c"])) == ["c", "b", "a"]
        assert await within(proxy.ping()) == "pong"
        agents = await within(proxy.agents())
        assert agents == frozenset({"a", "b"}) and isinstance(agents, frozenset)
        assert await within(proxy.find_agent(name="x")) == AgentObjectRef("x")
        assert await within(proxy.find_agent(name="nobody")) is None


@run_async
async def test_both_sides_serve_and_call_at_once() -> None:
    left, right = SampleService(), SampleService()
    async with memory_pair(left, right) as (a, b):
        assert await within(SampleProxy(a).add(amount=1)) == 1
        assert await within(SampleProxy(b).add(amount=7)) == 7
        assert (left.total, right.total) == (7, 1)


@run_async
async def test_notifications_travel_both_ways_in_order() -> None:
    caller, callee = SampleService(), SampleService()
    async with memory_pair(caller, callee) as (a, _b):
        for index in range(20):
            await SampleProxy(a).event(text=str(index))
        assert await callee.wait_for_events(20) == [str(i) for i in range(20)]
        # The callee answers by notifying its caller, found through current_peer().
        assert await within(SampleProxy(a).chatter(count=10)) == 10
        assert await caller.wait_for_events(10) == [str(i) for i in range(10)]


@run_async
async def test_keyed_objects_are_addressed_with_target() -> None:
    async with memory_pair(None, SampleService()) as (client, server):
        server.register("first", NamedItem("one"))
        server.register("second", NamedItem("two"))
        assert await within(ItemProxy(client, "first").name()) == "one"
        await within(ItemProxy(client, "second").rename(name="deux"))
        assert await within(ItemProxy(client, "second").name()) == "deux"
        # The root still answers calls without a target.
        assert await within(SampleProxy(client).ping()) == "pong"
        with pytest.raises(ValueError):
            server.register("first", NamedItem("again"))
        server.unregister("first")
        with pytest.raises(RpcError) as refused:
            await within(ItemProxy(client, "first").name())
        assert refused.value.code == ErrorCode.UNKNOWN_TARGET
        assert refused.value.data == {"target": "first"}
        # The keyed object has its own interface: the root's members are not there.
        with pytest.raises(Unsupported):
            await within(SampleProxy(client, "second").ping())


@run_async
async def test_unimplemented_members_answer_unsupported() -> None:
    async with memory_pair(None, MinimalSample()) as (client, server):
        proxy = SampleProxy(client)
        assert await within(proxy.add(amount=4)) == 4
        with pytest.raises(Unsupported) as refused:
            await within(proxy.ping())
        assert refused.value.code == -32601
        assert refused.value.method == "sample:ping:get"
        assert "sample:ping:get" in refused.value.message
        # A notify member without a body ignores the message; the connection goes on.
        await proxy.event(text="ignored")
        assert await within(proxy.add(amount=1)) == 1
    assert implemented_members(MinimalSample()) == {"sample:add:call"}
    assert "sample:ping:get" in implemented_members(SampleService())


@run_async
async def test_application_errors_keep_code_message_and_data() -> None:
    async with memory_pair(None, SampleService()) as (client, _server):
        with pytest.raises(RpcError) as refused:
            await within(SampleProxy(client).refuse())
        assert (refused.value.code, refused.value.message) == (4242, "refused")
        assert refused.value.data == {"why": "because"}


@run_async
async def test_handler_exceptions_stay_private_unless_debugging() -> None:
    async with memory_pair(None, SampleService()) as (client, _server):
        with pytest.raises(RpcError) as failed:
            await within(SampleProxy(client).fail())
        assert failed.value.code == ErrorCode.INTERNAL_ERROR
        assert "secret" not in failed.value.message and failed.value.data is None
    debug = PeerOptions(debug=True)
    async with memory_pair(None, SampleService(), options=debug) as (client, _server):
        with pytest.raises(RpcError) as failed:
            await within(SampleProxy(client).fail())
        assert "ValueError: secret detail" in failed.value.message
        assert isinstance(failed.value.data, dict)
        assert "Traceback" in failed.value.data["traceback"]


@run_async
async def test_a_result_of_the_wrong_type_is_a_protocol_error() -> None:
    async with memory_pair(None, SampleService()) as (client, _server):
        with pytest.raises(ProtocolError) as wrong:
            await within(client.request("sample:ping:get", None, int))
        assert wrong.value.data == {"path": "$", "reason": "Expected `int`, got `str`"}
        assert await within(SampleProxy(client).ping()) == "pong"


@run_async
async def test_a_thousand_concurrent_requests_are_each_answered_once() -> None:
    service = SampleService()
    async with memory_pair(None, service) as (client, _server):
        proxy = SampleProxy(client)
        ticks = list(range(1000))
        random.Random(4).shuffle(ticks)
        results = await within(asyncio.gather(*(proxy.delay(ticks=t % 50) for t in ticks)))
        assert results == [t % 50 for t in ticks]
        # Handlers finished in another order than they were sent: answers came out of order.
        assert service.completed != [t % 50 for t in ticks]
        assert sorted(service.completed) == sorted(t % 50 for t in ticks)
        assert len(service.completed) == 1000


def test_current_peer_outside_a_handler_is_an_error() -> None:
    with pytest.raises(RuntimeError):
        current_peer()


@run_async
async def test_notifications_are_handled_in_order_and_keep_context_changes_to_themselves() -> None:
    import contextvars

    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")
    seen: list[str] = []

    class Marking(SampleService):
        async def event(self, *, text: str) -> None:
            seen.append(marker.get())
            marker.set(text)
            if text.startswith("wait"):
                await asyncio.sleep(0)
                seen.append(f"{text} still {marker.get()}")
            await super().event(text=text)

    service = Marking()
    async with memory_pair(None, service) as (client, _server):
        for text in ("one", "wait-two", "three"):
            await SampleProxy(client).event(text=text)
        # Ordered (docs/wire.md §13): "three" waits for "wait-two", which awaits.
        assert await service.wait_for_events(3) == ["one", "wait-two", "three"]
    # Every handler started from a clean context, and a waiting one kept its own value.
    assert seen == ["unset", "unset", "wait-two still wait-two", "unset"]
