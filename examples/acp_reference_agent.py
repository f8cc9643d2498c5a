"""An ACP agent with every v1 session capability: `python examples/acp_reference_agent.py`.

It keeps notes: every prompt is noted in its session, and the answer describes each block
of it (text, image, audio, a link, an embedded resource). Around that it implements, and so
advertises, everything of ACP v1's session model that idlc_acp has:

- `authenticate` with one auth method and `logout`: every session method answers -32000
  (`AuthRequired`) until the client has signed in, and again after it signed out. Signing
  in stands for what a real agent does (a browser login): here it always succeeds for the
  method offered; what the example shows is the protocol's flow around it;
- `session/new`, `session/prompt`, `session/cancel` (done by idlc_acp);
- `session/load`, which replays the session's conversation as `session/update`s before it
  answers; `session/resume`, which reopens a session without replaying it;
- `session/list` (filtered by `cwd`, in pages), `session/close` (idlc_acp cancels a running
  turn first; the session's activity ends and it stays listed), `session/delete` (cancels a
  running turn through `current_session().cancel_turns()`, then forgets the session);
- `additionalDirectories` on new, load and resume: a link or resource in a prompt is said to
  be inside or outside the session's folders;
- two session modes (`session/set_mode`, announced with a `current_mode_update`): `auto`
  keeps every note, `ask` asks permission first;
- one config option (`session/set_config_option`): `reply` describes each block or counts;
- image, audio and embedded-context prompts.

Sessions belong to the connection that made them: each connection has an agent object of
its own, which knows only its own sessions, so another connection's session id is answered
as an unknown one (-32002), telling nothing of it. Session ids are unguessable
(`secrets.token_urlsafe`): with `--listen HOST:PORT` many clients share the process (one
agent per connection, as `examples/acp_echo_agent.py --listen` does), and an id travels in
headers and logs.

It serves the ACP v2 draft beside v1 (on stdio and on each `--listen` connection, unless
`--v1-only`), the client's `initialize` choosing (docs/acp.md, "Serving v1 and v2").
`ReferenceAgentV2` is the same agent in v2's shape, with v2's counterparts: `auth/login` and
`auth/logout`; `session/resume` with `replayFrom` (v1's load) or without (v1's resume), the
state snapshot after it sent by idlc_acp; the mode as a config option of the `mode`
category; and slash commands that show the rest of a v2 session: `/plan` (a plan and the context usage), `/watch` (an agent-owned terminal that outlives the
turn as background work until `terminal/cancel`), `/remind` (a background tool call until
`tool_call/cancel`) and `/name` (a form elicitation, when the client offers forms). One
`ReferenceAgentV2` may serve many connections: it keeps each one's sign-in and sessions.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import os
import secrets
import sys
import weakref
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from urllib.parse import unquote, urlparse

from idlc_acp import (
    ALLOW_ONCE,
    Agent,
    AuthenticateRequest,
    AuthenticateResponse,
    AuthMethodDefault,
    AuthRequired,
    BlobResourceContents,
    CloseSessionRequest,
    CloseSessionResponse,
    ContentBlock,
    ContentBlockAudio,
    ContentBlockImage,
    ContentBlockResource,
    ContentBlockResourceLink,
    ContentBlockText,
    DeleteSessionRequest,
    DeleteSessionResponse,
    Implementation,
    InitializeRequest,
    InitializeResponse,
    InvalidParams,
    ListSessionsRequest,
    ListSessionsResponse,
    LoadSessionRequest,
    LoadSessionResponse,
    LogoutRequest,
    LogoutResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptCapabilities,
    PromptRequest,
    PromptResponse,
    ResourceNotFound,
    ResumeSessionRequest,
    ResumeSessionResponse,
    SessionConfigOption,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionInfo,
    SessionMode,
    SessionModeState,
    SessionUpdate,
    SessionUpdateAgentMessageChunk,
    SessionUpdateCurrentModeUpdate,
    SessionUpdateUserMessageChunk,
    SetSessionConfigOptionRequest,
    SetSessionConfigOptionRequestDefault,
    SetSessionConfigOptionResponse,
    SetSessionModeRequest,
    SetSessionModeResponse,
    StopReason,
    ToolCallStatus,
    ToolKind,
    __version__,
    agent_capabilities,
    agent_main,
    current_session,
    negotiate_protocol_version,
    v2,
)
from idlc_acp.errors import AcpError
from idlc_acp.v2_agent import PROTOCOL_VERSION_V2, AgentV2, StopReasonV2, TurnV2
from idlc_runtime import Peer, RpcError, current_peer

#: The one way to sign in. Without a `type` it is an `agent` method: the agent signs the
#: user in itself when the client calls `authenticate` with its id.
SIGN_IN = AuthMethodDefault(
    id="local-user",
    name="Sign in as the local user",
    description="Stands for a real sign-in: always succeeds.",
)

MODES = [
    SessionMode(id="auto", name="Auto", description="Keeps every note."),
    SessionMode(id="ask", name="Ask", description="Asks before keeping a note."),
]

#: The `reply` config option's values: the first is the default.
REPLIES = [
    SessionConfigSelectOption(value="describe", name="Describe each block"),
    SessionConfigSelectOption(value="count", name="Count the blocks"),
]

#: How many sessions one `session/list` answer holds; `nextCursor` gives the rest.
LIST_PAGE = 20


@dataclass
class SessionPlace:
    """What a session of either version has: where it works, how it answers, when it was
    last used."""

    session_id: str
    cwd: str
    additional_directories: list[str]
    mode_id: str = MODES[0].id
    reply: str = REPLIES[0].value
    title: str | None = None
    updated_at: str = ""
    #: Whether it takes prompts: after `session/close`, only once loaded or resumed again.
    active: bool = True

    def touch(self) -> None:
        self.updated_at = datetime.now(UTC).isoformat(timespec="seconds")

    def inside(self, path: str) -> bool:
        return inside_folders(path, [self.cwd, *self.additional_directories])


@dataclass
class NotesSession(SessionPlace):
    """One session: where it works, how it answers, what was said in it."""

    #: The conversation as `session/update`s, the user's prompts included: what a
    #: `session/load` replays.
    history: list[SessionUpdate] = field(default_factory=list)

    def modes(self) -> SessionModeState:
        return SessionModeState(current_mode_id=self.mode_id, available_modes=MODES)

    def config_options(self) -> list[SessionConfigOption]:
        return [
            SessionConfigOptionSelect(
                id="reply", name="Reply", current_value=self.reply, options=REPLIES
            )
        ]

    def info(self) -> SessionInfo:
        return SessionInfo(
            session_id=self.session_id,
            cwd=self.cwd,
            additional_directories=self.additional_directories or None,
            title=self.title,
            updated_at=self.updated_at,
        )


def inside_folders(path: str, folders: list[str]) -> bool:
    """Whether `path` lies in one of a session's folders (its cwd or an additional one)."""
    path = os.path.normpath(path)
    roots = [os.path.normpath(root) for root in folders]
    return any(os.path.commonpath([path, root]) == root for root in roots)


