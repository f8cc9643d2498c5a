"""The agent's handle on one session: what a turn says and asks, bound to its session id.

Inside the handler of any call that names a session (`prompt`, `load_session`,
`resume_session`, `set_mode`, `set_config_option`, `close_session`, `delete_session`,
`cancel`, and the unstable surface's `session/*` calls), `current_session()` is the session
the call names, on the connection it came from:

    session = current_session()
    await session.send_text("Looking…")
    call = await session.start_tool_call("Read README.md", kind=ToolKind.READ)
    choice = await session.request_permission(call)
    if choice is not None and choice.kind is PermissionOptionKind.ALLOW_ONCE:
        text = await session.read_text_file("/project/README.md")
        await session.update_tool_call(call, status=ToolCallStatus.COMPLETED, content=text)

Every method but `cancel_turns` is one ACP message (`session/update`,
`session/request_permission`, `fs/*`, `terminal/*`) with the session id filled in: nothing
here changes what goes on the wire.
Calls the client did not offer in `initialize` (`fs.readTextFile`, `fs.writeTextFile`,
`terminal`) raise `Unsupported` without being sent, since ACP forbids sending them.
"""

from __future__ import annotations

import contextvars
import uuid
from collections.abc import Awaitable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from idlc_acp.errors import TypedErrors
from idlc_acp.initialization import InitializeGate
from idlc_acp.protocol import (
    ClientCapabilities,
    ClientProxy,
    ContentBlock,
    ContentBlockText,
    CreateTerminalRequest,
    EnvVariable,
    KillTerminalRequest,
    PermissionOption,
    PermissionOptionKind,
    PlanEntry,
    ReadTextFileRequest,
    ReleaseTerminalRequest,
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    SessionNotification,
    SessionUpdate,
    SessionUpdateAgentMessageChunk,
    SessionUpdateAgentThoughtChunk,
    SessionUpdatePlan,
    SessionUpdateToolCall,
    SessionUpdateToolCallUpdate,
    TerminalOutputRequest,
    TerminalOutputResponse,
    ToolCallContent,
    ToolCallContentContent,
    ToolCallContentTerminal,
    ToolCallLocation,
    ToolCallStatus,
    ToolCallUpdate,
    ToolKind,
    WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
    WriteTextFileRequest,
)
from idlc_runtime import CallInfo, Peer, Proceed, ProtocolError, Unsupported, current_peer
from idlc_runtime.hooks import JsonValue

if TYPE_CHECKING:
    # Only for its type: `idlc_acp.agent` imports this module.
    from idlc_acp.agent import TurnControl

#: The options `request_permission` offers unless told otherwise.
ALLOW_ONCE = PermissionOption(
    option_id="allow-once", name="Allow", kind=PermissionOptionKind.ALLOW_ONCE
)
REJECT_ONCE = PermissionOption(
    option_id="reject-once", name="Reject", kind=PermissionOptionKind.REJECT_ONCE
)


def tool_text(text: str) -> ToolCallContentContent:
    """A tool call's content item holding one text block."""
    return ToolCallContentContent(content=ContentBlockText(text=text))


def _content(content: Sequence[ToolCallContent] | str | None) -> list[ToolCallContent] | None:
    if content is None:
        return None
    if isinstance(content, str):
        return [tool_text(content)]
    return list(content)


class TerminalHandle:
    """A terminal the client runs for the agent (`terminal/create`); release it when done.

    `async with await session.create_terminal(...) as terminal:` releases it on the way out.
    """

    __slots__ = ("_session", "id", "_released")

    def __init__(self, session: Session, terminal_id: str) -> None:
        self._session = session
        #: The client's terminal id.
        self.id = terminal_id
        self._released = False

    def content(self) -> ToolCallContentTerminal:
        """The tool call content that shows this terminal live in the client."""
        return ToolCallContentTerminal(terminal_id=self.id)

    async def output(self) -> TerminalOutputResponse:
        """What it printed so far (and its exit status once it exited)."""
        return await self._session.client.terminal_output(
            TerminalOutputRequest(session_id=self._session.session_id, terminal_id=self.id)
        )

    async def wait_for_exit(self) -> WaitForTerminalExitResponse:
        return await self._session.client.wait_for_terminal_exit(
            WaitForTerminalExitRequest(session_id=self._session.session_id, terminal_id=self.id)
        )

    async def kill(self) -> None:
        """Stops the command; the terminal stays until released."""
        await self._session.client.kill_terminal(
            KillTerminalRequest(session_id=self._session.session_id, terminal_id=self.id)
        )

    async def release(self) -> None:
        """Kills the command if it still runs and frees the terminal (once; later calls do
        nothing)."""
        if self._released:
            return
        self._released = True
        await self._session.client.release_terminal(
            ReleaseTerminalRequest(session_id=self._session.session_id, terminal_id=self.id)
        )

    async def __aenter__(self) -> TerminalHandle:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.release()


