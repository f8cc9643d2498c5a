"""What a client knows about one session, built from its updates.

    state = SessionState.opened(session.session_id, session)      # modes, config options
    state.begin_turn(prompt)                                       # the user's message
    async for update in agent.turn(request):
        state.apply(update)
    state.messages[-1].text, state.tool_calls["call-1"].status, state.plan, state.usage

Chunks of the same kind in a row make one message (a new `messageId` starts a new one);
a tool call's updates merge into it field by field (only what an update carries changes);
a plan, the available commands and the config options are replaced whole, as ACP says.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence

import msgspec

from idlc_acp.protocol import (
    AvailableCommand,
    ContentBlock,
    ContentBlockText,
    LoadSessionResponse,
    NewSessionResponse,
    PlanEntry,
    ResumeSessionResponse,
    SessionConfigOption,
    SessionMode,
    SessionNotification,
    SessionUpdate,
    SessionUpdateAgentMessageChunk,
    SessionUpdateAgentThoughtChunk,
    SessionUpdateAvailableCommandsUpdate,
    SessionUpdateConfigOptionUpdate,
    SessionUpdateCurrentModeUpdate,
    SessionUpdatePlan,
    SessionUpdateSessionInfoUpdate,
    SessionUpdateToolCall,
    SessionUpdateToolCallUpdate,
    SessionUpdateUsageUpdate,
    SessionUpdateUserMessageChunk,
    ToolCallContent,
    ToolCallLocation,
    ToolCallStatus,
    ToolKind,
    UsageUpdate,
)
from idlc_runtime.hooks import JsonValue


class Role(enum.Enum):
    USER = "user"
    AGENT = "agent"
    THOUGHT = "thought"


@dataclasses.dataclass
class Message:
    """Consecutive chunks of one role (and one `messageId`, when the agent gives them)."""

    role: Role
    blocks: list[ContentBlock]
    message_id: str | None = None

    @property
    def text(self) -> str:
        """The text blocks, joined."""
        return "".join(block.text for block in self.blocks if isinstance(block, ContentBlockText))


@dataclasses.dataclass
class ToolCallState:
    """A tool call as its `tool_call` and `tool_call_update`s have described it so far."""

    tool_call_id: str
    title: str | None = None
    kind: ToolKind | None = None
    status: ToolCallStatus | None = None
    content: list[ToolCallContent] | None = None
    locations: list[ToolCallLocation] | None = None
    raw_input: JsonValue | None = None
    raw_output: JsonValue | None = None


_ROLES: dict[type, Role] = {
    SessionUpdateUserMessageChunk: Role.USER,
    SessionUpdateAgentMessageChunk: Role.AGENT,
    SessionUpdateAgentThoughtChunk: Role.THOUGHT,
}


@dataclasses.dataclass
class SessionState:
    """One session's conversation, tool calls, plan, mode, config options and usage."""

    session_id: str
    messages: list[Message] = dataclasses.field(default_factory=list)
    tool_calls: dict[str, ToolCallState] = dataclasses.field(default_factory=dict)
    plan: list[PlanEntry] = dataclasses.field(default_factory=list)
    current_mode_id: str | None = None
    available_modes: list[SessionMode] = dataclasses.field(default_factory=list)
    config_options: list[SessionConfigOption] = dataclasses.field(default_factory=list)
    available_commands: list[AvailableCommand] = dataclasses.field(default_factory=list)
    usage: UsageUpdate | None = None
    title: str | None = None
    #: Updates of a kind this class does not track (notices, compaction, ...), in order.
    other: list[SessionUpdate] = dataclasses.field(default_factory=list)

    @classmethod
    def opened(
        cls,
        session_id: str,
        response: NewSessionResponse | LoadSessionResponse | ResumeSessionResponse | None = None,
    ) -> SessionState:
        """A state for a session just created, loaded or resumed (its modes and options)."""
        state = cls(session_id)
        if response is not None:
            if response.modes is not None:
                state.current_mode_id = response.modes.current_mode_id
                state.available_modes = list(response.modes.available_modes)
            if response.config_options is not None:
                state.config_options = list(response.config_options)
        return state

    def begin_turn(self, prompt: Sequence[ContentBlock]) -> None:
        """Records the prompt the client sends as the user's message, so the agent's answer
        starts a new message even when the previous turn's answer was the last one."""
        self.messages.append(Message(Role.USER, list(prompt)))

    def apply(self, update: SessionUpdate | SessionNotification) -> None:
        """Merges one update (of this session, when given as a notification)."""
        if isinstance(update, SessionNotification):
            if update.session_id != self.session_id:
                raise ValueError(
                    f"an update of session {update.session_id!r} given to the state of "
                    f"{self.session_id!r}"
                )
            update = update.update
        role = _ROLES.get(type(update))
        if role is not None:
            assert isinstance(
                update,
                SessionUpdateUserMessageChunk
                | SessionUpdateAgentMessageChunk
                | SessionUpdateAgentThoughtChunk,
            )
            self._add_chunk(role, update.content, update.message_id)
        elif isinstance(update, SessionUpdateToolCall):
            self.tool_calls[update.tool_call_id] = ToolCallState(
                tool_call_id=update.tool_call_id,
                title=update.title,
                kind=update.kind,
                status=update.status,
                content=update.content,
                locations=update.locations,
                raw_input=update.raw_input,
                raw_output=update.raw_output,
            )
        elif isinstance(update, SessionUpdateToolCallUpdate):
            # An update may come before (or without) its `tool_call`: it starts the record.
            call = self.tool_calls.setdefault(
                update.tool_call_id, ToolCallState(update.tool_call_id)
            )
            for field in (
                "title",
                "kind",
                "status",
                "content",
                "locations",
                "raw_input",
                "raw_output",
            ):
                value = getattr(update, field)
                if value is not None:
                    setattr(call, field, value)
        elif isinstance(update, SessionUpdatePlan):
            self.plan = list(update.entries)
        elif isinstance(update, SessionUpdateCurrentModeUpdate):
            self.current_mode_id = update.current_mode_id
        elif isinstance(update, SessionUpdateConfigOptionUpdate):
            self.config_options = list(update.config_options)
        elif isinstance(update, SessionUpdateAvailableCommandsUpdate):
            self.available_commands = list(update.available_commands)
        elif isinstance(update, SessionUpdateUsageUpdate):
            self.usage = UsageUpdate(used=update.used, size=update.size, cost=update.cost)
        elif isinstance(update, SessionUpdateSessionInfoUpdate):
            # A patch: absent leaves the title, `null` clears it (docs/language.md,
            # "Nullable and tri-state fields").
            if not isinstance(update.title, msgspec.UnsetType):
                self.title = update.title
        else:
            self.other.append(update)

    def _add_chunk(self, role: Role, block: ContentBlock, message_id: str | None) -> None:
        last = self.messages[-1] if self.messages else None
        continues = (
            last is not None
            and last.role is role
            and (message_id is None or message_id == last.message_id)
        )
        if continues:
            assert last is not None
            last.blocks.append(block)
        else:
            self.messages.append(Message(role, [block], message_id))