class ReferenceAgent(Agent):
    """One connection's agent: its sign-in and its sessions, shared with no other."""

    def __init__(self) -> None:
        self.signed_in = False
        #: This connection's sessions, by id, in the order they were made.
        self.sessions: dict[str, NotesSession] = {}

    # -- initialize and signing in ------------------------------------------------------

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        # What methods say is derived from the class; which prompts it reads and that it
        # honours `additionalDirectories` (a field of requests) are said here.
        capabilities = agent_capabilities(
            self,
            prompt=PromptCapabilities(image=True, audio=True, embedded_context=True),
            additional_directories=True,
        )
        return InitializeResponse(
            protocol_version=negotiate_protocol_version(input.protocol_version),
            agent_capabilities=capabilities,
            auth_methods=[SIGN_IN],
            agent_info=Implementation(
                name="idlc-reference-agent", title="idlc reference agent", version=__version__
            ),
        )

    async def authenticate(self, input: AuthenticateRequest) -> AuthenticateResponse:
        if input.method_id != SIGN_IN.id:
            raise InvalidParams(
                f"unknown auth method {input.method_id!r}", {"methodId": input.method_id}
            )
        self.signed_in = True
        return AuthenticateResponse()

    async def logout(self, input: LogoutRequest) -> LogoutResponse:
        # Signing out ends the sign-in, not the sessions: they are the connection's, and
        # answer again once it signed in again.
        self.signed_in = False
        return LogoutResponse()

    def require_sign_in(self) -> None:
        if not self.signed_in:
            raise AuthRequired(
                f"Authentication required: sign in with authenticate({SIGN_IN.id!r})"
            )

    def own(self, session_id: str) -> NotesSession:
        """This connection's session `session_id`: another's is as unknown as no session."""
        self.require_sign_in()
        found = self.sessions.get(session_id)
        if found is None:
            raise ResourceNotFound.session(session_id)
        return found

    def active(self, session_id: str) -> NotesSession:
        """`own`, and it must not be closed: a closed session is loaded or resumed first."""
        found = self.own(session_id)
        if not found.active:
            raise ResourceNotFound(
                f"Session {session_id} is closed: load or resume it first",
                {"sessionId": session_id},
            )
        return found

    # -- making, finding and ending sessions --------------------------------------------

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        self.require_sign_in()
        folders = checked_folders(input.cwd, input.additional_directories)
        session = NotesSession(f"ref-{secrets.token_urlsafe(16)}", input.cwd, folders)
        session.touch()
        self.sessions[session.session_id] = session
        return NewSessionResponse(
            session_id=session.session_id,
            modes=session.modes(),
            config_options=session.config_options(),
        )

    async def load_session(self, input: LoadSessionRequest) -> LoadSessionResponse:
        session = self.reopen(input.session_id, input.cwd, input.additional_directories)
        # The replay comes before the answer: the client knows the history is complete
        # when `session/load` answers.
        replay = current_session()
        for update in session.history:
            await replay.update(update)
        return LoadSessionResponse(modes=session.modes(), config_options=session.config_options())

    async def resume_session(self, input: ResumeSessionRequest) -> ResumeSessionResponse:
        session = self.reopen(input.session_id, input.cwd, input.additional_directories)
        return ResumeSessionResponse(modes=session.modes(), config_options=session.config_options())

    def reopen(self, session_id: str, cwd: str, folders: list[str] | None) -> NotesSession:
        """The session, active again with the folders the request names (the schema: the
        complete list, which may differ from before as long as `cwd` is the session's)."""
        session = self.own(session_id)
        if cwd != session.cwd:
            raise InvalidParams(
                f"session {session_id} works in {session.cwd}, not {cwd}",
                {"sessionId": session_id, "cwd": cwd},
            )
        session.additional_directories = checked_folders(cwd, folders)
        session.active = True
        session.touch()
        return session

    async def list_sessions(self, input: ListSessionsRequest) -> ListSessionsResponse:
        self.require_sign_in()
        listed = [s for s in self.sessions.values() if input.cwd in (None, s.cwd)]
        start = page_start(input.cursor)
        end = start + LIST_PAGE
        return ListSessionsResponse(
            sessions=[session.info() for session in listed[start:end]],
            next_cursor=str(end) if end < len(listed) else None,
        )

    async def close_session(self, input: CloseSessionRequest) -> CloseSessionResponse:
        # idlc_acp has cancelled the session's running turns, and they have answered
        # `cancelled`, before this runs (the schema: as if `session/cancel` was called).
        self.active(input.session_id).active = False
        return CloseSessionResponse()

    async def delete_session(self, input: DeleteSessionRequest) -> DeleteSessionResponse:
        self.own(input.session_id)
        # What deleting does to a running session is the agent's to say: here it ends its
        # turns as a close does, then forgets it.
        await current_session().cancel_turns()
        # Popped, not deleted: a second delete may have come while the turns ended.
        self.sessions.pop(input.session_id, None)
        return DeleteSessionResponse()

    # -- modes and config options --------------------------------------------------------

    async def set_mode(self, input: SetSessionModeRequest) -> SetSessionModeResponse:
        session = self.active(input.session_id)
        if input.mode_id not in {mode.id for mode in MODES}:
            raise InvalidParams(f"unknown mode {input.mode_id!r}", {"modeId": input.mode_id})
        session.mode_id = input.mode_id
        # Every view of the session learns the change, not just the one that asked.
        await current_session().update(
            SessionUpdateCurrentModeUpdate(current_mode_id=session.mode_id)
        )
        return SetSessionModeResponse()

    async def set_config_option(
        self, input: SetSessionConfigOptionRequest
    ) -> SetSessionConfigOptionResponse:
        session = self.active(input.session_id)
        values = {reply.value for reply in REPLIES}
        if input.config_id != "reply":
            raise InvalidParams(f"unknown config option {input.config_id!r}")
        if not isinstance(input, SetSessionConfigOptionRequestDefault) or input.value not in values:
            raise InvalidParams(f"reply is one of {sorted(values)}, not {input.value!r}")
        session.reply = input.value
        return SetSessionConfigOptionResponse(config_options=session.config_options())

    # -- the turn --------------------------------------------------------------------------

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        # A `session/cancel`, `session/close` or `session/delete` cancels the turn at its
        # next await; idlc_acp then answers `cancelled`.
        return await self.note(self.active(input.session_id), input.prompt)

    async def note(self, session: NotesSession, prompt: list[ContentBlock]) -> PromptResponse:
        # Described first: a block that cannot be read (bad base64) fails the prompt before
        # anything is noted.
        described = "; ".join(describe(block, session) for block in prompt)
        handle = current_session()
        session.history += [SessionUpdateUserMessageChunk(content=block) for block in prompt]
        if session.title is None:
            session.title = next(
                (block.text[:40] for block in prompt if isinstance(block, ContentBlockText)), None
            )
        session.touch()
        if session.mode_id == "ask":
            call = await handle.start_tool_call("Keep this note", kind=ToolKind.EDIT)
            choice = await handle.request_permission(call)
            if choice is None:
                # The client answered `cancelled`: it is cancelling the turn.
                return PromptResponse(stop_reason=StopReason.CANCELLED)
            if choice is not ALLOW_ONCE:
                await handle.update_tool_call(call, status=ToolCallStatus.FAILED)
                return await self.reply(session, "Not noted.")
            await handle.update_tool_call(call, status=ToolCallStatus.COMPLETED)
        if session.reply == "count":
            return await self.reply(session, f"Noted {len(prompt)} block(s).")
        return await self.reply(session, f"Noted: {described}")

    async def reply(self, session: NotesSession, text: str) -> PromptResponse:
        update = SessionUpdateAgentMessageChunk(content=ContentBlockText(text=text))
        session.history.append(update)
        await current_session().update(update)
        return PromptResponse(stop_reason=StopReason.END_TURN)


