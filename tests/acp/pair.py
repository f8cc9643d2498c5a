"""An ACP agent and client connected in this process over two pipes, each with the options
`idlc_acp` gives its side (the same stack as over a subprocess's stdio)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

from idlc_acp import AgentConnection, agent_options, client_options, protocol
from idlc_runtime import connect_fds


@contextlib.asynccontextmanager
async def connected(
    agent: protocol.Agent, client: protocol.Client
) -> AsyncIterator[AgentConnection]:
    agent_read, client_write = os.pipe()
    client_read, agent_write = os.pipe()
    options, controls = client_options(client)
    async with connect_fds(agent_read, agent_write, agent, options=agent_options(agent)):
        async with connect_fds(client_read, client_write, client, options=options) as peer:
            yield AgentConnection(peer, controls)
