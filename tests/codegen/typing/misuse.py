"""Misuse mypy must reject: each `# E:` names (part of) the error expected on that line."""

from __future__ import annotations

from gen_seeds import (
    AgentDirectory,
    AgentDirectoryProxy,
    AgentObjectRef,
    AgentRequestObjectRef,
    AgentThreadObjectRef,
    ItemData,
)


def wrong_reference(thread: AgentThreadObjectRef) -> AgentRequestObjectRef:
    return thread  # E: Incompatible return value type


def plain_string_is_not_a_reference() -> AgentObjectRef:
    return "agent"  # E: Incompatible return value type


class WrongReturn(AgentDirectory):
    async def create_agent(  # E: Return type "Coroutine[Any, Any, str]"
        self, *, name: str, description: str, instructions: str, settings: str
    ) -> str:
        return name


async def missing_keyword(proxy: AgentDirectoryProxy) -> None:
    await proxy.create_agent(name="n", description="d", instructions="i")  # E: Missing named argument "settings"


async def wrong_argument_type(proxy: AgentDirectoryProxy) -> None:
    await proxy.notification_sent(AgentThreadObjectRef("t"))  # E: incompatible type "AgentThreadObjectRef"


async def positional_for_keyword_only(proxy: AgentDirectoryProxy) -> None:
    await proxy.advertise("p", "a")  # E: Too many positional arguments


def record_field_types() -> ItemData:
    return ItemData(key=1)  # E: Argument "key" to "ItemData" has incompatible type "int"
