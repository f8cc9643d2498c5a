"""Serving an ACP agent: one call on stdio, turns that `session/cancel` can stop.

Subclass `idlc_acp.Agent` (the generated skeleton plus the extension hooks), implement
`initialize`, `new_session` and `prompt` plus whatever else the agent answers, and call
`run_agent(MyAgent())`. Inside `prompt`, `load_session` and `resume_session`,
`current_session()` is the request's session (`idlc_acp.session`); in any handler
`current_client()` is the proxy of the client that made the call.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import TYPE_CHECKING, Any

from idlc_acp import protocol
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
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionDeleteCapabilities,
    SessionListCapabilities,
    SessionResumeCapabilities,
    StopReason,
)
from idlc_acp.session import SessionScope
from idlc_acp.wire import acp_options
from idlc_runtime import (
    CallInfo,
    PeerOptions,
    Proceed,
    RequestAdmission,
    UndecodableNotificationHook,
    current_peer,
    implemented_members,
    serve_stdio,
)

if TYPE_CHECKING:
    from typing import TypeAlias

    from idlc_acp import unstable

    #: An agent of the stable protocol, or one that opted in to the unstable surface
    #: (docs/acp.md, "The unstable surface"); only type checkers import `unstable` here.
    AnyAgent: TypeAlias = protocol.Agent | unstable.Agent

log = logging.getLogger("idlc_acp")


def current_client() -> ClientProxy:
    """The client on the other end of the call being handled (inside a handler only)."""
    return ClientProxy(current_peer())


def agent_capabilities(
    agent: protocol.Agent,
    *,
    prompt: PromptCapabilities | None = None,
    mcp: McpCapabilities | None = None,
    meta: dict[str, Any] | None = None,
) -> AgentCapabilities:
    """The `agentCapabilities` of `agent`, derived from the members it implements.

    `session/load` → `loadSession`; `session/list`, `session/delete`, `session/resume`,
    `session/close` → `sessionCapabilities`; `logout` → `auth.logout`. What the code cannot
    tell (which content a prompt may carry, which MCP transports work) comes from the
    arguments.
    """
    members = implemented_members(agent)
    session = SessionCapabilities(
        list_=SessionListCapabilities() if "session/list" in members else None,
        delete=SessionDeleteCapabilities() if "session/delete" in members else None,
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
        #: Whether `session/cancel` stopped it.
        self.cancelled = False
        #: How many times `session/cancel` cancelled its task.
        self.cancels = 0


class TurnControl:
    """Stops a session's `session/prompt` turns when `session/cancel` comes.

    An interceptor: the turn stops at its next await, and the request answers
    `stopReason: "cancelled"` (unless the agent returned something itself). A
    `$/cancel_request` for the prompt still answers -32800, as for any request.

    Each turn runs in the task that answers its request (the runtime makes one for a
    handler that waits, and the turn's first await makes sure of it), so a turn costs no
    task of its own. `session/cancel` cancels that task, and only what it caused is
    undone: a `$/cancel_request` or the connection closing still cancel the request.
    """

    #: The only calls it wraps (`idlc_runtime.rpc.interceptors.applies_to`); others skip it.
    methods = frozenset({"session/prompt", "session/cancel"})

    def __init__(self) -> None:
        #: The running turns, by session id.
        self._turns: dict[str, set[_Turn]] = {}

    def running(self, session_id: str) -> int:
        return len(self._turns.get(session_id, ()))

    def cancel(self, session_id: str) -> int:
        """Cancel the turns of `session_id`; how many there were."""
        turns = self._turns.get(session_id, set())
        for turn in turns:
            turn.cancelled = True
            task = turn.task
            if task is not None and not task.done() and task.cancel():
                turn.cancels += 1
        return len(turns)

    async def __call__(self, call: CallInfo, proceed: Proceed) -> Any:
        if call.method == "session/cancel":
            self.cancel(call.params.session_id)
            return await proceed()
        if call.method != "session/prompt":
            return await proceed()
        session_id: str = call.params.session_id
        turn = _Turn()
        turns = self._turns.setdefault(session_id, set())
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
                self._turns.pop(session_id, None)
            if turn.task is not None:
                # Undo this interceptor's cancels only: others still count for the request.
                for _ in range(turn.cancels):
                    turn.task.uncancel()


def agent_options(agent: AnyAgent, options: PeerOptions | None = None) -> PeerOptions:
    """`options` with what an ACP agent needs: no request before `initialize`, turn
    cancellation, `current_session()` and extension methods."""
    base = options if options is not None else PeerOptions()
    gate = InitializeGate()
    admit: RequestAdmission = gate.admit
    if base.admit_request is not None:
        admit = _both(gate.admit, base.admit_request)
    return acp_options(
        base,
        admit_request=admit,
        interceptors=(gate, TurnControl(), SessionScope(gate), *base.interceptors),
        fallback=base.fallback if base.fallback is not None else extension_fallback(agent),
    )


def _both(first: RequestAdmission, second: RequestAdmission) -> RequestAdmission:
    def admit(method: str) -> None:
        first(method)
        second(method)

    return admit


async def serve_agent(
    agent: AnyAgent,
    *,
    options: PeerOptions | None = None,
    on_undecodable_notification: UndecodableNotificationHook | None = None,
) -> None:
    """Serve `agent` on this process's stdin/stdout until stdin ends.

    `on_undecodable_notification(method, params, error)` is told of a notification from
    the client whose params do not decode even leniently (docs/acp.md, "Messages from newer
    peers"); without it such a notification is logged at WARNING.
    """
    full = agent_options(agent, options)
    if on_undecodable_notification is not None:
        full = dataclasses.replace(full, on_undecodable_notification=on_undecodable_notification)
    await serve_stdio(agent, options=full)


def run_agent(
    agent: AnyAgent,
    *,
    options: PeerOptions | None = None,
    on_undecodable_notification: UndecodableNotificationHook | None = None,
) -> None:
    """Serve `agent` on stdio: the one call an agent's `main` needs."""
    try:
        asyncio.run(
            serve_agent(
                agent, options=options, on_undecodable_notification=on_undecodable_notification
            )
        )
    except KeyboardInterrupt:
        pass
