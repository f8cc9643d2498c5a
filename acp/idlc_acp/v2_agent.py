"""Serving an ACP v2 (draft) agent: the v1 `Agent`'s conveniences on the v2 skeleton.

Subclass `AgentV2`, implement `initialize`, `new_session` and `run_turn`, and serve it
beside a v1 agent (`serve_agent(v1_agent, v2=MyAgentV2())`, idlc_acp.router) or alone
(`serve_agent(None, v2=...)`). What it does for you:

- `initialize` gated as the TypeScript SDK's v2 agent gates it (`InitializeGateV2`): no
  request before it (-32600), notifications before it ignored; it may be repeated before
  any other request, its `protocolVersion` read before the rest (`initialize_request_v2`);
- `session/prompt` is answered at once with the user message's `messageId` (the draft's
  ack); the user message is echoed as a `user_message` update, the session reports
  `running`, and `run_turn(request, turn)` runs in the background; whatever it returns is
  the stop reason of the idle `state_update` that ends the turn (`error` if it raises);
- a prompt sent while the session's turn runs is held (answered once inserted) until the
  turns before it are done, in the order received;
- `session/cancel` (and `session/close`) cancel the session's running turns, which end
  with the idle `cancelled` state, done for you, and withdraw held prompts (-32800);
- `_`-prefixed extension methods go to `ext_method` / `ext_notification`.

`TurnV2` is the session handle of one turn (idlc_acp.v2_session.SessionV2 and its user
message): message chunks carrying their `messageId`, plans, tool calls and terminals patched
by id, usage, elicitation, permission requests, `requires_action` while the turn waits for
the user, and background work that outlives the turn. `AgentV2.session(session_id)` is the
same handle outside a turn. Besides, AgentV2 answers `tool_call/cancel` and
`terminal/cancel` for what the handle made cancellable, stops a session's background work
on `session/close`, and sends the current state snapshot after `session/resume` and any
replay, before its answer (as the draft requires).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import msgspec

from idlc_acp.errors import InvalidParams, InvalidRequest, RequestCancelled
from idlc_acp.extensions import Extensions, extension_fallback
from idlc_acp.v2 import (
    Agent,
    CancelTerminalRequest,
    CancelTerminalResponse,
    CancelToolCallRequest,
    CancelToolCallResponse,
    ClientCapabilities,
    ClientProxy,
    ContentBlock,
    Implementation,
    InitializeRequest,
    InitializeResponse,
    PromptRequest,
    PromptResponse,
    SessionUpdateStateUpdateRunning,
    SessionUpdateUserMessage,
    ToolCallStatus,
)
from idlc_acp.v2_session import SessionV2, SessionWorkV2
from idlc_acp.v2_session import default_permission_options as default_permission_options

# Re-exported: where a v2 agent's author finds them.
from idlc_acp.v2_states import StopReasonV2 as StopReasonV2
from idlc_acp.v2_states import idle_update as idle_update
from idlc_acp.wire import acp_options
from idlc_runtime import (
    CallInfo,
    InterfaceSpec,
    Peer,
    PeerOptions,
    Proceed,
    RequestAdmission,
    RpcError,
    current_peer,
)
from idlc_runtime.codec.decoders import decoder_for
from idlc_runtime.codec.hooks import enc_hook

log = logging.getLogger("idlc_acp")

#: The protocol version of the draft.
PROTOCOL_VERSION_V2 = 2


def new_message_id() -> str:
    return str(uuid.uuid4())


# ---------------------------------------------------------------- initialization


#: The highest protocol version an `initialize` may ask for (the schema's `uint16`).
MAX_PROTOCOL_VERSION = 0xFFFF
#: The `info` a newer version's `initialize` gets when its own is missing or malformed, as
#: the TypeScript SDK substitutes it.
UNKNOWN_IMPLEMENTATION: dict[str, str] = {"name": "unknown", "version": "unknown"}
_encoder = msgspec.json.Encoder()


def valid_implementation(info: object) -> bool:
    """Whether `info` is an `Implementation` (`name`, `version`) as v2 has it."""
    try:
        msgspec.convert(info, Implementation)
    except msgspec.ValidationError:
        return False
    return True


def requested_version(params: object) -> int | None:
    """The `protocolVersion` an `initialize`'s params (plain JSON) ask for, if it is one (an
    integer in 0..65535): what both the router and the v2 agent read before the rest."""
    requested = params.get("protocolVersion") if isinstance(params, dict) else None
    if (
        not isinstance(requested, int)
        or isinstance(requested, bool)
        or not 0 <= requested <= MAX_PROTOCOL_VERSION
    ):
        return None
    return requested


def as_v2_params(params: dict[str, Any], requested: int) -> dict[str, Any]:
    """The params of an `initialize` asking `requested` (≥ 2) as a v2 agent takes them: a
    newer version asked for as 2, its missing or malformed `info` filled in (as the
    TypeScript SDK does)."""
    if requested == PROTOCOL_VERSION_V2:
        return params
    rewritten = {**params, "protocolVersion": PROTOCOL_VERSION_V2}
    if not valid_implementation(params.get("info")):
        rewritten["info"] = UNKNOWN_IMPLEMENTATION
    return rewritten


def initialize_request_v2(params: Any, *, repeat: bool = False) -> InitializeRequest:
    """A v2 `initialize`'s params (plain JSON) as the TypeScript SDK's v2 agent reads them:
    `protocolVersion` first (an integer in 0..65535, else -32602), lower than 2 refused
    (-32600 for a repeat, which must keep the version the first one chose; -32022 for a
    first one), a newer one read as v2 with a missing or malformed `info` filled in; then
    the whole request (-32602 if it does not decode)."""
    requested = requested_version(params)
    if requested is None:
        raise InvalidParams(
            "Invalid params", "initialize.protocolVersion must be a valid ACP protocol version"
        )
    if requested < PROTOCOL_VERSION_V2:
        if repeat:
            raise InvalidRequest(
                "Invalid request: a repeated initialize must request protocol version "
                f"{PROTOCOL_VERSION_V2} or later"
            )
        raise RpcError(
            -32022,
            "Unsupported protocol version",
            {"requested": requested, "supported": [PROTOCOL_VERSION_V2]},
        )
    try:
        request: InitializeRequest = _INITIALIZE.decode(
            _encoder.encode(as_v2_params(params, requested))
        )
    except (msgspec.DecodeError, RecursionError) as error:
        raise InvalidParams("Invalid params", f"invalid initialize params: {error}") from None
    return request


_INITIALIZE = decoder_for(InitializeRequest)


def _as_sent(params: Any) -> Any:
    """The plain JSON of `initialize`'s params: `AgentV2` takes them raw (`msgspec.Raw`)."""
    if isinstance(params, msgspec.Raw):
        try:
            return msgspec.json.decode(params) if params else None
        except (msgspec.DecodeError, RecursionError) as error:
            raise InvalidParams("Invalid params", f"invalid initialize params: {error}") from None
    if isinstance(params, InitializeRequest):  # a table of the generated skeleton's
        return msgspec.to_builtins(params, enc_hook=enc_hook)
    return params


