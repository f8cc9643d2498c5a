"""ACP's wire over the runtime's defaults (`idlc_acp.wire`): no batches and no keyed objects.
A `$target` member is ACP data like any other — a request holding one reaches its handler,
and an extension method's params arrive whole — where the runtime's own protocol would route
it (docs/wire.md §5) and refuse an unknown key with -32900."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from idlc_acp import (
    Agent,
    Client,
    InitializeRequest,
    InitializeResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    StopReason,
    agent_options,
    client_options,
)
from idlc_acp.conductor import _options as conductor_options
from idlc_acp.proxy_chain import proxy_options
from idlc_runtime import PeerOptions

from .pair import connected


class ExtensionAgent(Agent):
    def __init__(self) -> None:
        self.cwds: list[str] = []

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=1)

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        self.cwds.append(input.cwd)
        return NewSessionResponse(session_id="s")

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        return PromptResponse(stop_reason=StopReason.END_TURN)

    async def ext_method(self, method: str, params: Any) -> Any:
        return {"method": method, "params": params}


class QuietClient(Client):
    async def update(self, input: SessionNotification) -> None:
        pass

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        raise AssertionError("not asked")


def test_a_target_member_is_acp_data_not_a_route() -> None:
    agent = ExtensionAgent()

    async def main() -> None:
        async with connected(agent, QuietClient()) as connection:
            await connection.initialize(InitializeRequest(protocol_version=1))
            peer = connection.peer
            for target in ("ghost", 3, None):
                params = {"cwd": "/", "mcpServers": [], "$target": target}
                answer = await peer.request("session/new", params, Any)
                assert answer == {"sessionId": "s"}
            params = {"$target": "elsewhere", "n": [1, 2]}
            answer = await peer.request("_vendor/echo", params, Any)
            assert answer == {"method": "_vendor/echo", "params": params}

    asyncio.run(asyncio.wait_for(main(), 30))
    assert agent.cwds == ["/", "/", "/"]


async def _no_fallback(method: str, params: Any, notify: bool) -> None:
    return None


@pytest.mark.parametrize(
    "options",
    [
        agent_options(ExtensionAgent()),
        client_options(QuietClient())[0],
        conductor_options(PeerOptions(), _no_fallback),
        proxy_options(),
    ],
    ids=["agent", "client", "conductor", "proxy"],
)
def test_every_acp_peer_is_on_acps_wire(options: PeerOptions) -> None:
    assert not options.accept_batches and not options.route_targets
