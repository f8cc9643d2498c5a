"""A conductor of an ACP proxy chain (UNSTABLE; docs/acp.md, "The unstable surface").

    python -m idlc_acp.conductor "python my_proxy.py" "python my_agent.py"

The conductor is the agent its client starts: it starts the components (every one but the
last is a proxy, the last the agent) and routes between them, each on its own connection:

- what the client sends goes to the first component as it is, `initialize` becoming
  `proxy/initialize` for a component with a successor;
- a proxy's `proxy/successor` (a request or a notification) is unwrapped and goes to the
  next component (its `initialize` again `proxy/initialize` when that one is a proxy too);
- what a component sends its predecessor goes to the client as it is from the first
  component, and from the others wrapped in `proxy/successor` to the proxy before it.

Results and errors come back unchanged; forwarding is hop-local (`proxy_chain.hop_local`).
The `proxy/` methods are the conductor's own with its proxies: a client or an agent that
sends one gets -32601, as from any agent that does not know them, and it goes nowhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import sys
from collections.abc import Sequence
from typing import Any, cast

from msgspec import Raw

from idlc_acp import unstable
from idlc_acp.proxy_chain import SUCCESSOR, envelope, forward_request
from idlc_acp.wire import acp_options
from idlc_runtime import (
    MethodFallback,
    Peer,
    PeerOptions,
    RpcError,
    Unsupported,
    current_peer,
    serve_stdio,
    spawn,
)
from idlc_runtime.errors import ErrorCode

INITIALIZE = "initialize"
PROXY_INITIALIZE = "proxy/initialize"
#: The methods of the conductor's protocol with its proxies (`Proxy`, `Successor`).
CHAIN_METHODS = "proxy/"


class _Endpoint(unstable.Protocol):
    """The root of a connection whose every message is routed (the fallback has them)."""


class _FromProxy(unstable.Successor):
    """What a proxy sends its successor, wrapped: unwrapped, on to the next component."""

    def __init__(self, chain: _Chain, index: int) -> None:
        self._chain = chain
        self._index = index

    async def successor_request(
        self, input: unstable.ProxySuccessorRequest
    ) -> unstable.ProxySuccessorResponse:
        raw = await self._chain.down(self._index + 1, input.method, input.params, False)
        # The result travels back as the bytes it came as (msgspec writes a Raw verbatim).
        return cast(unstable.ProxySuccessorResponse, raw)

    async def successor_notification(self, input: unstable.ProxySuccessorNotification) -> None:
        await self._chain.down(self._index + 1, input.method, input.params, True)


class _Chain:
    """The connections of one chain: the client's, and one per component."""

    def __init__(self, count: int) -> None:
        self.components: list[Peer | None] = [None] * count
        self.client: Peer | None = None

    @property
    def last(self) -> int:
        return len(self.components) - 1

    def _component(self, index: int) -> Peer:
        peer = self.components[index]
        if peer is None or peer.closed:
            raise _gone(index)
        return peer

    async def down(self, index: int, method: str, params: Any, notify: bool) -> Raw | None:
        """Deliver a message to component `index` from its predecessor."""
        peer = self._component(index)
        if method == INITIALIZE and index < self.last:
            method = PROXY_INITIALIZE
        try:
            if notify:
                await peer.notify(method, params)
                return None
            return await forward_request(peer, method, params)
        except ConnectionError:  # ConnectionClosed, or a pipe that broke as it was written
            raise _gone(index) from None

    async def up(self, index: int, method: str, params: Any, notify: bool) -> Raw | None:
        """Deliver a message from component `index` to its predecessor."""
        if index == 0:
            if self.client is None:
                raise RpcError(ErrorCode.INTERNAL_ERROR, "the client has not spoken yet")
            peer, wrapped = self.client, (method, params)
        else:
            peer, wrapped = self._component(index - 1), (SUCCESSOR, envelope(method, params))
        try:
            if notify:
                await peer.notify(*wrapped)
                return None
            return await forward_request(peer, *wrapped)
        except ConnectionError:  # ConnectionClosed, or a pipe that broke as it was written
            raise _gone(index - 1) from None

    def from_client(self) -> MethodFallback:
        async def route(method: str, params: Any, notify: bool) -> Any:
            _refuse_chain_method(method)  # else proxy 0 would take it for its successor's
            self.client = current_peer()
            return await self.down(0, method, params, notify)

        return route

    def from_component(self, index: int) -> MethodFallback:
        async def route(method: str, params: Any, notify: bool) -> Any:
            # A proxy's own `proxy/successor` reaches `_FromProxy`, never this fallback.
            _refuse_chain_method(method)
            return await self.up(index, method, params, notify)

        return route


def _refuse_chain_method(method: str) -> None:
    if method.startswith(CHAIN_METHODS):
        raise Unsupported(method, f"Method not found: {method}")


def _gone(index: int) -> RpcError:
    """The error the conductor answers itself for a hop that has ended (the schema: "errors
    the conductor returns itself, for example because the successor has exited")."""
    who = "the client" if index < 0 else f"component {index}"
    return RpcError(ErrorCode.INTERNAL_ERROR, f"Internal error: {who} has exited")


def _options(base: PeerOptions, fallback: MethodFallback) -> PeerOptions:
    return acp_options(base, fallback=fallback)


async def serve_conductor(
    components: Sequence[Sequence[str]], *, options: PeerOptions | None = None
) -> None:
    """Start `components` (argv lists: the proxies, then the agent) and serve the chain to
    the client on stdio until stdin ends; the components are stopped then."""
    if not components:
        raise ValueError("a chain needs at least its agent")
    base = options if options is not None else PeerOptions()
    chain = _Chain(len(components))
    async with contextlib.AsyncExitStack() as stack:
        for index, argv in enumerate(components):
            root: object = _FromProxy(chain, index) if index < chain.last else _Endpoint()
            chain.components[index] = await stack.enter_async_context(
                spawn(argv, root=root, options=_options(base, chain.from_component(index)))
            )
        await serve_stdio(_Endpoint(), options=_options(base, chain.from_client()))


def main(arguments: Sequence[str] | None = None) -> None:
    """`python -m idlc_acp.conductor "<proxy command>" … "<agent command>"`."""
    commands = list(sys.argv[1:] if arguments is None else arguments)
    usage = 'usage: python -m idlc_acp.conductor "<proxy command>" ... "<agent command>"'
    try:
        components = [shlex.split(command) for command in commands]
    except ValueError as error:
        raise SystemExit(f"conductor: cannot read a command ({error})\n{usage}") from None
    if not components or not all(components):
        raise SystemExit(f"conductor: every component needs a command\n{usage}")
    try:
        asyncio.run(serve_conductor(components))
    except OSError as error:
        raise SystemExit(f"conductor: cannot start a component: {error}") from None


if __name__ == "__main__":
    main()
