"""An ACP agent and client connected in this process over two pipes, each with the options
`idlc_acp` gives its side (the same stack as over a subprocess's stdio)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

from idlc_acp import AgentConnection, agent_options, client_options, protocol
from idlc_acp.v2_agent import agent_options_v2
from idlc_acp.wire import acp_options
from idlc_runtime import Peer, PeerOptions, connect_fds


@contextlib.asynccontextmanager
async def connected(
    agent: protocol.Agent, client: protocol.Client, agent_side: PeerOptions | None = None
) -> AsyncIterator[AgentConnection]:
    """`agent_side` replaces the agent's `agent_options(agent)`: one set of options shared
    by several connections, as `serve_tcp` shares them."""
    agent_read, client_write = os.pipe()
    client_read, agent_write = os.pipe()
    options, controls = client_options(client)
    served = agent_side if agent_side is not None else agent_options(agent)
    async with connect_fds(agent_read, agent_write, agent, options=served):
        async with connect_fds(client_read, client_write, client, options=options) as peer:
            yield AgentConnection(peer, controls)


@contextlib.asynccontextmanager
async def connected_v2(agent: object, client: object) -> AsyncIterator[Peer]:
    """A v2 agent (served with `agent_options_v2`) and a v2 client connected the same way;
    the client's peer, not yet initialized."""
    agent_read, client_write = os.pipe()
    client_read, agent_write = os.pipe()
    async with connect_fds(agent_read, agent_write, agent, options=agent_options_v2(agent)):
        async with connect_fds(client_read, client_write, client, options=acp_options()) as peer:
            yield peer
