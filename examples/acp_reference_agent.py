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
"""

from __future__ import annotations

import base64
import binascii
import os
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
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
)

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
class NotesSession:
    """One session: where it works, how it answers, what was said in it."""

    session_id: str
    cwd: str
    additional_directories: list[str]
    mode_id: str = MODES[0].id
    reply: str = REPLIES[0].value
    title: str | None = None
    updated_at: str = ""
    #: The conversation as `session/update`s, the user's prompts included: what a
    #: `session/load` replays.
    history: list[SessionUpdate] = field(default_factory=list)
    #: Whether it takes prompts: after `session/close`, only once loaded or resumed again.
    active: bool = True

    def touch(self) -> None:
        self.updated_at = datetime.now(UTC).isoformat(timespec="seconds")

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

    def inside(self, path: str) -> bool:
        """Whether `path` lies in the session's folders (its cwd or an additional one)."""
        path = os.path.normpath(path)
        roots = [os.path.normpath(root) for root in [self.cwd, *self.additional_directories]]
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


def where(uri: str, session: NotesSession) -> str:
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


if __name__ == "__main__":
    agent_main(ReferenceAgent, description="An ACP agent with every session capability.")
