"""An agent written with idlc_acp that opted in to the unstable surface: it serves
`session/fork` (and leaves the rest of the unstable methods unimplemented, so they answer
-32601). Driven by js/fork_client.mjs in tests/interop/test_unstable.py."""

from __future__ import annotations

import itertools

from idlc_acp import run_agent
from idlc_acp.unstable import (
    Agent,
    ForkSessionRequest,
    ForkSessionResponse,
    InitializeRequest,
    InitializeResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    StopReason,
)


class ForkingAgent(Agent):
    def __init__(self) -> None:
        self.numbers = itertools.count(1)
        self.sessions: dict[str, str] = {}  # session id → its cwd

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=1)

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        session_id = f"s-{next(self.numbers)}"
        self.sessions[session_id] = input.cwd
        return NewSessionResponse(session_id=session_id)

    async def fork_session(self, input: ForkSessionRequest) -> ForkSessionResponse:
        session_id = f"fork-{next(self.numbers)}-of-{input.session_id}"
        self.sessions[session_id] = input.cwd
        return ForkSessionResponse(session_id=session_id)

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        return PromptResponse(stop_reason=StopReason.END_TURN)


if __name__ == "__main__":
    run_agent(ForkingAgent())