class Session:
    """One session of one client, as an agent talks to it.

    `client` is the client's proxy (error responses come back as `idlc_acp.errors` classes),
    `capabilities` what it offered in `initialize`.
    """

    __slots__ = ("client", "session_id", "capabilities", "_peer", "_turns")

    def __init__(
        self, client: ClientProxy, session_id: str, capabilities: ClientCapabilities
    ) -> None:
        self.client = client
        self.session_id = session_id
        self.capabilities = capabilities
        #: The connection and the `TurnControl` keeping its turns (`cancel_turns`).
        self._peer: Peer | None = None
        self._turns: TurnControl | None = None

    @classmethod
    def on(
        cls,
        peer: Peer,
        session_id: str,
        capabilities: ClientCapabilities,
        turns: TurnControl | None = None,
    ) -> Session:
        """The session `session_id` of the client on `peer`; `turns` is what keeps the
        connection's turns (`agent_options` makes one), for `cancel_turns`."""
        session = cls(ClientProxy(TypedErrors(peer)), session_id, capabilities)
        session._peer = peer
        session._turns = turns
        return session

    # ------------------------------------------------------------ its turns

    async def cancel_turns(self) -> int:
        """Cancels the session's running `session/prompt` turns, as `session/cancel` does,
        and waits until each has answered (`cancelled`, unless the agent answered otherwise);
        how many there were. The turn calling it goes on.

        No message of its own: for a handler that stops a session's work, as
        `delete_session` may (`session/close` does it before `close_session` runs)."""
        if self._peer is None or self._turns is None:
            raise RuntimeError(
                "cancel_turns() needs the connection's turns: use current_session(), or "
                "Session.on(peer, session_id, capabilities, turns)"
            )
        return await self._turns.cancel_and_wait(self._peer, self.session_id)

    # ------------------------------------------------------------ session/update

    async def update(self, update: SessionUpdate) -> None:
        """Sends any `session/update` for this session."""
        await self.client.update(SessionNotification(session_id=self.session_id, update=update))

    async def send(self, content: ContentBlock) -> None:
        """An `agent_message_chunk` holding `content`."""
        await self.update(SessionUpdateAgentMessageChunk(content=content))

    async def send_text(self, text: str) -> None:
        """An `agent_message_chunk` holding `text`."""
        await self.send(ContentBlockText(text=text))

    async def send_thought(self, text: str) -> None:
        """An `agent_thought_chunk` holding `text`."""
        await self.update(SessionUpdateAgentThoughtChunk(content=ContentBlockText(text=text)))

    async def plan(self, entries: Sequence[PlanEntry]) -> None:
        """The whole plan as it stands (the client replaces its copy with each one)."""
        await self.update(SessionUpdatePlan(entries=list(entries)))

    async def start_tool_call(
        self,
        title: str,
        *,
        kind: ToolKind | None = None,
        status: ToolCallStatus | None = ToolCallStatus.PENDING,
        locations: Sequence[ToolCallLocation] | None = None,
        content: Sequence[ToolCallContent] | str | None = None,
        raw_input: JsonValue | None = None,
        tool_call_id: str | None = None,
    ) -> ToolCallUpdate:
        """Announces a tool call (`tool_call`); returns what names it in later calls.

        The id is made up unless given; the result carries it with the title and kind, as a
        permission request about the call shows them.
        """
        call_id = tool_call_id if tool_call_id is not None else f"call-{uuid.uuid4().hex}"
        await self.update(
            SessionUpdateToolCall(
                tool_call_id=call_id,
                title=title,
                kind=kind,
                status=status,
                locations=None if locations is None else list(locations),
                content=_content(content),
                raw_input=raw_input,
            )
        )
        return ToolCallUpdate(tool_call_id=call_id, title=title, kind=kind)

    async def update_tool_call(
        self,
        tool_call: ToolCallUpdate | str,
        *,
        status: ToolCallStatus | None = None,
        title: str | None = None,
        kind: ToolKind | None = None,
        content: Sequence[ToolCallContent] | str | None = None,
        locations: Sequence[ToolCallLocation] | None = None,
        raw_output: JsonValue | None = None,
    ) -> None:
        """Reports progress of a tool call (`tool_call_update`): only what is given changes;
        `content` given as a string is one text block."""
        await self.update(
            SessionUpdateToolCallUpdate(
                tool_call_id=_tool_call_id(tool_call),
                status=status,
                title=title,
                kind=kind,
                content=_content(content),
                locations=None if locations is None else list(locations),
                raw_output=raw_output,
            )
        )

    # ------------------------------------------------------------ requests

    async def request_permission(
        self,
        tool_call: ToolCallUpdate | str,
        options: Sequence[PermissionOption] = (ALLOW_ONCE, REJECT_ONCE),
    ) -> PermissionOption | None:
        """Asks the user about a tool call: the option chosen, or None when the client
        answered `cancelled` (the turn is being cancelled).

        A client that picks an option that was not offered gets nothing it did not ask for:
        that answer raises `ProtocolError`.
        """
        if not options:
            raise ValueError("a permission request offers at least one option")
        call = ToolCallUpdate(tool_call_id=tool_call) if isinstance(tool_call, str) else tool_call
        answer = await self.client.request_permission(
            RequestPermissionRequest(
                session_id=self.session_id, tool_call=call, options=list(options)
            )
        )
        outcome = answer.outcome
        if not isinstance(outcome, RequestPermissionOutcomeSelected):
            return None
        for option in options:
            if option.option_id == outcome.option_id:
                return option
        raise ProtocolError(
            f"the client chose permission option {outcome.option_id!r}, which was not offered",
            {"optionId": outcome.option_id, "offered": [o.option_id for o in options]},
        )

    async def read_text_file(
        self, path: str, *, line: int | None = None, limit: int | None = None
    ) -> str:
        """The text of the client's file `path` (absolute), from `line` (1-based) for `limit`
        lines; as the editor has it, unsaved changes included."""
        fs = self.capabilities.fs
        if not fs.read_text_file:
            raise Unsupported("fs/read_text_file", "the client did not offer fs.readTextFile")
        answer = await self.client.read_text_file(
            ReadTextFileRequest(session_id=self.session_id, path=path, line=line, limit=limit)
        )
        return answer.content

    async def write_text_file(self, path: str, content: str) -> None:
        """Writes `content` to the client's file `path` (absolute)."""
        fs = self.capabilities.fs
        if not fs.write_text_file:
            raise Unsupported("fs/write_text_file", "the client did not offer fs.writeTextFile")
        await self.client.write_text_file(
            WriteTextFileRequest(session_id=self.session_id, path=path, content=content)
        )

    async def create_terminal(
        self,
        command: str,
        *,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
    ) -> TerminalHandle:
        """Runs `command` in a new terminal of the client."""
        if not self.capabilities.terminal:
            raise Unsupported("terminal/create", "the client did not offer terminal")
        answer = await self.client.create_terminal(
            CreateTerminalRequest(
                session_id=self.session_id,
                command=command,
                args=list(args) or None,
                env=(
                    None
                    if env is None
                    else [EnvVariable(name=name, value=value) for name, value in env.items()]
                ),
                cwd=cwd,
                output_byte_limit=output_byte_limit,
            )
        )
        return TerminalHandle(self, answer.terminal_id)


