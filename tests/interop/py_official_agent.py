"""An ACP agent written with the official Python SDK (PyPI `agent-client-protocol`, module `acp`).

Run as `python tests/interop/py_official_agent.py`; it serves on stdio and behaves like
examples/acp_echo_agent.py (and like js/agent.mjs):
- initialize: protocol version 1, no session/load, text-only prompts;
- session/prompt: every text block comes back as an agent_message_chunk, ~100 ms apart; then a
  tool call reading README.md in the session's cwd, a permission request and, if allowed and the
  client offered fs.readTextFile, fs/read_text_file and a tool_call_update carrying the file's
  first line; the turn ends with end_turn, or cancelled after session/cancel;
- a prompt that is the one text block NEWS (the news scenario) gets, if the client advertised
  `session.notices` and `session.compaction` (agent-client-protocol 1.0 only: 0.12.1 knows
  neither), a notice, a compaction_update, a compaction_summary_chunk and a second
  compaction_update completing it, and the turn ends with end_turn.

It runs on agent-client-protocol 0.12.1 and 1.0.0rc3 alike: 1.0 removed the helper builders
(`acp.text_block`, `acp.update_agent_message_text`, `acp.start_read_tool_call`, ...), so the
updates are built from the schema's classes, which both versions have with the same fields.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from dataclasses import dataclass, field
from typing import Any

from acp.schema import (
    AgentCapabilities,
    AgentMessageChunk,
    AllowedOutcome,
    ClientCapabilities,
    ContentToolCallContent,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptCapabilities,
    PromptResponse,
    TextContentBlock,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

import acp

CHUNK_INTERVAL = 0.1
NEWS = "NEWS"


def text_block(text: str) -> TextContentBlock:
    return TextContentBlock(type="text", text=text)


def message_chunk(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(session_update="agent_message_chunk", content=text_block(text))


def read_tool_call(tool_call_id: str, title: str, path: str) -> ToolCallStart:
    return ToolCallStart(
        session_update="tool_call",
        tool_call_id=tool_call_id,
        title=title,
        kind="read",
        status="pending",
        locations=[ToolCallLocation(path=path)],
        raw_input={"path": path},
    )


def tool_call_update(tool_call_id: str, status: str, text: str | None = None) -> ToolCallProgress:
    content = None
    if text is not None:
        content = [ContentToolCallContent(type="content", content=text_block(text))]
    return ToolCallProgress(
        session_update="tool_call_update", tool_call_id=tool_call_id, status=status, content=content
    )


def news_updates() -> list[Any]:
    """The news scenario's updates (agent-client-protocol 1.0: its schema has them)."""
    from acp.schema import (
        SessionUpdateCompactionSummaryChunk,
        SessionUpdateCompactionUpdate,
        SessionUpdateNotice,
    )

    return [
        SessionUpdateNotice(
            severity="warning", title="Context almost full", description="compacting soon"
        ),
        SessionUpdateCompactionUpdate(compaction_id="c-1", status="in_progress"),
        SessionUpdateCompactionSummaryChunk(
            compaction_id="c-1", content=text_block("summary, first part")
        ),
        SessionUpdateCompactionUpdate(
            compaction_id="c-1",
            status="completed",
            summary=[text_block("the whole summary")],
            field_meta={"tokensBefore": 1000, "tokensAfter": 100},
        ),
    ]


# A session created with `_meta` gets `_meta` on everything the agent sends for it, naming
# another session: the client must go by the real `sessionId` (the meta_shadow scenario).
SHADOW_META = {"sessionId": "shadow-from-agent"}


@dataclass
class Session:
    cwd: str
    shadow: bool = False
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)


