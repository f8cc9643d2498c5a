"""A typed implementation of both seed interfaces and a typed caller: mypy --strict must pass."""

from __future__ import annotations

from gen_seeds import (
    AgentAdmission,
    AgentDirectory,
    AgentDirectoryProxy,
    AgentObjectRef,
    AgentRequest,
    AgentRequestClaimOutput,
    AgentRequestObjectRef,
    AgentSubmission,
    AgentThreadObjectRef,
    DirectoryData,
)


class Directory(AgentDirectory):
    async def data(self) -> DirectoryData:
        return DirectoryData(
            sequence=1,
            pending=0,
            ordinary_pending=0,
            notification_pending=0,
            profiles="",
            availability="",
        )

    async def agents(self) -> frozenset[AgentObjectRef]:
        return frozenset({AgentObjectRef("a")})

    async def default_agent(self) -> AgentObjectRef | None:
        return None

    async def create_agent(
        self, *, name: str, description: str, instructions: str, settings: str
    ) -> AgentObjectRef:
        return AgentObjectRef(name)

    async def admit(
        self,
        *,
        agent: AgentObjectRef,
        thread: AgentThreadObjectRef | None = None,
        submission: AgentSubmission,
        optional_work: bool,
    ) -> AgentAdmission:
        return AgentAdmission(accepted=True, thread=thread)

    async def notification_sent(self, input: AgentRequestObjectRef) -> None:
        return None


class Request(AgentRequest):
    async def spawned(self) -> int:
        return 3

    async def claim(
        self, *, attempt: str, expected_generation: int, started_at: str, recover: bool
    ) -> AgentRequestClaimOutput:
        return AgentRequestClaimOutput(claimed=True, generation=expected_generation + 1)


async def caller(proxy: AgentDirectoryProxy) -> AgentObjectRef:
    agents: frozenset[AgentObjectRef] = await proxy.agents()
    created = await proxy.create_agent(
        name="n", description="d", instructions="i", settings="s"
    )
    await proxy.notification_sent(AgentRequestObjectRef("r"))
    return created if created not in agents else next(iter(agents))
