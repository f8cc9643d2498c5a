"""Serving an ACP agent: one call on stdio, turns that `session/cancel` can stop.

Subclass `idlc_acp.Agent` (the generated skeleton plus the extension hooks), implement
`initialize`, `new_session` and `prompt` plus whatever else the agent answers, and call
`run_agent(MyAgent())`. Inside any handler of a call that names a session (`prompt`,
`load_session`, `set_mode`, `close_session`, …), `current_session()` is that session
(`idlc_acp.session`); in any handler `current_client()` is the proxy of the client that
made the call.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any

from idlc_acp.extensions import extension_fallback
from idlc_acp.initialization import InitializeGate
from idlc_acp.protocol import (
    AgentAuthCapabilities,
    AgentCapabilities,
    ClientProxy,
    LogoutCapabilities,
    McpCapabilities,
    PromptCapabilities,
    PromptResponse,
    SessionAdditionalDirectoriesCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionDeleteCapabilities,
    SessionListCapabilities,
    SessionResumeCapabilities,
    StopReason,
)
from idlc_acp.roles import AgentImplementation
from idlc_acp.session import SessionScope
from idlc_acp.wire import acp_options
from idlc_runtime import (
    CallInfo,
    Peer,
    PeerOptions,
    Proceed,
    RequestAdmission,
    UndecodableNotificationHook,
    current_peer,
    implemented_members,
    serve_stdio,
)

log = logging.getLogger("idlc_acp")


def current_client() -> ClientProxy:
    """The client on the other end of the call being handled (inside a handler only)."""
    return ClientProxy(current_peer())


def agent_capabilities(
    agent: AgentImplementation,
    *,
    prompt: PromptCapabilities | None = None,
    mcp: McpCapabilities | None = None,
    additional_directories: bool = False,
    meta: dict[str, Any] | None = None,
) -> AgentCapabilities:
    """The `agentCapabilities` of `agent`, derived from the members it implements.

    `session/load` → `loadSession`; `session/list`, `session/delete`, `session/resume`,
    `session/close` → `sessionCapabilities`; `logout` → `auth.logout`. What the code cannot
    tell comes from the arguments: which content a prompt may carry, which MCP transports
    work, and whether the agent honours the `additionalDirectories` of `session/new`,
    `session/load` and `session/resume` (`sessionCapabilities.additionalDirectories`): a
    field of requests, not a member, so nothing of the class shows it.
    """
    members = implemented_members(agent)
    session = SessionCapabilities(
        list_=SessionListCapabilities() if "session/list" in members else None,
        delete=SessionDeleteCapabilities() if "session/delete" in members else None,
        additional_directories=(
            SessionAdditionalDirectoriesCapabilities() if additional_directories else None
        ),
        resume=SessionResumeCapabilities() if "session/resume" in members else None,
        close=SessionCloseCapabilities() if "session/close" in members else None,
    )
    return AgentCapabilities(
        load_session="session/load" in members,
        prompt_capabilities=prompt if prompt is not None else PromptCapabilities(),
        mcp_capabilities=mcp if mcp is not None else McpCapabilities(),
        session_capabilities=session,
        auth=AgentAuthCapabilities(logout=LogoutCapabilities() if "logout" in members else None),
        meta=meta,
    )


class _Turn:
    """One `session/prompt` being handled, as `TurnControl` tracks it."""

    __slots__ = ("task", "cancelled", "cancels")

    def __init__(self) -> None:
        #: The task running the turn; None until it has started.
        self.task: asyncio.Task[Any] | None = None
        #: Whether `session/cancel` (or `session/close`) stopped it.
        self.cancelled = False
        #: How many times this interceptor cancelled its task.
        self.cancels = 0

    def cancel(self) -> None:
        self.cancelled = True
        task = self.task
        if task is not None and not task.done() and task.cancel():
            self.cancels += 1


class TurnControl:
    """Stops a session's `session/prompt` turns when `session/cancel` or `session/close`
    comes.

    An interceptor: the turn stops at its next await, and the request answers
    `stopReason: "cancelled"` (unless the agent returned something itself). A
    `$/cancel_request` for the prompt still answers -32800, as for any request.

    `session/close` is "as if `session/cancel` was called, then the resources are freed"
    (the schema's `CloseSessionRequest`): when the agent implements `close_session`, the
    session's turns are cancelled and have answered before it runs, so the agent frees what
    no turn uses any more, and the client has every turn's answer before the close's. An
    agent stops turns itself elsewhere (`session/delete`, whose effect on a running session
    the protocol leaves to the agent) with `current_session().cancel_turns()`.

    Each turn runs in the task that answers its request (the runtime makes one for a
    handler that waits, and the turn's first await makes sure of it), so a turn costs no
    task of its own. Cancelling cancels that task, and only what it caused is undone: a
    `$/cancel_request` or the connection closing still cancel the request.

    Turns are kept per connection: one `TurnControl` may serve many (`serve_tcp` shares its
    options), and a session id only ever reaches the turns of the connection that sent it.
    """

    #: The only calls it wraps (`idlc_runtime.rpc.interceptors.applies_to`); others skip it.
    methods = frozenset({"session/prompt", "session/cancel", "session/close"})

    def __init__(self) -> None:
        #: The running turns, by connection and session id.
        self._turns: dict[tuple[Peer, str], set[_Turn]] = {}

    def running(self, peer: Peer, session_id: str) -> int:
        """How many turns of `session_id` run on the connection `peer`."""
        return len(self._turns.get((peer, session_id), ()))

    def cancel(self, peer: Peer, session_id: str) -> int:
        """Cancel the turns of `session_id` on `peer`, as `session/cancel` does; how many
        there were."""
        turns = self._turns.get((peer, session_id), set())
        for turn in turns:
            turn.cancel()
        return len(turns)

    async def cancel_and_wait(self, peer: Peer, session_id: str) -> int:
        """Cancel the turns of `session_id` on `peer` and wait until each has answered;
        how many there were. A turn that starts meanwhile is cancelled too, and the task
        calling this (a turn stopping its session's other turns) is spared.

        A turn that goes on after its cancellation (one that catches `CancelledError` and
        keeps working) is waited for as long as it runs."""
        key = (peer, session_id)
        caller = asyncio.current_task()
        stopped: set[_Turn] = set()
        while True:
            turns = [turn for turn in self._turns.get(key, ()) if turn.task is not caller]
            if not turns:
                return len(stopped)
            for turn in turns:
                if turn not in stopped:
                    turn.cancel()
                    stopped.add(turn)
            # Done once the task has written the turn's answer, not only left this
            # interceptor: the client has it before anything the caller answers.
            await asyncio.wait([turn.task for turn in turns if turn.task is not None])

    async def __call__(self, call: CallInfo, proceed: Proceed) -> Any:
        if call.method == "session/cancel":
            self.cancel(current_peer(), call.params.session_id)
            return await proceed()
        if call.method == "session/close":
            if "session/close" in implemented_members(call.implementation):
                await self.cancel_and_wait(current_peer(), call.params.session_id)
            return await proceed()
        if call.method != "session/prompt":
            return await proceed()
        key = (current_peer(), call.params.session_id)
        turn = _Turn()
        turns = self._turns.setdefault(key, set())
        turns.add(turn)
        try:
            # A handler is its own current task from its first line (runtime eager.py): the
            # task a session/cancel must reach.
            task = turn.task = asyncio.current_task()
            if turn.cancelled:
                # Cancelled before it started: the agent never sees the prompt.
                return PromptResponse(stop_reason=StopReason.CANCELLED)
            try:
                return await proceed()
            except asyncio.CancelledError:
                assert task is not None
                if turn.cancels and task.cancelling() <= turn.cancels:
                    return PromptResponse(stop_reason=StopReason.CANCELLED)
                raise
        finally:
            turns.discard(turn)
            if not turns:
                self._turns.pop(key, None)
            if turn.task is not None:
                # Undo this interceptor's cancels only: others still count for the request.
                for _ in range(turn.cancels):
                    turn.task.uncancel()


def agent_options(agent: AgentImplementation, options: PeerOptions | None = None) -> PeerOptions:
    """`options` with what an ACP agent needs: no request before `initialize`, turn
    cancellation, `current_session()` and extension methods."""
    base = options if options is not None else PeerOptions()
    gate = InitializeGate()
    turns = TurnControl()
    admit: RequestAdmission = gate.admit
    if base.admit_request is not None:
        admit = _both(gate.admit, base.admit_request)
    return acp_options(
        base,
        admit_request=admit,
        interceptors=(gate, turns, SessionScope(gate, turns), *base.interceptors),
        fallback=base.fallback if base.fallback is not None else extension_fallback(agent),
    )


def _both(first: RequestAdmission, second: RequestAdmission) -> RequestAdmission:
    def admit(method: str) -> None:
        first(method)
        second(method)

    return admit


async def serve_agent(
    agent: AgentImplementation | None,
    *,
    v2: object | None = None,
    options: PeerOptions | None = None,
    on_undecodable_notification: UndecodableNotificationHook | None = None,
) -> None:
    """Serve `agent` on this process's stdin/stdout until stdin ends.

    With `v2` (an `idlc_acp.AgentV2`), the process serves ACP v1 and the v2 draft on the
    one connection, the client's first valid `initialize` choosing (`idlc_acp.router`,
    docs/acp.md "Serving v1 and v2"); `agent` may then be None for a v2-only agent.

    `on_undecodable_notification(method, params, error)` is told of a notification from
    the client whose params do not decode even leniently (docs/acp.md, "Messages from newer
    peers"); without it such a notification is logged at WARNING.
    """
    if v2 is not None:
        from idlc_acp.router import ProtocolRouter

        router = ProtocolRouter(agent, v2=v2, options=options)
        if on_undecodable_notification is not None:
            router.with_undecodable_notification_hook(on_undecodable_notification)
        await router.serve_stdio()
        return
    if agent is None:
        raise ValueError("serve_agent needs a v1 agent, a v2 agent or both")
    full = agent_options(agent, options)
    if on_undecodable_notification is not None:
        full = dataclasses.replace(full, on_undecodable_notification=on_undecodable_notification)
    await serve_stdio(agent, options=full)


def run_agent(
    agent: AgentImplementation | None,
    *,
    v2: object | None = None,
    options: PeerOptions | None = None,
    on_undecodable_notification: UndecodableNotificationHook | None = None,
) -> None:
    """Serve `agent` (and `v2`, see `serve_agent`) on stdio: the one call an agent's `main`
    needs."""
    try:
        asyncio.run(
            serve_agent(
                agent,
                v2=v2,
                options=options,
                on_undecodable_notification=on_undecodable_notification,
            )
        )
    except KeyboardInterrupt:
        pass