@dataclass
class _Initialization:
    phase: Literal["uninitialized", "initializing", "initialized"] = "uninitialized"
    other_request_seen: bool = False
    capabilities: ClientCapabilities | None = None
    #: Set once an `initialize` succeeded (still while a repeat is in progress).
    has_initialized: bool = False
    #: Done when the attempt in progress ends, either way.
    attempt: asyncio.Future[None] | None = None


class InitializeGateV2:
    """Interceptor and admission of a v2 connection, as the TypeScript SDK's v2 agent
    (`InitializationState` and `agentInitializationGuard`, dist/v2/acp.js): requests but
    `initialize` are refused until it has succeeded (not waiting for one in progress);
    notifications before the first success are ignored, those during a repeat wait for
    it; a repeat is allowed before any other request, and its `protocolVersion` is read
    before the rest of its params (`initialize_request_v2`). A failed first attempt leaves
    the connection uninitialized, a failed repeat the previous initialization in effect."""

    def __init__(self) -> None:
        self._states: weakref.WeakKeyDictionary[Peer, _Initialization] = weakref.WeakKeyDictionary()

    def _state(self, peer: Peer) -> _Initialization:
        state = self._states.get(peer)
        if state is None:
            state = self._states[peer] = _Initialization()
        return state

    def client_capabilities(self, peer: Peer) -> ClientCapabilities | None:
        return self._state(peer).capabilities

    def admit(self, method: str) -> None:
        # The TypeScript SDK's errors: "Invalid request" with the reason as `data`.
        state = self._state(current_peer())
        if method == "initialize":
            if state.phase == "initializing":
                raise InvalidRequest("Invalid request", "ACP v2 initialize is already in progress")
            if state.phase == "initialized" and state.other_request_seen:
                raise InvalidRequest(
                    "Invalid request", "ACP v2 initialize must not be repeated after other requests"
                )
            return
        if state.phase != "initialized":
            raise InvalidRequest(
                "Invalid request", f"ACP v2 connection must be initialized before '{method}'"
            )
        state.other_request_seen = True

    def __call__(self, call: CallInfo, proceed: Proceed) -> Awaitable[Any]:
        state = self._state(current_peer())
        if call.notify:
            if not state.has_initialized:
                return _nothing()
            if state.phase == "initializing" and state.attempt is not None:
                return _after(state.attempt, proceed)
            return proceed()
        if call.method == "initialize":
            return self._initialize(state, call, proceed)
        return proceed()

    async def _initialize(self, state: _Initialization, call: CallInfo, proceed: Proceed) -> Any:
        previous = state.phase
        # A malformed initialize is refused before it begins: the state stays as it was.
        request = initialize_request_v2(_as_sent(call.params), repeat=previous == "initialized")
        state.phase = "initializing"
        attempt = state.attempt = asyncio.get_running_loop().create_future()
        try:
            result = await proceed()
        except BaseException:
            state.phase = previous
            raise
        finally:
            attempt.set_result(None)
        state.phase = "initialized"
        state.has_initialized = True
        state.capabilities = request.capabilities
        return result