async def _unless_cancelled(awaitable: Any, cancelled: asyncio.Event) -> Any | None:
    """The awaitable's result, or None as soon as the turn is cancelled."""
    work = asyncio.ensure_future(awaitable)
    stop = asyncio.ensure_future(cancelled.wait())
    try:
        await asyncio.wait({work, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    if work.done():
        return work.result()
    work.cancel()
    return None


class _WithMeta:
    """The client connection, adding `meta` as `_meta` to every call (keyword arguments the
    SDK does not know become `_meta`)."""

    def __init__(self, conn: Any, meta: dict[str, Any]) -> None:
        self._conn = conn
        self._meta = meta

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._conn, name)
        return lambda *args, **kwargs: method(*args, **kwargs, **self._meta)


class EchoAgent:
    def __init__(self) -> None:
        self._client: Any = None
        self._capabilities = ClientCapabilities()
        self._sessions: dict[str, Session] = {}

    def _wants_news(self) -> bool:
        session = getattr(self._capabilities, "session", None)
        return bool(session and session.notices is not None and session.compaction is not None)

    def on_connect(self, conn: Any) -> None:
        self._client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self._capabilities = client_capabilities or ClientCapabilities()
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=False,
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=False
                ),
            ),
            agent_info=Implementation(name="idlc-interop-py-agent", version="0.0.0"),
            auth_methods=[],
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        session_id = f"py-{uuid.uuid4()}"
        self._sessions[session_id] = Session(cwd=cwd, shadow=bool(kwargs))
        return NewSessionResponse(session_id=session_id)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session is not None:
            session.cancelled.set()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._sessions.get(session_id)
        if session is None:
            raise acp.RequestError.invalid_params({"sessionId": session_id})
        session.cancelled = asyncio.Event()
        stop_reason = await self._turn(session_id, session, prompt)
        return PromptResponse(stop_reason=stop_reason)

    async def _turn(self, session_id: str, session: Session, prompt: list[Any]) -> str:
        cancelled = session.cancelled
        texts = [block.text for block in prompt if isinstance(block, TextContentBlock)]
        if texts == [NEWS] and self._wants_news():
            for update in news_updates():
                await self._client.session_update(session_id, update)
            return "end_turn"
        client = _WithMeta(self._client, SHADOW_META if session.shadow else {})
        first = True
        for block in prompt:
            if not isinstance(block, TextContentBlock):
                continue
            if not first:
                try:
                    await asyncio.wait_for(cancelled.wait(), CHUNK_INTERVAL)
                except TimeoutError:
                    pass
            first = False
            if cancelled.is_set():
                return "cancelled"
            await client.session_update(session_id, message_chunk(block.text))
        if cancelled.is_set():
            return "cancelled"

        readme = os.path.join(session.cwd, "README.md")
        tool_call_id = f"read-{uuid.uuid4()}"
        await client.session_update(
            session_id,
            read_tool_call(tool_call_id, "Read README.md", readme),
        )
        answer = await _unless_cancelled(
            client.request_permission(
                session_id,
                ToolCallUpdate(
                    tool_call_id=tool_call_id, title="Read README.md", kind="read", status="pending"
                ),
                [
                    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
                    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
                ],
            ),
            cancelled,
        )
        if answer is None or cancelled.is_set() or answer.outcome.outcome == "cancelled":
            await client.session_update(session_id, tool_call_update(tool_call_id, "failed"))
            return "cancelled"
        allowed = isinstance(answer.outcome, AllowedOutcome) and answer.outcome.option_id == "allow"
        fs = self._capabilities.fs
        if not allowed or fs is None or not fs.read_text_file:
            await client.session_update(session_id, tool_call_update(tool_call_id, "failed"))
            return "end_turn"
        await client.session_update(session_id, tool_call_update(tool_call_id, "in_progress"))
        file = await _unless_cancelled(client.read_text_file(session_id, readme), cancelled)
        if file is None:
            await client.session_update(session_id, tool_call_update(tool_call_id, "failed"))
            return "cancelled"
        first_line = file.content.split("\n", 1)[0]
        await client.session_update(
            session_id,
            tool_call_update(tool_call_id, "completed", first_line),
        )
        return "cancelled" if cancelled.is_set() else "end_turn"


def main() -> None:
    asyncio.run(acp.run_agent(EchoAgent()))


if __name__ == "__main__":
    main()
