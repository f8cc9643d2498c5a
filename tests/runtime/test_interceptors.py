"""Interceptors see each call with its execution kind; SerializeTransactions orders writes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from idlc_runtime import (
    CallInfo,
    Execution,
    PeerOptions,
    Proceed,
    RpcError,
    SerializeTransactions,
    memory_pair,
)

from .sample_api import ItemProxy, Sample, SampleProxy
from .support import NamedItem, SampleService, run_async, within


@run_async
async def test_interceptors_see_method_member_target_execution_and_notify() -> None:
    seen: list[tuple[str, str, str | None, Execution | None, bool, object]] = []
    order: list[str] = []

    async def record(call: CallInfo, proceed: Proceed) -> Any:
        seen.append(
            (call.method, call.member, call.target, call.execution, call.notify, call.params)
        )
        order.append("outer in")
        result = await proceed()
        order.append("outer out")
        return result

    async def inner(call: CallInfo, proceed: Proceed) -> Any:
        order.append("inner")
        return await proceed()

    service = SampleService()
    options = PeerOptions(interceptors=[record, inner])
    async with memory_pair(None, service, options=options) as (client, server):
        server.register("it", NamedItem("x"))
        await within(SampleProxy(client).add(amount=1))
        await within(SampleProxy(client).ping())
        await within(ItemProxy(client, "it").name())
        await SampleProxy(client).event(text="e")
        await service.wait_for_events(1)
    methods = [(m, member, t, e, n) for m, member, t, e, n, _ in seen]
    assert methods[:3] == [
        ("sample:add:call", "add", None, Execution.TRANSACTION, False),
        ("sample:ping:get", "ping", None, Execution.SNAPSHOT, False),
        ("item:name:get", "name", "it", Execution.SNAPSHOT, False),
    ]
    assert methods[3] == ("sample:event:notify", "event", None, None, True)
    assert seen[0][5].amount == 1 and seen[1][5] is None
    assert order[:3] == ["outer in", "inner", "outer out"]


@run_async
async def test_an_interceptor_can_refuse_or_change_a_call() -> None:
    async def guard(call: CallInfo, proceed: Proceed) -> Any:
        if call.execution is Execution.TRANSACTION:
            raise RpcError(1001, "read-only connection")
        result = await proceed()
        return result.upper() if isinstance(result, str) else result

    service = SampleService()
    async with memory_pair(None, service, options=PeerOptions(interceptors=[guard])) as (client, _):
        with pytest.raises(RpcError) as refused:
            await within(SampleProxy(client).add(amount=1))
        assert refused.value.code == 1001 and service.total == 0
        assert await within(SampleProxy(client).ping()) == "PONG"


@run_async
async def test_transactions_are_serialized_per_target_while_snapshots_overlap() -> None:
    service = SampleService()
    serializer = SerializeTransactions()
    async with memory_pair(None, service, options=PeerOptions(interceptors=[serializer])) as (
        client,
        _server,
    ):
        proxy = SampleProxy(client)
        first = asyncio.create_task(proxy.hold_write(gate_key="w1"))
        await within(service.started["w1"].wait())
        second = asyncio.create_task(proxy.hold_write(gate_key="w2"))
        # Snapshots run while the first transaction holds the target...
        reads = [asyncio.create_task(proxy.hold_read(gate_key=f"r{i}")) for i in range(2)]
        for i in range(2):
            await within(service.started[f"r{i}"].wait())
        # ...and a ping sent after the second transaction is answered, so the second
        # transaction has certainly arrived, yet it has not started.
        assert await within(proxy.ping()) == "pong"
        assert not service.started["w2"].is_set()
        for i in range(2):
            service.gates[f"r{i}"].set()
        assert await within(asyncio.gather(*reads)) == ["r0", "r1"]
        assert not service.started["w2"].is_set()
        service.gates["w1"].set()
        await within(service.started["w2"].wait())
        service.gates["w2"].set()
        assert await within(asyncio.gather(first, second)) == ["w1", "w2"]
    journal = service.journal
    assert journal.index("end w1") < journal.index("start w2")
    assert journal.index("start r0") < journal.index("end w1")
    # Both snapshots were inside their handlers at the same time.
    assert max(journal.index("start r0"), journal.index("start r1")) < min(
        journal.index("end r0"), journal.index("end r1")
    )
    assert serializer._locks == {}


@run_async
async def test_transactions_on_different_targets_run_concurrently() -> None:
    class SlowItem(NamedItem):
        def __init__(self, name: str, entered: asyncio.Event, release: asyncio.Event) -> None:
            super().__init__(name)
            self.entered, self.release = entered, release

        async def rename(self, *, name: str) -> None:
            self.entered.set()
            await self.release.wait()
            await super().rename(name=name)

    release = asyncio.Event()
    entered = [asyncio.Event(), asyncio.Event()]
    options = PeerOptions(interceptors=[SerializeTransactions()])
    async with memory_pair(None, SampleService(), options=options) as (client, server):
        server.register("a", SlowItem("a", entered[0], release))
        server.register("b", SlowItem("b", entered[1], release))
        renames = [
            asyncio.create_task(ItemProxy(client, key).rename(name=key + "!")) for key in "ab"
        ]
        # Both transactions are inside their handler at once: one per target.
        await within(asyncio.gather(*(event.wait() for event in entered)))
        release.set()
        await within(asyncio.gather(*renames))
        assert await within(ItemProxy(client, "b").name()) == "b!"


class _EventLeftToSkeleton(SampleService):
    """A service that leaves the `event` notification to the skeleton's default."""

    event = Sample.event  # type: ignore[assignment]


class _NamesEvent:
    """An interceptor wrapping the `event` notification alone."""

    methods = frozenset({"sample:event:notify"})

    def __init__(self) -> None:
        self.seen: list[object] = []
        self.done = asyncio.Event()

    async def __call__(self, call: CallInfo, proceed: Proceed) -> Any:
        self.seen.append(call.params)
        try:
            return await proceed()  # the skeleton's default: nothing
        finally:
            self.done.set()


@run_async
async def test_a_notification_left_to_the_skeleton_reaches_the_interceptors_naming_it() -> None:
    # idlc_acp's TurnControl ends a turn on `session/cancel` whether or not the agent
    # declares `cancel`: it must see the notification the agent leaves to the skeleton.
    interceptor = _NamesEvent()
    service = _EventLeftToSkeleton()
    options = PeerOptions(interceptors=[interceptor])
    async with memory_pair(None, service, options=options) as (client, _):
        await SampleProxy(client).event(text="seen")
        await within(interceptor.done.wait())
        assert await within(SampleProxy(client).ping()) == "pong"
    assert [params.text for params in interceptor.seen] == ["seen"]  # type: ignore[attr-defined]
    assert service.events == []  # the skeleton's default ran, not SampleService's


@run_async
async def test_a_notification_left_to_the_skeleton_nobody_names_is_dropped() -> None:
    # Even with params that could never decode: nothing runs, and the connection goes on.
    others = _NamesEvent()
    others.methods = frozenset({"sample:add:call"})  # type: ignore[misc]
    service = _EventLeftToSkeleton()
    options = PeerOptions(interceptors=[others])
    async with memory_pair(None, service, options=options) as (client, _):
        await client.notify("sample:event:notify", {"text": 12345})
        assert await within(SampleProxy(client).ping()) == "pong"
    assert others.seen == [] and service.events == []