def _tool_call_id(tool_call: ToolCallUpdate | str) -> str:
    return tool_call if isinstance(tool_call, str) else tool_call.tool_call_id


#: What makes the current call's `Session`: its connection, session id, the gate that knows
#: the client's capabilities and what keeps the connection's turns (the handle itself is
#: made when asked for).
_current_session: contextvars.ContextVar[tuple[Peer, str, InitializeGate, TurnControl | None]] = (
    contextvars.ContextVar("idlc_acp_session")
)


def current_session() -> Session:
    """The session the call being handled names (`SessionScope.methods`)."""
    try:
        peer, session_id, gate, turns = _current_session.get()
    except LookupError:
        raise RuntimeError(
            "current_session() is only available while handling a call that names a "
            "session (session/prompt, session/load, session/set_mode, session/close, ...)"
        ) from None
    capabilities = gate.client_capabilities(peer) or ClientCapabilities()
    return Session.on(peer, session_id, capabilities, turns)


class SessionScope:
    """Interceptor: makes `current_session()` the session a call names while it is handled.

    Every call whose params carry a `sessionId` of a session that exists already: ACP v1's,
    and the unstable surface's (`session/fork` names the session it forks). `session/new`
    and `session/list` name none: what `new_session` says of the session it makes goes
    through `current_client()`.
    """

    #: The only calls it wraps (`idlc_runtime.rpc.interceptors.applies_to`); others skip it.
    #: tests/acp/test_session_lifecycle.py checks it against the vendored schemas.
    methods = frozenset(
        {
            "session/prompt",
            "session/cancel",
            "session/load",
            "session/resume",
            "session/close",
            "session/delete",
            "session/set_mode",
            "session/set_config_option",
            # The unstable surface (idlc_acp.unstable).
            "session/fork",
            "session/archive",
            "session/unarchive",
            "session/set_title",
            "session/status",
        }
    )

    def __init__(self, gate: InitializeGate, turns: TurnControl | None = None) -> None:
        self._gate = gate
        self._turns = turns

    def __call__(self, call: CallInfo, proceed: Proceed) -> Awaitable[Any]:
        if call.method in self.methods:
            # The handler runs in its own copy of the context (idlc_runtime.rpc.eager, and
            # the ordered worker's copy per notification), so this binding ends with the call.
            _current_session.set((current_peer(), call.params.session_id, self._gate, self._turns))
        return proceed()