def describe(block: ContentBlock, session: NotesSession) -> str:
    """One prompt block, said back: what it is, how big, where it points."""
    if isinstance(block, ContentBlockText):
        return f'text "{block.text[:60]}"'
    if isinstance(block, ContentBlockImage):
        return f"image ({block.mime_type}, {decoded_size(block.data)} bytes)"
    if isinstance(block, ContentBlockAudio):
        return f"audio ({block.mime_type}, {decoded_size(block.data)} bytes)"
    if isinstance(block, ContentBlockResourceLink):
        return f"link {block.uri}{where(block.uri, session)}"
    assert isinstance(block, ContentBlockResource)
    resource = block.resource
    if isinstance(resource, BlobResourceContents):
        size = f"{decoded_size(resource.blob)} bytes"
    else:
        size = f"{len(resource.text)} characters"
    return f"resource {resource.uri} ({size}){where(resource.uri, session)}"


def where(uri: str, session: SessionPlace) -> str:
    """For a `file:` URI, whether it is inside the session's folders."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return ""
    inside = session.inside(unquote(parsed.path))
    return " inside the session's folders" if inside else " outside the session's folders"


def decoded_size(data: str) -> int:
    """The size of base64 `data` (images, audio, blobs travel so)."""
    try:
        return len(base64.b64decode(data, validate=True))
    except binascii.Error:
        raise InvalidParams("content data is not base64") from None


def checked_folders(cwd: str, folders: list[str] | None) -> list[str]:
    """The session's additional folders; like `cwd`, each must be absolute (the schema)."""
    for path in [cwd, *(folders or [])]:
        if not os.path.isabs(path):
            raise InvalidParams(f"{path!r} is not an absolute path", {"path": path})
    return list(folders or [])


