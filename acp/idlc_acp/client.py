"""Being an ACP client: spawn an agent process and talk to it.

    async with spawn_agent(MyClient(), ["my-agent", "--stdio"]) as agent:
        init = await agent.initialize(InitializeRequest(protocol_version=1, ...))
        session = await agent.new_session(NewSessionRequest(cwd=..., mcp_servers=[]))
        answer = await agent.prompt(PromptRequest(session_id=..., prompt=[...]))

`agent` is an `AgentConnection`: an `AgentProxy` whose
- `initialize` refuses an agent answering a protocol version this SDK does not support
  (it closes the connection and raises `UnsupportedProtocolVersion`);
- `cancel` also resolves the client's own pending `session/request_permission` answers for
  that session as cancelled, as ACP requires;
- `turn(request)` streams a prompt's updates until its stop reason (`idlc_acp.updates`);
- error responses raise the classes of `idlc_acp.errors` (`ResourceNotFound`, ...).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

from idlc_acp.errors import TypedErrors
from idlc_acp.extensions import extension_fallback
from idlc_acp.protocol import (
    AgentProxy,
    CancelNotification,
    InitializeRequest,
    InitializeResponse,
    LoadSessionRequest,
    LoadSessionResponse,
    PromptRequest,
    PromptResponse,
    RequestPermissionOutcomeCancelled,
    RequestPermissionResponse,
)
from idlc_acp.roles import ClientImplementation
from idlc_acp.skeletons import routes_updates
from idlc_acp.updates import UpdateRouter, UpdateStream, attach_router
from idlc_acp.versions import SUPPORTED_PROTOCOL_VERSIONS, UnsupportedProtocolVersion
from idlc_acp.wire import acp_options
from idlc_runtime import (
    CallInfo,
    Peer,
    PeerOptions,
    Proceed,
    UndecodableNotificationHook,
    spawn,
)

if TYPE_CHECKING:
    # Only type checkers import the unstable surface here; `unstable()` imports it when called.
    from idlc_acp import unstable as unstable_protocol


class PermissionControl:
    """Interceptor: the client's `session/request_permission` answers, by session, so that
    cancelling a session's turn answers them `{"outcome": "cancelled"}` at once."""

    #: The only calls it wraps (`idlc_runtime.rpc.interceptors.applies_to`); others skip it.
    methods = frozenset({"session/request_permission"})

    def __init__(self) -> None:
        self._pending: dict[str, set[asyncio.Task[Any]]] = {}
        self._cancelled: set[asyncio.Task[Any]] = set()

    def cancel(self, session_id: str) -> int:
        pending = self._pending.get(session_id, set())
        for task in pending:
            if not task.done():
                self._cancelled.add(task)
                task.cancel()
        return len(pending)

    async def __call__(self, call: CallInfo, proceed: Proceed) -> Any:
        if call.method != "session/request_permission":
            return await proceed()
        session_id: str = call.params.session_id
        task: asyncio.Task[Any] = asyncio.ensure_future(proceed())
        pending = self._pending.setdefault(session_id, set())
        pending.add(task)
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if task in self._cancelled and not (current is not None and current.cancelling()):
                return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())
            raise
        finally:
            self._cancelled.discard(task)
            pending.discard(task)
            if not pending:
                self._pending.pop(session_id, None)


@dataclasses.dataclass(frozen=True)
class ClientControls:
    """The interceptors `client_options` adds, which an `AgentConnection` drives."""

    permissions: PermissionControl
    updates: UpdateRouter


