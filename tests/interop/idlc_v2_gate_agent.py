"""An idlc ACP v2 (draft) agent that only initializes and opens sessions, for comparing
initialize gates over raw lines with js/v2_gate_agent.mjs (the TypeScript SDK's):

    python tests/interop/idlc_v2_gate_agent.py [--direct]

Served through `serve_agent(None, v2=...)` (the router, v2 only), or with --direct on its
own connection (`agent_options_v2`, no router). An initialize whose params carry
`_meta: {"hold": true}` is answered only once the process gets SIGUSR2, so a test can send a
second initialize while the first is in progress. The answer (the same as the TypeScript
one's) has in `_meta.protocolVersion` the version `initialize` was asked for.
"""

from __future__ import annotations

import asyncio
import signal
import sys

from idlc_acp import v2
from idlc_acp.agent import serve_agent
from idlc_acp.v2_agent import AgentV2, agent_options_v2
from idlc_runtime import serve_stdio


class GateAgent(AgentV2):
    def __init__(self) -> None:
        self.released = asyncio.Event()

    async def initialize(self, input: v2.InitializeRequest) -> v2.InitializeResponse:
        if input.meta is not None and input.meta.get("hold") is True:
            await self.released.wait()
            self.released.clear()
        return v2.InitializeResponse(
            protocol_version=2,
            info=v2.Implementation(name="gate-agent", version="1"),
            meta={"protocolVersion": input.protocol_version},
        )

    async def new_session(self, input: v2.NewSessionRequest) -> v2.NewSessionResponse:
        return v2.NewSessionResponse(session_id="s")


async def main(direct: bool) -> None:
    agent = GateAgent()
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR2, agent.released.set)
    if direct:
        await serve_stdio(agent, options=agent_options_v2(agent))
    else:
        await serve_agent(None, v2=agent)


if __name__ == "__main__":
    asyncio.run(main("--direct" in sys.argv[1:]))