def page_start(cursor: str | None) -> int:
    """Where a `session/list` page starts: its cursor is the offset the last page ended at."""
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise InvalidParams(f"not a cursor of this agent: {cursor!r}", {"cursor": cursor})
    return int(cursor)


# ---------------------------------------------------------------- the same agent in ACP v2

#: v2's way to sign in: an `agent` method, taken by `auth/login`.
SIGN_IN_V2 = v2.AuthMethodAgent(
    method_id=SIGN_IN.id, name=SIGN_IN.name, description=SIGN_IN.description
)

#: v2 has no session modes: the mode is a config option of the `mode` category.
MODES_V2 = [v2.SessionConfigSelectOption(value=m.id, name=m.name) for m in MODES]
REPLIES_V2 = [v2.SessionConfigSelectOption(value=r.value, name=r.name) for r in REPLIES]

#: The slash commands a v2 session offers: each shows one more part of the v2 session.
COMMANDS_V2 = [
    v2.AvailableCommandCommand(name="plan", description="Shows the notes as a plan."),
    v2.AvailableCommandCommand(
        name="watch", description="Starts a terminal that runs in the background."
    ),
    v2.AvailableCommandCommand(
        name="remind", description="Starts a reminder that waits in the background."
    ),
    v2.AvailableCommandCommand(name="name", description="Asks your name (a form)."),
]

