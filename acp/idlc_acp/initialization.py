"""An agent's connection before and after `initialize`.

Until `initialize` has been answered successfully, every other request is refused with
-32600 and the message the official TypeScript SDK sends ("ACP connection must be
initialized before 'session/new'"); notifications pass, as there. `initialize` may come
again at any time. The official Python SDK (0.12.1) does not check this at all; the
TypeScript SDK's answer is the one a client can rely on, so it is the one given here.

The gate also remembers, per connection, the capabilities the client offered, which a
`Session` uses to refuse calls the client did not offer before they reach the wire.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable
from typing import Any

from idlc_acp.errors import InvalidRequest
from idlc_acp.protocol import ClientCapabilities, InitializeRequest
from idlc_runtime import CallInfo, Peer, Proceed, current_peer


class InitializeGate:
    """Interceptor: refuses requests before `initialize`; records the client's capabilities.

    One gate may serve many connections (`serve_tcp` shares its options): the state is kept
    per connection and goes away with it.
    """

    def __init__(self) -> None:
        self._capabilities: weakref.WeakKeyDictionary[Peer, ClientCapabilities] = (
            weakref.WeakKeyDictionary()
        )

    def client_capabilities(self, peer: Peer) -> ClientCapabilities | None:
        """What the client on `peer` offered; None before its `initialize` succeeded."""
        return self._capabilities.get(peer)

    def admit(self, method: str) -> None:
        """The peer's `admit_request`: refuses every request but `initialize` until it has
        succeeded, before the method is looked up or its params decoded — so an unknown
        method or undecodable params get the same -32600 as the official TypeScript SDK
        gives them, not -32601/-32602."""
        if method != "initialize" and current_peer() not in self._capabilities:
            raise InvalidRequest(
                f"Invalid request: ACP connection must be initialized before '{method}'"
            )

    def __call__(self, call: CallInfo, proceed: Proceed) -> Awaitable[Any]:
        # A plain function on the common path (a request after `initialize`, a notification):
        # it hands back the handler's awaitable without a coroutine of its own.
        if call.notify:
            return proceed()
        peer = current_peer()
        if call.method == "initialize":
            return self._initialize(peer, call.params, proceed)
        if peer not in self._capabilities:
            raise InvalidRequest(
                f"Invalid request: ACP connection must be initialized before '{call.method}'"
            )
        return proceed()

    async def _initialize(self, peer: Peer, request: InitializeRequest, proceed: Proceed) -> Any:
        result = await proceed()
        # Recorded before the answer goes out, so the client's next request is served.
        self._capabilities[peer] = request.client_capabilities
        return result