async def _after(attempt: asyncio.Future[None], proceed: Proceed) -> Any:
    await asyncio.shield(attempt)
    return await proceed()


async def _nothing() -> None:
    return None


# ---------------------------------------------------------------- turns


@dataclass(eq=False)
class TurnV2(SessionV2):
    """One v2 turn (`session/prompt`): the session's handle (`SessionV2`: chunks, plans,
    tool calls, terminals, usage, elicitation, state, background work) with the turn's
    user message.

    Every update goes out as `session/update` for the turn's session. Agent text goes in
    chunks of one agent message per turn (`agent_message_id`) unless told otherwise.
    """

    #: The `messageId` of the user message, answered to `session/prompt`.
    message_id: str
    prompt: Sequence[ContentBlock]
    #: The `messageId` of the agent's answer, which `send_text` chunks belong to.
    agent_message_id: str = field(default_factory=new_message_id)
    #: Set once `session/cancel` (or `session/close`) stopped the turn.
    cancelled: bool = False
    _task: asyncio.Task[None] | None = None

    async def end_open_tool_calls(self, status: ToolCallStatus) -> None:
        """Gives the tool calls this turn announced, did not hand to background work and
        left open `status` (final): the draft's "final updates" for cancelled (or failed)
        work, sent before the turn's idle state."""
        for call_id in sorted(self._announced & self._work.open_tool_calls):
            await self.update_tool_call(call_id, status=status)

    async def send(self, content: ContentBlock, *, message_id: str | None = None) -> str:
        """An `agent_message_chunk` of `content`, in the turn's agent message (or
        `message_id`); the message id."""
        return await super().send(content, message_id=message_id or self.agent_message_id)

    @contextlib.asynccontextmanager
    async def waiting_for_user(self) -> AsyncIterator[None]:
        """The turn as a whole waits for the user in the block (a permission request, an
        elicitation): `requires_action` before it, `running` again after it, unless the
        turn was cancelled meanwhile (it then ends idle `cancelled`)."""
        await self.requires_action()
        try:
            yield
        finally:
            if not self.cancelled:
                await self.running()