#: What `/watch` runs: a process that keeps running until it is cancelled.
WATCHER = [
    sys.executable,
    "-c",
    # One write, so the line comes whole even unbuffered (PYTHONUNBUFFERED).
    "import sys, time\nsys.stdout.write('watching\\n')\nsys.stdout.flush()\n"
    "while True: time.sleep(1)",
]


@dataclass
class NotesSessionV2(SessionPlace):
    """One v2 session: as `NotesSession`, its history in v2's shape (user messages and
    agent message chunks, each with its `messageId`: what `replayFrom` replays)."""

    history: list[v2.SessionUpdate] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def config_options(self) -> list[v2.SessionConfigOption]:
        return [
            v2.SessionConfigOptionSelect(
                config_id="mode",
                name="Mode",
                category=v2.SessionConfigOptionCategory.MODE,
                current_value=self.mode_id,
                options=MODES_V2,
            ),
            v2.SessionConfigOptionSelect(
                config_id="reply", name="Reply", current_value=self.reply, options=REPLIES_V2
            ),
        ]

    def info(self) -> v2.SessionInfo:
        return v2.SessionInfo(
            session_id=self.session_id,
            cwd=self.cwd,
            additional_directories=self.additional_directories or None,
            title=self.title,
            updated_at=self.updated_at,
        )


@dataclass
class Connection:
    """What one v2 connection has: its sign-in and its sessions, shared with no other."""

    signed_in: bool = False
    sessions: dict[str, NotesSessionV2] = field(default_factory=dict)


