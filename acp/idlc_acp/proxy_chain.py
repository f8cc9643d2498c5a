"""A proxy of an ACP proxy chain (UNSTABLE; docs/acp.md, "The unstable surface").

In a proxy chain a conductor starts the components and sits between each of them: a proxy
has one connection, to the conductor, on which it answers the agent's methods from its
predecessor, `proxy/initialize` from the conductor, and `proxy/successor` (requests and
notifications wrapped for, or coming back from, its successor). `ChainProxy` is such a
component that passes everything through; a subclass overrides what it changes:

    class Shouting(ChainProxy):
        async def prompt(self, input: PromptRequest) -> PromptResponse:
            louder = [block_upper(block) for block in input.prompt]
            return await successor().prompt(msgspec.structs.replace(input, prompt=louder))

    run_proxy(Shouting())

- The agent's methods a subclass does not implement are forwarded to the successor as they
  came (`proxy/successor` with the same method and params; the result or error comes back
  unchanged), so a newer client's methods and fields pass through a proxy that does not
  know them.
- `proxy/initialize` is answered with the successor's answer to `initialize`.
- What the successor sends back (`session/update`, `session/request_permission`, `fs/…`)
  goes on to the predecessor unchanged; override `successor_request` /
  `successor_notification` to look at or change it.
- Forwarding is hop-local, as the schema says of `proxy/successor`: cancelling a forwarded
  message answers it -32800 on that connection and does not cancel the message sent on
  (ACP turns are cancelled with `session/cancel`, which passes through like any message).

`idlc_acp.conductor` runs a chain for a client.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, Final, TypeVar, cast

from msgspec import Raw

from idlc_acp import unstable
from idlc_acp.wire import acp_options
from idlc_runtime import Peer, PeerOptions, current_peer, serve_stdio, stand_in

log = logging.getLogger("idlc_acp")

#: The method that wraps a message for the next hop, both ways and in both kinds.
SUCCESSOR: Final = "proxy/successor"

_T = TypeVar("_T")


def envelope(method: str, params: object | None) -> dict[str, object]:
    """The params of a `proxy/successor` message wrapping `method` with `params` (absent
    params stay absent)."""
    return {"method": method} if params is None else {"method": method, "params": params}


async def hop_local(call: Awaitable[_T]) -> _T:
    """Await a forwarded call; if the awaiting handler is cancelled, the call goes on and its
    outcome is dropped: cancellation is never forwarded to another hop."""
    task = asyncio.ensure_future(call)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        task.add_done_callback(_drop_outcome)
        raise


def _drop_outcome(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.debug("a forwarded call whose caller left failed: %r", task.exception())


async def forward_request(peer: Peer, method: str, params: object | None) -> Raw:
    """Send a request on `peer` and return its result as the same JSON bytes; its error is
    raised as the same `RpcError` (code, message and data), which a handler answers
    unchanged."""
    return cast(Raw, await hop_local(peer.request(method, params, Raw)))


class _Wrapping:
    """A `Caller` for a generated proxy: every call goes to the successor, wrapped in
    `proxy/successor` on the connection to the conductor."""

    __slots__ = ("_peer",)

    def __init__(self, peer: Peer) -> None:
        self._peer = peer

    async def request(
        self, method: str, params: object | None, result_type: Any, *, target: str | None = None
    ) -> Any:
        _untargeted(target)
        # The wrapped result is the envelope's result, so it decodes into the same type.
        return await self._peer.request(SUCCESSOR, envelope(method, params), result_type)

    async def notify(
        self, method: str, params: object | None, *, target: str | None = None
    ) -> None:
        _untargeted(target)
        await self._peer.notify(SUCCESSOR, envelope(method, params))


def _untargeted(target: str | None) -> None:
    if target is not None:
        raise ValueError("a proxy's successor has no keyed objects to target")


def successor() -> unstable.AgentProxy:
    """The next component of the chain, as an agent, inside a `ChainProxy` handler: its
    calls travel wrapped in `proxy/successor` through the conductor."""
    return unstable.AgentProxy(_Wrapping(current_peer()))


def predecessor() -> unstable.ClientProxy:
    """The previous component of the chain (or the client), as a client, inside a
    `ChainProxy` handler: its calls go to the conductor as they are."""
    return unstable.ClientProxy(current_peer())


class ChainProxy(unstable.Agent, unstable.Proxy, unstable.Successor):
    """A proxy that passes everything through; subclass it and override what it changes.

    Serve it with `run_proxy` / `serve_proxy` (or with `proxy_options()` on any transport):
    the agent's methods it does not implement are forwarded to the successor unchanged.
    """

    # The agent's required members stand in for the successor's: not implemented here, so
    # the peer forwards them as they came (`proxy_options`) unless a subclass implements
    # them; a subclass's own `prompt` may still call `super().prompt(changed)`.
    @stand_in
    async def initialize(self, input: unstable.InitializeRequest) -> unstable.InitializeResponse:
        return await successor().initialize(input)

    @stand_in
    async def new_session(self, input: unstable.NewSessionRequest) -> unstable.NewSessionResponse:
        return await successor().new_session(input)

    @stand_in
    async def prompt(self, input: unstable.PromptRequest) -> unstable.PromptResponse:
        return await successor().prompt(input)

    async def initialize_proxy(
        self, input: unstable.InitializeProxyRequest
    ) -> unstable.InitializeProxyResponse:
        """Initializes the successor (which the schema requires before answering) and
        answers with what it answered; override to add this proxy's own capabilities,
        leaving `protocolVersion` as it is."""
        return await successor().initialize(input)

    async def successor_request(
        self, input: unstable.ProxySuccessorRequest
    ) -> unstable.ProxySuccessorResponse:
        """A request from the successor: passed on to the predecessor, its result returned
        as the same JSON."""
        raw = await forward_request(current_peer(), input.method, input.params)
        # The result travels back as the bytes it came as (msgspec writes a Raw verbatim).
        return cast(unstable.ProxySuccessorResponse, raw)

    async def successor_notification(self, input: unstable.ProxySuccessorNotification) -> None:
        """A notification from the successor: passed on to the predecessor."""
        await current_peer().notify(input.method, input.params)


async def _forward_to_successor(method: str, params: Any, notify: bool) -> Any:
    peer = current_peer()
    if notify:
        await peer.notify(SUCCESSOR, envelope(method, params))
        return None
    return await forward_request(peer, SUCCESSOR, envelope(method, params))


def proxy_options(options: PeerOptions | None = None) -> PeerOptions:
    """`options` (or the defaults) for serving a `ChainProxy`: what it does not implement is
    forwarded to the successor, on ACP's wire (`idlc_acp.wire`)."""
    return acp_options(options, fallback=_forward_to_successor, fallback_for_unimplemented=True)


async def serve_proxy(proxy: ChainProxy, *, options: PeerOptions | None = None) -> None:
    """Serve `proxy` on stdio, its connection to the conductor, until stdin ends."""
    await serve_stdio(proxy, options=proxy_options(options))


def run_proxy(proxy: ChainProxy, *, options: PeerOptions | None = None) -> None:
    """`serve_proxy` in a new event loop: the whole main program of a proxy."""
    asyncio.run(serve_proxy(proxy, options=options))
