"""What serves one remote connection: a v1 agent, or v1 and v2 routed by `initialize`.

A server made with a v1 agent factory alone serves each connection as it always has: the
agent's `Peer`, with `agent_options`. Given a v2 agent factory too (or alone), each
connection gets a `ProtocolRouter` of the agents made for it, and its first valid
`initialize` chooses the version, by the router's rules exactly as on stdio (docs/acp.md,
"Serving v1 and v2"). Both agents are made when the connection opens, before any message
of it is read: a factory that fails refuses the connection (500), as a v1 factory always
has, rather than failing its `initialize`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from idlc_acp.agent import agent_options
from idlc_acp.router import ProtocolRouter
from idlc_runtime import Peer, PeerOptions
from idlc_runtime.transports.contract import ByteWriter, LineSource

AgentFactory = Callable[[], Any]


class Served(Protocol):
    """What serves a connection (a `Peer`, or a router's `RoutedConnection`)."""

    async def close(self) -> None: ...

    async def wait_closed(self) -> Any: ...


class AgentFactories:
    """The factories of a server: `v1` (an `idlc_acp.Agent`), `v2` (an `AgentV2`), or
    both."""

    def __init__(self, v1: AgentFactory | None, v2: AgentFactory | None = None) -> None:
        if v1 is None and v2 is None:
            raise ValueError("a server needs a v1 agent factory, a v2 agent factory or both")
        self.v1 = v1
        self.v2 = v2

    def make(self, options: PeerOptions | None) -> ConnectionAgents:
        """The agents of a new connection (raises what a factory raises)."""
        if self.v2 is None:
            assert self.v1 is not None
            return ConnectionAgents(self.v1(), None, options)
        v1 = self.v1() if self.v1 is not None else None
        return ConnectionAgents(None, ProtocolRouter(v1, v2=self.v2(), options=options), options)


class ConnectionAgents:
    """The agents made for one connection, not serving yet."""

    def __init__(
        self, agent: Any, router: ProtocolRouter | None, options: PeerOptions | None
    ) -> None:
        self._agent = agent
        self._router = router
        self._options = options

    def start(self, source: LineSource, writer: ByteWriter) -> Served:
        """Serve the connection reading `source` and writing `writer` (owning both)."""
        if self._router is not None:
            return self._router.connect(source, writer)
        peer = Peer(source, writer, self._agent, options=agent_options(self._agent, self._options))
        peer.start()
        return peer