class ReferenceAgentV2(AgentV2):
    """The reference agent in ACP v2's shape. One object may serve many connections
    (idlc_acp keeps a v2 agent's turns per connection): each connection's sign-in and
    sessions are its own, so another connection's session id is as unknown as none."""

    def __init__(self) -> None:
        self.connections: weakref.WeakKeyDictionary[Peer, Connection] = weakref.WeakKeyDictionary()

    def connection(self) -> Connection:
        peer = current_peer()
        found = self.connections.get(peer)
        if found is None:
            found = self.connections[peer] = Connection()
        return found

    # -- initialize and signing in ------------------------------------------------------

    async def initialize(self, input: v2.InitializeRequest) -> v2.InitializeResponse:
        # v2's baseline (`session: {}`) is new, list, resume, close, prompt and cancel;
        # delete, additional directories and the prompt content beyond text and links are
        # said here.
        return v2.InitializeResponse(
            protocol_version=PROTOCOL_VERSION_V2,
            info=v2.Implementation(
                name="idlc-reference-agent", title="idlc reference agent", version=__version__
            ),
            capabilities=v2.AgentCapabilities(
                session=v2.SessionCapabilities(
                    prompt=v2.PromptCapabilities(
                        image=v2.PromptImageCapabilities(),
                        audio=v2.PromptAudioCapabilities(),
                        embedded_context=v2.PromptEmbeddedContextCapabilities(),
                    ),
                    delete=v2.SessionDeleteCapabilities(),
                    additional_directories=v2.SessionAdditionalDirectoriesCapabilities(),
                )
            ),
            auth_methods=[SIGN_IN_V2],
        )

    async def login(self, input: v2.LoginAuthRequest) -> v2.LoginAuthResponse:
        if input.method_id != SIGN_IN_V2.method_id:
            raise InvalidParams(
                f"unknown auth method {input.method_id!r}", {"methodId": input.method_id}
            )
        self.connection().signed_in = True
        return v2.LoginAuthResponse()

    async def logout(self, input: v2.LogoutAuthRequest) -> v2.LogoutAuthResponse:
        self.connection().signed_in = False
        return v2.LogoutAuthResponse()

    def require_sign_in(self) -> Connection:
        connection = self.connection()
        if not connection.signed_in:
            raise AuthRequired(
                f"Authentication required: sign in with auth/login({SIGN_IN_V2.method_id!r})"
            )
        return connection

    def own(self, session_id: str) -> NotesSessionV2:
        found = self.require_sign_in().sessions.get(session_id)
        if found is None:
            raise ResourceNotFound.session(session_id)
        return found

    def active(self, session_id: str) -> NotesSessionV2:
        found = self.own(session_id)
        if not found.active:
            raise ResourceNotFound(
                f"Session {session_id} is closed: resume it first", {"sessionId": session_id}
            )
        return found

    # -- making, finding and ending sessions --------------------------------------------

    async def new_session(self, input: v2.NewSessionRequest) -> v2.NewSessionResponse:
        connection = self.require_sign_in()
        folders = checked_folders(input.cwd, input.additional_directories)
        session = NotesSessionV2(f"ref-{secrets.token_urlsafe(16)}", input.cwd, folders)
        session.touch()
        connection.sessions[session.session_id] = session
        return v2.NewSessionResponse(
            session_id=session.session_id,
            config_options=session.config_options(),
            available_commands=list(COMMANDS_V2),
        )

    async def resume_session(self, input: v2.ResumeSessionRequest) -> v2.ResumeSessionResponse:
        """v2's `session/resume` is v1's load and resume in one: with `replayFrom` it
        replays the conversation first. idlc_acp then sends the state snapshot, before the
        answer."""
        session = self.own(input.session_id)
        if input.replay_from is not None and not isinstance(input.replay_from, v2.ReplayFromStart):
            raise InvalidParams("replayFrom: this agent replays from the start only")
        if input.cwd != session.cwd:
            raise InvalidParams(
                f"session {input.session_id} works in {session.cwd}, not {input.cwd}",
                {"sessionId": input.session_id, "cwd": input.cwd},
            )
        session.additional_directories = checked_folders(input.cwd, input.additional_directories)
        session.active = True
        session.touch()
        if input.replay_from is not None:
            await self.session(session.session_id).replay(session.history)
        return v2.ResumeSessionResponse(
            config_options=session.config_options(), available_commands=list(COMMANDS_V2)
        )

    async def list_sessions(self, input: v2.ListSessionsRequest) -> v2.ListSessionsResponse:
        sessions = self.require_sign_in().sessions.values()
        listed = [s for s in sessions if input.cwd in (None, s.cwd)]
        start = page_start(input.cursor)
        end = start + LIST_PAGE
        return v2.ListSessionsResponse(
            sessions=[session.info() for session in listed[start:end]],
            next_cursor=str(end) if end < len(listed) else None,
        )

    async def close_session(self, input: v2.CloseSessionRequest) -> v2.CloseSessionResponse:
        # idlc_acp has ended the session's turns (idle `cancelled`) and stopped its
        # background work (the watcher's exit, the reminder `cancelled`) before this runs.
        self.active(input.session_id).active = False
        return v2.CloseSessionResponse()

    async def delete_session(self, input: v2.DeleteSessionRequest) -> v2.DeleteSessionResponse:
        self.own(input.session_id)
        # As the v1 agent does: its turns end (idle `cancelled`) and its background work
        # stops, as on a close, then it is forgotten.
        await self.stop_session(input.session_id)
        self.connection().sessions.pop(input.session_id, None)
        return v2.DeleteSessionResponse()

    # -- config options ------------------------------------------------------------------

    async def set_config_option(
        self, input: v2.SetSessionConfigOptionRequest
    ) -> v2.SetSessionConfigOptionResponse:
        session = self.active(input.session_id)
        choices = {"mode": MODES_V2, "reply": REPLIES_V2}.get(input.config_id)
        if choices is None:
            raise InvalidParams(f"unknown config option {input.config_id!r}")
        values = {choice.value for choice in choices}
        value = getattr(input, "value", None)
        if not isinstance(input, v2.SetSessionConfigOptionRequestId) or value not in values:
            raise InvalidParams(f"{input.config_id} is one of {sorted(values)}, not {value!r}")
        if input.config_id == "mode":
            session.mode_id = input.value
        else:
            session.reply = input.value
        return v2.SetSessionConfigOptionResponse(config_options=session.config_options())

    # -- the turn --------------------------------------------------------------------------

    async def prompt(self, input: v2.PromptRequest) -> v2.PromptResponse:
        # Refused before the user message is inserted (an error answer, nothing else): an
        # unknown or closed session, a block that cannot be read (bad base64).
        session = self.active(input.session_id)
        for block in input.prompt:
            describe_v2(block, session)
        return await super().prompt(input)

    async def run_turn(self, request: v2.PromptRequest, turn: TurnV2) -> StopReasonV2:
        # Checked again: the session may have been closed, deleted or signed out of while
        # the prompt was held behind another turn.
        try:
            session = self.active(request.session_id)
            described = "; ".join(describe_v2(block, session) for block in request.prompt)
        except AcpError as error:
            await turn.send_text(f"Not noted: {error}")
            return "error"
        session.history.append(
            v2.SessionUpdateUserMessage(message_id=turn.message_id, content=list(request.prompt))
        )
        if session.title is None:
            session.title = next(
                (b.text[:40] for b in request.prompt if isinstance(b, v2.ContentBlockText)), None
            )
        session.touch()
        first = request.prompt[0] if request.prompt else None
        if isinstance(first, v2.ContentBlockText) and first.text.startswith("/"):
            return await self.command(session, first.text[1:].strip(), turn)
        if session.mode_id == "ask":
            call = await turn.start_tool_call("Keep this note", kind=v2.ToolKind.EDIT)
            async with turn.waiting_for_user():
                choice = await turn.request_permission(call, "Keep this note?")
            if choice is None:
                return "cancelled"
            if choice != "allow":
                await turn.update_tool_call(call, status=v2.ToolCallStatus.FAILED)
                return await self.reply(session, turn, "Not noted.")
            await turn.update_tool_call(call, status=v2.ToolCallStatus.COMPLETED)
        session.notes.append(described)
        if session.reply == "count":
            return await self.reply(session, turn, f"Noted {len(request.prompt)} block(s).")
        return await self.reply(session, turn, f"Noted: {described}")

    async def reply(self, session: NotesSessionV2, turn: TurnV2, text: str) -> StopReasonV2:
        update = v2.SessionUpdateAgentMessageChunk(
            message_id=turn.agent_message_id, content=v2.ContentBlockText(text=text)
        )
        session.history.append(update)
        await turn.update(update)
        return "end_turn"

    async def command(self, session: NotesSessionV2, name: str, turn: TurnV2) -> StopReasonV2:
        if name == "plan":
            entry = partial(
                v2.PlanEntry,
                priority=v2.PlanEntryPriority.MEDIUM,
                status=v2.PlanEntryStatus.PENDING,
            )
            await turn.plan([entry(content=note) for note in session.notes], plan_id="notes")
            await turn.usage(sum(len(note) for note in session.notes), CONTEXT_SIZE)
            return await self.reply(session, turn, f"{len(session.notes)} note(s) planned.")
        if name == "watch":
            # The watcher outlives the turn: listed as background work until it exits
            # (`terminal/cancel` stops it, as does closing the session).
            await turn.report_background()
            call = await turn.start_tool_call("Watch", kind=v2.ToolKind.EXECUTE)
            try:
                terminal = await turn.run_terminal(WATCHER, cwd=session.cwd)
            except OSError as error:  # the session's cwd is not a folder of this machine
                await turn.update_tool_call(
                    call, status=v2.ToolCallStatus.FAILED, content=f"Cannot run: {error}"
                )
                return await self.reply(session, turn, f"Cannot watch: {error}.")
            await turn.update_tool_call(
                call, status=v2.ToolCallStatus.COMPLETED, content=[terminal.content()]
            )
            turn.terminal_in_background(terminal)
            return await self.reply(session, turn, f"Watching in terminal {terminal.id}.")
        if name == "remind":
            # A tool call whose work goes on without a process: it waits until the client
            # cancels it (`tool_call/cancel`) or the session closes.
            await turn.report_background()
            call = await turn.start_tool_call("Remind me", kind=v2.ToolKind.OTHER)
            await turn.update_tool_call(call, status=v2.ToolCallStatus.IN_PROGRESS)
            turn.in_background(asyncio.Event().wait(), tool_call_id=call)
            return await self.reply(session, turn, f"Reminder {call} set.")
        if name == "name":
            offered = turn.capabilities.elicitation if turn.capabilities else None
            if offered is None or offered.form is None:
                # Asked first: `elicit_form` would raise `Unsupported`, but the turn would
                # have reported waiting for the user in vain.
                return await self.reply(session, turn, "This client cannot show a form.")
            try:
                async with turn.waiting_for_user():
                    answer = await turn.elicit_form("What is your name?", NAME_FORM)
            except RpcError as error:
                return await self.reply(session, turn, f"The form failed: {error.message}")
            if isinstance(answer, v2.CreateElicitationResponseAccept) and answer.content:
                return await self.reply(session, turn, f"Hello, {answer.content.get('name')}.")
            return await self.reply(session, turn, "No name given.")
        return await self.reply(session, turn, f"Unknown command /{name}.")