class TurnControlV2:
    """Interceptor: `session/cancel` and `session/close` cancel the session's running
    turns (each then ends with the idle `cancelled` state), per connection; `session/close`
    then stops its background work; `session/resume` is followed by the session's current
    state snapshot before its answer."""

    methods = frozenset({"session/cancel", "session/close", "session/resume"})

    def __init__(self) -> None:
        #: Every session's activity on every connection, shared by its handles.
        self.sessions = SessionWorkV2()
        self._turns: weakref.WeakKeyDictionary[Peer, dict[str, set[TurnV2]]] = (
            weakref.WeakKeyDictionary()
        )
        #: Per connection and session: the future done once the last prompt received has
        #: finished its turn (or was withdrawn), which the next prompt waits for.
        self._tails: weakref.WeakKeyDictionary[Peer, dict[str, asyncio.Future[None]]] = (
            weakref.WeakKeyDictionary()
        )
        #: Per connection and session: the prompts held, each with the future that
        #: `session/cancel` fails to withdraw it.
        self._held: weakref.WeakKeyDictionary[Peer, dict[str, set[asyncio.Future[None]]]] = (
            weakref.WeakKeyDictionary()
        )

    def queue(
        self, peer: Peer, session_id: str
    ) -> tuple[asyncio.Future[None] | None, asyncio.Future[None]]:
        """Take a place in the session's line of prompts: the future of the one before
        (None if there is none left running) and this one's, to finish when its turn does."""
        tails = self._tails.setdefault(peer, {})
        before = tails.get(session_id)
        mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        tails[session_id] = mine
        return (before if before is not None and not before.done() else None), mine

    async def hold(self, peer: Peer, session_id: str, before: asyncio.Future[None]) -> bool:
        """Wait for the prompt before; False if `session/cancel` withdrew this one first."""
        withdrawn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        held = self._held.setdefault(peer, {}).setdefault(session_id, set())
        held.add(withdrawn)
        try:
            await asyncio.wait([before, withdrawn], return_when=asyncio.FIRST_COMPLETED)
            return not withdrawn.done()
        finally:
            held.discard(withdrawn)

    def add(self, peer: Peer, turn: TurnV2) -> None:
        self._turns.setdefault(peer, {}).setdefault(turn.session_id, set()).add(turn)

    def discard(self, peer: Peer, turn: TurnV2) -> None:
        sessions = self._turns.get(peer)
        if sessions is not None:
            turns = sessions.get(turn.session_id)
            if turns is not None:
                turns.discard(turn)
                if not turns:
                    del sessions[turn.session_id]

    def running(self, peer: Peer, session_id: str) -> int:
        return len(self._turns.get(peer, {}).get(session_id, ()))

    def cancel(self, peer: Peer, session_id: str) -> list[asyncio.Task[None]]:
        for withdrawn in list(self._held.get(peer, {}).get(session_id, ())):
            if not withdrawn.done():
                withdrawn.set_result(None)
        tasks: list[asyncio.Task[None]] = []
        for turn in list(self._turns.get(peer, {}).get(session_id, ())):
            turn.cancelled = True
            if turn._task is not None and not turn._task.done():
                turn._task.cancel()
                tasks.append(turn._task)
        return tasks

    async def __call__(self, call: CallInfo, proceed: Proceed) -> Any:
        peer, session_id = current_peer(), call.params.session_id
        if call.method == "session/resume":
            result = await proceed()
            # After any replay the handler sent, before the answer: the draft's
            # current-state synchronization.
            handle = SessionV2(
                session_id, ClientProxy(peer), None, _work=self.sessions.of(peer, session_id)
            )
            await handle.sync_state()
            return result
        if call.method == "session/close":
            await self.stop(peer, session_id)
        else:
            self.cancel(peer, session_id)
        return await proceed()

    async def stop(self, peer: Peer, session_id: str) -> None:
        """What `session/close` does before the agent's `close_session`: cancels the
        session's turns and held prompts, waits until the turns reported idle `cancelled`,
        then stops its background work (which `session/cancel` leaves running)."""
        tasks = self.cancel(peer, session_id)
        if tasks:
            await asyncio.wait(tasks)
        await self.sessions.stop(peer, session_id)


#: The turn control of each `AgentV2` served (one per options made for it).
_controls: weakref.WeakKeyDictionary[object, TurnControlV2] = weakref.WeakKeyDictionary()
_gates: weakref.WeakKeyDictionary[object, InitializeGateV2] = weakref.WeakKeyDictionary()


