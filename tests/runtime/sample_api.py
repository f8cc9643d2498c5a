"""Hand-written in the shape idlc generates, so the runtime is tested against that shape.

Two interfaces: `Sample` (root object: every input shape, execution kind and failure the
tests need) and `Item` (served under keys, to test `$target`). Types, skeletons with
`__idlc_interface__`, generated-style `invoke` adapters and proxies — as codegen will emit.
"""

from __future__ import annotations

import abc
import typing
from typing import Annotated, ClassVar

import msgspec

from idlc_runtime import (
    Execution,
    InputShape,
    InterfaceSpec,
    MethodSpec,
    Peer,
    Unsupported,
)

AgentObjectRef = typing.NewType("AgentObjectRef", str)
Uint32 = Annotated[int, msgspec.Meta(ge=0, le=2**32 - 1)]


class SampleAddInput(msgspec.Struct, kw_only=True, omit_defaults=True):
    amount: Uint32
    note_text: str | None = msgspec.field(default=None, name="noteText")


class SampleEchoInput(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The one-field wrapper of a non-record input: `{"input": value}`."""

    input: list[str]


class SampleHoldInput(msgspec.Struct, kw_only=True, omit_defaults=True):
    gate_key: str = msgspec.field(name="gateKey")


class SampleDelayInput(msgspec.Struct, kw_only=True, omit_defaults=True):
    ticks: Uint32


class SampleChatterInput(msgspec.Struct, kw_only=True, omit_defaults=True):
    count: Uint32


class SampleEventInput(msgspec.Struct, kw_only=True, omit_defaults=True):
    text: str


class SampleFindAgentInput(msgspec.Struct, kw_only=True, omit_defaults=True):
    name: str


class ItemRenameInput(msgspec.Struct, kw_only=True, omit_defaults=True):
    name: str


class Sample:
    """Root test interface."""

    __idlc_interface__: ClassVar[InterfaceSpec]

    @abc.abstractmethod
    async def add(self, *, amount: int, note_text: str | None = None) -> int: ...

    async def echo(self, input: list[str]) -> list[str]:
        raise Unsupported("sample:echo:call")

    async def ping(self) -> str:
        raise Unsupported("sample:ping:get")

    async def hold_write(self, *, gate_key: str) -> str:
        raise Unsupported("sample:hold-write:call")

    async def hold_read(self, *, gate_key: str) -> str:
        raise Unsupported("sample:hold-read:call")

    async def delay(self, *, ticks: int) -> int:
        raise Unsupported("sample:delay:call")

    async def chatter(self, *, count: int) -> int:
        raise Unsupported("sample:chatter:call")

    async def fail(self) -> None:
        raise Unsupported("sample:fail:call")

    async def refuse(self) -> None:
        raise Unsupported("sample:refuse:call")

    async def agents(self) -> frozenset[AgentObjectRef]:
        raise Unsupported("sample:agents:resolve")

    async def find_agent(self, *, name: str) -> AgentObjectRef | None:
        raise Unsupported("sample:find-agent:call")

    async def event(self, *, text: str) -> None:
        pass


class Item:
    """A keyed test object."""

    __idlc_interface__: ClassVar[InterfaceSpec]

    @abc.abstractmethod
    async def name(self) -> str: ...

    async def rename(self, *, name: str) -> None:
        raise Unsupported("item:rename:call")


async def _sample_add(implementation: Sample, params: SampleAddInput) -> int:
    return await implementation.add(amount=params.amount, note_text=params.note_text)


async def _sample_echo(implementation: Sample, params: SampleEchoInput) -> list[str]:
    return await implementation.echo(params.input)


async def _sample_ping(implementation: Sample, params: None) -> str:
    return await implementation.ping()


async def _sample_hold_write(implementation: Sample, params: SampleHoldInput) -> str:
    return await implementation.hold_write(gate_key=params.gate_key)


async def _sample_hold_read(implementation: Sample, params: SampleHoldInput) -> str:
    return await implementation.hold_read(gate_key=params.gate_key)


async def _sample_delay(implementation: Sample, params: SampleDelayInput) -> int:
    return await implementation.delay(ticks=params.ticks)


async def _sample_chatter(implementation: Sample, params: SampleChatterInput) -> int:
    return await implementation.chatter(count=params.count)


async def _sample_fail(implementation: Sample, params: None) -> None:
    return await implementation.fail()


async def _sample_refuse(implementation: Sample, params: None) -> None:
    return await implementation.refuse()


async def _sample_agents(implementation: Sample, params: None) -> frozenset[AgentObjectRef]:
    return await implementation.agents()


async def _sample_find_agent(
    implementation: Sample, params: SampleFindAgentInput
) -> AgentObjectRef | None:
    return await implementation.find_agent(name=params.name)


async def _sample_event(implementation: Sample, params: SampleEventInput) -> None:
    return await implementation.event(text=params.text)


async def _item_name(implementation: Item, params: None) -> str:
    return await implementation.name()


async def _item_rename(implementation: Item, params: ItemRenameInput) -> None:
    return await implementation.rename(name=params.name)


def _call(
    wire: str,
    member: str,
    shape: InputShape,
    params_type: object,
    result_type: object,
    invoke: typing.Any,
    execution: Execution | None = Execution.SNAPSHOT,
    *,
    notify: bool = False,
    required: bool = False,
) -> MethodSpec:
    return MethodSpec(
        wire=wire,
        member=member,
        shape=shape,
        params_type=params_type,
        result_type=result_type,
        invoke=invoke,
        execution=execution,
        notify=notify,
        required=required,
    )


Sample.__idlc_interface__ = InterfaceSpec(
    name="Sample",
    id="sample",
    revision="sample@1",
    methods=(
        [
            _call(
                "sample:add:call",
                "add",
                InputShape.RECORD,
                SampleAddInput,
                int,
                _sample_add,
                Execution.TRANSACTION,
                required=True,
            ),
            _call(
                "sample:echo:call",
                "echo",
                InputShape.WRAPPED,
                SampleEchoInput,
                list[str],
                _sample_echo,
            ),
            _call("sample:ping:get", "ping", InputShape.UNIT, None, str, _sample_ping),
            _call(
                "sample:hold-write:call",
                "hold_write",
                InputShape.RECORD,
                SampleHoldInput,
                str,
                _sample_hold_write,
                Execution.TRANSACTION,
            ),
            _call(
                "sample:hold-read:call",
                "hold_read",
                InputShape.RECORD,
                SampleHoldInput,
                str,
                _sample_hold_read,
                Execution.SNAPSHOT,
            ),
            _call(
                "sample:delay:call",
                "delay",
                InputShape.RECORD,
                SampleDelayInput,
                int,
                _sample_delay,
            ),
            _call(
                "sample:chatter:call",
                "chatter",
                InputShape.RECORD,
                SampleChatterInput,
                int,
                _sample_chatter,
            ),
            _call("sample:fail:call", "fail", InputShape.UNIT, None, None, _sample_fail),
            _call("sample:refuse:call", "refuse", InputShape.UNIT, None, None, _sample_refuse),
            _call(
                "sample:agents:resolve",
                "agents",
                InputShape.UNIT,
                None,
                frozenset[AgentObjectRef],
                _sample_agents,
            ),
            _call(
                "sample:find-agent:call",
                "find_agent",
                InputShape.RECORD,
                SampleFindAgentInput,
                typing.Optional[AgentObjectRef],
                _sample_find_agent,
            ),
            _call(
                "sample:event:notify",
                "event",
                InputShape.RECORD,
                SampleEventInput,
                None,
                _sample_event,
                None,
                notify=True,
            ),
        ]
    ),
    skeleton=Sample,
)

Item.__idlc_interface__ = InterfaceSpec(
    name="Item",
    id="item",
    revision="item@1",
    methods=(
        [
            _call("item:name:get", "name", InputShape.UNIT, None, str, _item_name, required=True),
            _call(
                "item:rename:call",
                "rename",
                InputShape.RECORD,
                ItemRenameInput,
                None,
                _item_rename,
                Execution.TRANSACTION,
            ),
        ]
    ),
    skeleton=Item,
)


class SampleProxy:
    def __init__(self, peer: Peer, target: str | None = None) -> None:
        self._peer = peer
        self._target = target

    async def add(self, *, amount: int, note_text: str | None = None) -> int:
        result: int = await self._peer.request(
            "sample:add:call",
            SampleAddInput(amount=amount, note_text=note_text),
            int,
            target=self._target,
        )
        return result

    async def echo(self, input: list[str]) -> list[str]:
        result: list[str] = await self._peer.request(
            "sample:echo:call", SampleEchoInput(input=input), list[str], target=self._target
        )
        return result

    async def ping(self) -> str:
        result: str = await self._peer.request("sample:ping:get", None, str, target=self._target)
        return result

    async def hold_write(self, *, gate_key: str) -> str:
        result: str = await self._peer.request(
            "sample:hold-write:call",
            SampleHoldInput(gate_key=gate_key),
            str,
            target=self._target,
        )
        return result

    async def hold_read(self, *, gate_key: str) -> str:
        result: str = await self._peer.request(
            "sample:hold-read:call",
            SampleHoldInput(gate_key=gate_key),
            str,
            target=self._target,
        )
        return result

    async def delay(self, *, ticks: int) -> int:
        result: int = await self._peer.request(
            "sample:delay:call", SampleDelayInput(ticks=ticks), int, target=self._target
        )
        return result

    async def chatter(self, *, count: int) -> int:
        result: int = await self._peer.request(
            "sample:chatter:call", SampleChatterInput(count=count), int, target=self._target
        )
        return result

    async def fail(self) -> None:
        await self._peer.request("sample:fail:call", None, None, target=self._target)

    async def refuse(self) -> None:
        await self._peer.request("sample:refuse:call", None, None, target=self._target)

    async def agents(self) -> frozenset[AgentObjectRef]:
        result: frozenset[AgentObjectRef] = await self._peer.request(
            "sample:agents:resolve", None, frozenset[AgentObjectRef], target=self._target
        )
        return result

    async def find_agent(self, *, name: str) -> AgentObjectRef | None:
        result: AgentObjectRef | None = await self._peer.request(
            "sample:find-agent:call",
            SampleFindAgentInput(name=name),
            typing.Optional[AgentObjectRef],
            target=self._target,
        )
        return result

    async def event(self, *, text: str) -> None:
        await self._peer.notify(
            "sample:event:notify", SampleEventInput(text=text), target=self._target
        )


class ItemProxy:
    def __init__(self, peer: Peer, target: str | None = None) -> None:
        self._peer = peer
        self._target = target

    async def name(self) -> str:
        result: str = await self._peer.request("item:name:get", None, str, target=self._target)
        return result

    async def rename(self, *, name: str) -> None:
        await self._peer.request(
            "item:rename:call", ItemRenameInput(name=name), None, target=self._target
        )