#: The context window `/plan`'s usage report counts against (in characters, standing for
#: tokens).
CONTEXT_SIZE = 100_000

NAME_FORM = v2.ElicitationSchema(
    type=v2.ElicitationSchemaType.OBJECT,
    properties={"name": v2.ElicitationPropertySchemaString(title="Name")},
    required=["name"],
)


def describe_v2(block: v2.ContentBlock, session: NotesSessionV2) -> str:
    """`describe`, for v2's content blocks."""
    if isinstance(block, v2.ContentBlockText):
        return f'text "{block.text[:60]}"'
    if isinstance(block, v2.ContentBlockImage):
        return f"image ({block.mime_type}, {decoded_size(block.data)} bytes)"
    if isinstance(block, v2.ContentBlockAudio):
        return f"audio ({block.mime_type}, {decoded_size(block.data)} bytes)"
    if isinstance(block, v2.ContentBlockResourceLink):
        return f"link {block.uri}{where(block.uri, session)}"
    if isinstance(block, v2.ContentBlockResource):
        resource = block.resource
        if isinstance(resource, v2.BlobResourceContents):
            size = f"{decoded_size(resource.blob)} bytes"
        elif isinstance(resource, v2.TextResourceContents):
            size = f"{len(resource.text)} characters"
        else:
            raise InvalidParams("an embedded resource holds text or a blob")
        return f"resource {resource.uri} ({size}){where(resource.uri, session)}"
    raise InvalidParams(f"cannot read a prompt block of type {getattr(block, 'tag', '?')!r}")


if __name__ == "__main__":
    agent_main(
        ReferenceAgent,
        description="An ACP agent with every session capability.",
        v2_factory=ReferenceAgentV2,
    )