def _with_initialize_as_sent(spec: InterfaceSpec) -> InterfaceSpec:
    methods = tuple(
        (
            dataclasses.replace(method, params_type=msgspec.Raw, invoke=_initialize_as_sent)
            if not method.notify and method.wire == "initialize"
            else method
        )
        for method in spec.methods
    )
    # `skeleton` stays the generated class: what a subclass implements is judged against it.
    return dataclasses.replace(spec, methods=methods)


async def _initialize_as_sent(agent: Agent, params: msgspec.Raw) -> InitializeResponse:
    """The dispatch entry of `initialize` for `AgentV2`: its params read as the TypeScript
    SDK reads them (`initialize_request_v2`), so the gate can look at `protocolVersion`
    before the rest decodes."""
    return await agent.initialize(initialize_request_v2(_as_sent(params)))


class AgentV2(Agent, Extensions):
    """The v2 skeleton with `session/prompt` done for you: implement `run_turn`.

    Its dispatch table takes `initialize`'s params as sent (`msgspec.Raw`: what the gate's
    and any interceptor's `CallInfo.params` is) and hands `initialize` the request read by
    `initialize_request_v2` (a newer version's asked for as 2)."""

    __idlc_interface__: ClassVar[InterfaceSpec] = _with_initialize_as_sent(Agent.__idlc_interface__)

    async def run_turn(self, request: PromptRequest, turn: TurnV2) -> StopReasonV2:
        """Do the turn's work, reporting through `turn`; the stop reason."""
        raise NotImplementedError

    def session(self, session_id: str) -> SessionV2:
        """The handle of the session `session_id` on the connection being served: for what
        an agent says outside a turn (the replay of `resume_session`, background work),
        sharing the state and background list of the session's turns."""
        peer = current_peer()
        control = _controls.get(self)
        gate = _gates.get(self)
        capabilities = gate.client_capabilities(peer) if gate is not None else None
        if control is None:
            return SessionV2(session_id, ClientProxy(peer), capabilities)
        return SessionV2(
            session_id,
            ClientProxy(peer),
            capabilities,
            _work=control.sessions.of(peer, session_id),
        )

    async def stop_session(self, session_id: str) -> None:
        """Ends everything the session does on this connection, as `session/close` does
        before `close_session` runs: its turns (each reports idle `cancelled` before this
        returns), held prompts (-32800) and background work. For a handler that ends a
        session otherwise, as `delete_session` may; v1's `Session.cancel_turns`."""
        control = _controls.get(self)
        if control is not None:
            await control.stop(current_peer(), session_id)

    def _known_work(self, session_id: str) -> SessionV2 | None:
        control = _controls.get(self)
        work = control.sessions.find(current_peer(), session_id) if control else None
        if work is None:
            return None
        return SessionV2(session_id, ClientProxy(current_peer()), None, _work=work)

    async def cancel_tool_call(self, input: CancelToolCallRequest) -> CancelToolCallResponse:
        """`tool_call/cancel`: cancels a tool call its session's handle made cancellable
        (`start_tool_call(cancel=...)`, `in_background`); -32602 for any other (unknown on
        this connection, already final, or not cancellable), as the draft says."""
        handle = self._known_work(input.session_id)
        if handle is None or not handle.cancel_tool_call(input.tool_call_id):
            raise InvalidParams(
                f"tool call {input.tool_call_id!r} is unknown, final or not cancellable",
                {"sessionId": input.session_id, "toolCallId": input.tool_call_id},
            )
        return CancelToolCallResponse()

    async def cancel_terminal(self, input: CancelTerminalRequest) -> CancelTerminalResponse:
        """`terminal/cancel`: stops a terminal its session's handle made cancellable
        (`run_terminal`, `start_terminal(cancel=...)`); -32602 for any other (unknown on
        this connection, exited, or not cancellable)."""
        handle = self._known_work(input.session_id)
        if handle is None or not handle.cancel_terminal(input.terminal_id):
            raise InvalidParams(
                f"terminal {input.terminal_id!r} is unknown, exited or not cancellable",
                {"sessionId": input.session_id, "terminalId": input.terminal_id},
            )
        return CancelTerminalResponse()

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        peer = current_peer()
        control = _controls.get(self)
        gate = _gates.get(self)
        mine: asyncio.Future[None] | None = None
        before: asyncio.Future[None] | None = None
        try:
            if control is not None:
                # A prompt sent while the session works is held until the turns before it
                # are done, then inserted: in the order received. `session/cancel` (or
                # close) withdraws it with -32800; a prompt sent after the cancel is not
                # affected.
                before, mine = control.queue(peer, input.session_id)
                if before is not None and not await control.hold(peer, input.session_id, before):
                    raise RequestCancelled("Request cancelled: the session's work was cancelled")
            return await self._insert(peer, input, control, gate, mine)
        except BaseException:
            # Withdrawn or failed: the next prompt still waits for the turns before this one.
            if mine is not None:
                if before is not None and not before.done():
                    _follow(before, mine)
                else:
                    _finish(mine)
            raise

    async def _insert(
        self,
        peer: Peer,
        input: PromptRequest,
        control: TurnControlV2 | None,
        gate: InitializeGateV2 | None,
        mine: asyncio.Future[None] | None,
    ) -> PromptResponse:
        turn = TurnV2(
            session_id=input.session_id,
            message_id=new_message_id(),
            prompt=input.prompt,
            client=ClientProxy(peer),
            capabilities=gate.client_capabilities(peer) if gate is not None else None,
        )
        if control is not None:
            # The turn shares the session's state and background list with its other handles.
            turn._work = control.sessions.of(peer, input.session_id)
        await turn.update(
            SessionUpdateUserMessage(message_id=turn.message_id, content=list(input.prompt))
        )
        await turn.update(SessionUpdateStateUpdateRunning())
        if control is not None:
            control.add(peer, turn)
        task = turn._task = asyncio.get_running_loop().create_task(
            self._run(peer, turn, input, control), name=f"acp-v2-turn-{turn.session_id}"
        )
        if mine is not None:
            task.add_done_callback(lambda _: _finish(mine))
        return PromptResponse(message_id=turn.message_id)

    async def _run(
        self, peer: Peer, turn: TurnV2, request: PromptRequest, control: TurnControlV2 | None
    ) -> None:
        stop: StopReasonV2
        try:
            try:
                stop = await self.run_turn(request, turn)
            except asyncio.CancelledError:
                if not turn.cancelled:
                    raise
                stop = "cancelled"
            except Exception:
                log.exception("the turn of session %s failed", turn.session_id)
                stop = "cancelled" if turn.cancelled else "error"
            if turn.cancelled:
                stop = "cancelled"
            try:
                if stop in ("cancelled", "error"):
                    await turn.end_open_tool_calls(
                        ToolCallStatus.CANCELLED if stop == "cancelled" else ToolCallStatus.FAILED
                    )
                await turn.update(idle_update(stop))
            except Exception as error:  # the connection went away
                log.debug("could not end the turn: %r", error)
        finally:
            if control is not None:
                control.discard(peer, turn)


def _follow(before: asyncio.Future[None], mine: asyncio.Future[None]) -> None:
    """`mine` (a withdrawn prompt's place in line) is done once `before` is."""
    before.add_done_callback(lambda _: _finish(mine))


def _finish(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def agent_options_v2(agent: object, options: PeerOptions | None = None) -> PeerOptions:
    """`options` with what a v2 agent needs: the initialize gate, turn cancellation and
    extension methods."""
    base = options if options is not None else PeerOptions()
    # One gate and one turn control per agent, whatever number of connections it serves
    # (both keep their state per connection): `prompt` finds them by the agent.
    gate = _gates.get(agent) or InitializeGateV2()
    turns = _controls.get(agent) or TurnControlV2()
    _gates[agent] = gate
    _controls[agent] = turns
    admit: RequestAdmission = gate.admit
    if base.admit_request is not None:
        first, second = gate.admit, base.admit_request

        def admit(method: str) -> None:
            first(method)
            second(method)

    return acp_options(
        base,
        admit_request=admit,
        interceptors=(gate, turns, *base.interceptors),
        fallback=base.fallback if base.fallback is not None else extension_fallback(agent),
    )