class AgentConnection(AgentProxy):
    """The agent, seen from the client: `AgentProxy` plus the connection it runs on."""

    __slots__ = ("peer", "_controls", "supported_versions")

    def __init__(
        self,
        peer: Peer,
        controls: ClientControls,
        *,
        supported_versions: frozenset[int] = SUPPORTED_PROTOCOL_VERSIONS,
    ) -> None:
        super().__init__(TypedErrors(peer))
        self.peer = peer
        self._controls = controls
        attach_router(peer, controls.updates)
        #: The protocol versions this client accepts in the agent's `initialize` answer.
        self.supported_versions = supported_versions

    def unstable(self) -> unstable_protocol.AgentProxy:
        """The agent's proxy for the unstable surface (`session/fork`, archive, title,
        status, providers, auth status; docs/acp.md, "The unstable surface"), on this
        connection and with its typed errors. Calling it imports `idlc_acp.unstable`."""
        from idlc_acp import unstable as unstable_protocol

        return unstable_protocol.AgentProxy(TypedErrors(self.peer))

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        """Sends `initialize`; if the agent answers a protocol version this client does not
        support, closes the connection and raises `UnsupportedProtocolVersion`."""
        answer = await super().initialize(input)
        if answer.protocol_version not in self.supported_versions:
            await self.peer.close()
            raise UnsupportedProtocolVersion(answer.protocol_version, self.supported_versions)
        return answer

    async def cancel(self, input: CancelNotification) -> None:
        """Sends `session/cancel`, and answers this side's pending permission requests of
        that session as cancelled."""
        self._controls.permissions.cancel(input.session_id)
        await super().cancel(input)

    def turn(self, input: PromptRequest) -> UpdateStream[PromptResponse]:
        """Sends `session/prompt`; iterate the result for the session's updates until the
        agent answers, then `.response.stop_reason` says why the turn ended."""
        return self._controls.updates.open(input.session_id, self.prompt(input))

    def watching(self, session_id: str) -> bool:
        """Whether a `turn` or `replay` of `session_id` is taking its updates now (the
        client's `update` still receives them too)."""
        return self._controls.updates.watching(session_id)

    def replay(self, input: LoadSessionRequest) -> UpdateStream[LoadSessionResponse]:
        """Sends `session/load`; iterate the result for the history the agent replays."""
        return self._controls.updates.open(input.session_id, self.load_session(input))


def client_options(
    client: ClientImplementation, options: PeerOptions | None = None
) -> tuple[PeerOptions, ClientControls]:
    """`options` with what an ACP client needs, and the controls an `AgentConnection` uses."""
    base = options if options is not None else PeerOptions()
    controls = ClientControls(PermissionControl(), UpdateRouter())
    # An `idlc_acp.Client` routes its updates in its dispatch table; any other client needs
    # the router around each call.
    routing = () if routes_updates(client) else (controls.updates,)
    return (
        acp_options(
            base,
            interceptors=(*routing, controls.permissions, *base.interceptors),
            fallback=base.fallback if base.fallback is not None else extension_fallback(client),
        ),
        controls,
    )


@contextlib.asynccontextmanager
async def spawn_agent(
    client: ClientImplementation,
    argv: Sequence[str],
    *,
    options: PeerOptions | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    stderr: int | IO[Any] | None = None,
    exit_timeout: float = 5.0,
    on_undecodable_notification: UndecodableNotificationHook | None = None,
) -> AsyncIterator[AgentConnection]:
    """Start the agent `argv`, serve `client` to it, and yield the agent's proxy.

    Leaving the block closes the agent's stdin and waits up to `exit_timeout` seconds for
    it to exit before killing it. `on_undecodable_notification(method, params, error)` is
    told of a notification from the agent (a `session/update`) whose params do not decode
    even leniently (docs/acp.md, "Messages from newer peers"); without it such a
    notification is logged at WARNING.
    """
    full_options, controls = client_options(client, options)
    if on_undecodable_notification is not None:
        full_options = dataclasses.replace(
            full_options, on_undecodable_notification=on_undecodable_notification
        )
    async with spawn(
        argv,
        root=client,
        options=full_options,
        cwd=cwd,
        env=env,
        stderr=stderr,
        exit_timeout=exit_timeout,
    ) as peer:
        yield AgentConnection(peer, controls)
