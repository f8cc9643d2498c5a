"""An ACP client written with the official Python SDK (PyPI `agent-client-protocol`, module `acp`).

    python tests/interop/py_official_client.py --cwd DIR [--no-fs] -- AGENT_CMD [ARGS...]

Spawns the agent, runs the interop scenarios one after another and prints one JSON object per
line: {"scenario": NAME, ...what was observed} — the same records as js/client.mjs, so the
tests assert on both alike. It reports, it does not judge.

With --news it also advertises the `session.notices` and `session.compaction` client
capabilities and runs the news scenario: a prompt of the one text block NEWS, whose updates
(a notice and a compaction, see expectations.assert_news) it reports. Only
agent-client-protocol 1.0 has those capabilities and updates; 0.12.1 knows neither.

It runs on agent-client-protocol 0.12.1 and 1.0.0rc3 alike (1.0 removed `acp.text_block` and
the other helper builders: the schema's classes are used instead).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TextContentBlock,
)
from pydantic import BaseModel

import acp

SCENARIO_TIMEOUT = 60.0
CANCEL_BLOCKS = 30
STREAM_LIMIT = 64 * 1024 * 1024
NEWS = "NEWS"


def text_block(text: str) -> TextContentBlock:
    return TextContentBlock(type="text", text=text)


def news_capabilities() -> Any:
    """`session: {notices: {}, compaction: {}}` (agent-client-protocol 1.0 only)."""
    from acp.schema import ClientSessionCapabilities, CompactionCapabilities, NoticeCapabilities

    return ClientSessionCapabilities(
        notices=NoticeCapabilities(), compaction=CompactionCapabilities()
    )


def large_text() -> str:
    """The 2 MiB prompt: a 32-byte unit with multi-byte UTF-8 characters, 65,536 times."""
    return "0123456789abcdef-äöü-€-✓\n" * 65536


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def to_json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, list):
        return [to_json(item) for item in value]
    return value


def emit(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def error_record(error: BaseException) -> dict[str, Any]:
    if isinstance(error, acp.RequestError):
        return {"code": error.code, "message": str(error)}
    return {"exception": f"{type(error).__name__}: {error}"}


class Turn:
    """What the agent sends us during one prompt turn."""

    def __init__(self, permission_answer: str = "allow") -> None:
        self.updates: list[dict[str, Any]] = []
        self.permissions: list[dict[str, Any]] = []
        self.reads: list[dict[str, Any]] = []
        self.permission_answer = permission_answer
        self.cancelled = False
        self.on_update: Callable[[dict[str, Any]], None] | None = None

    def report(self, stop_reason: str) -> dict[str, Any]:
        return {
            "stopReason": stop_reason,
            "updates": self.updates,
            "permissions": self.permissions,
            "reads": self.reads,
        }


class InteropClient:
    """The `acp.Client` side: records everything and answers permission and file requests."""

    def __init__(self, offer_fs: bool) -> None:
        self.offer_fs = offer_fs
        self.turn = Turn()
        self.started = time.perf_counter()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        params: dict[str, Any] = {"sessionId": session_id, "update": to_json(update)}
        if kwargs:
            params["_meta"] = kwargs
        self.turn.updates.append(
            {"t_ms": (time.perf_counter() - self.started) * 1000, "params": params}
        )
        if self.turn.on_update is not None:
            self.turn.on_update(params)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.turn.permissions.append(
            {"sessionId": session_id, "toolCall": to_json(tool_call), "options": to_json(options)}
        )
        if self.turn.cancelled:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        kinds = (
            ("allow_once", "allow_always")
            if self.turn.permission_answer == "allow"
            else ("reject_once", "reject_always")
        )
        for option in options:
            if option.kind in kinds:
                return RequestPermissionResponse(
                    outcome=AllowedOutcome(outcome="selected", option_id=option.option_id)
                )
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        record: dict[str, Any] = {"sessionId": session_id, "path": path}
        if line is not None:
            record["line"] = line
        if limit is not None:
            record["limit"] = limit
        self.turn.reads.append(record)
        if not self.offer_fs:
            raise acp.RequestError(-32601, "fs/read_text_file was not offered by this client")
        content = Path(path).read_text(encoding="utf-8")
        if line is not None or limit is not None:
            lines = content.split("\n")
            start = max((line or 1) - 1, 0)
            content = "\n".join(lines[start : start + limit if limit is not None else None])
        return ReadTextFileResponse(content=content)


@contextlib.asynccontextmanager
async def open_agent(client: Any, options: argparse.Namespace) -> AsyncIterator[tuple[Any, Any]]:
    """The connection to the agent and its process (None for --connect)."""
    if options.connect is None:
        command, *args = options.command
        async with acp.spawn_agent_process(
            client,
            command,
            *args,
            env=dict(os.environ),
            transport_kwargs={"stderr": None, "limit": STREAM_LIMIT},
        ) as (conn, process):
            yield conn, process
        return
    # The experimental remote clients of agent-client-protocol 1.0 (its `http` extra).
    if options.connect.startswith("ws"):
        from acp.ws import create_websocket_stream

        transport = await create_websocket_stream(options.connect)
    else:
        from acp.http import create_http_stream

        transport = create_http_stream(options.connect)
    async with acp.connect_to_agent(client, transport) as conn:
        yield conn, None


async def run(options: argparse.Namespace) -> int:
    client = InteropClient(offer_fs=options.fs)
    async with open_agent(client, options) as (conn, process):
        session_id = ""

        async def prompt(sid: str, blocks: list[str], answer: str, **meta: Any) -> str:
            client.turn = Turn(answer)
            response = await conn.prompt(
                session_id=sid, prompt=[text_block(text) for text in blocks], **meta
            )
            return response.stop_reason

        async def expect_error(call: Awaitable[Any]) -> dict[str, Any]:
            try:
                return {"result": to_json(await call)}
            except acp.RequestError as error:
                return {"error": error_record(error)}

        async def initialize() -> dict[str, Any]:
            extra = {"session": news_capabilities()} if options.news else {}
            response = await conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=options.fs, write_text_file=False),
                    terminal=False,
                    **extra,
                ),
                client_info=Implementation(name="idlc-interop-py-client", version="0.0.0"),
            )
            return {"response": to_json(response)}

        async def session_new() -> dict[str, Any]:
            nonlocal session_id
            response = await conn.new_session(cwd=options.cwd, mcp_servers=[])
            session_id = response.session_id
            return {"response": to_json(response), "cwd": options.cwd}

        async def prompt_allowed() -> dict[str, Any]:
            blocks = ["Hello", "from the official Python SDK", "third block"]
            stop = await prompt(session_id, blocks, "allow")
            return {"sent": blocks, "sessionId": session_id, **client.turn.report(stop)}

        async def prompt_rejected() -> dict[str, Any]:
            blocks = ["permission will be rejected"]
            stop = await prompt(session_id, blocks, "reject")
            return {"sent": blocks, "sessionId": session_id, **client.turn.report(stop)}

        async def cancel() -> dict[str, Any]:
            blocks = [f"block {i}" for i in range(CANCEL_BLOCKS)]
            turn = client.turn = Turn("allow")
            cancel_tasks: list[asyncio.Task[None]] = []

            # Cancel as soon as the first chunk of this turn arrives: no timing guesses.
            def on_update(params: dict[str, Any]) -> None:
                if (
                    not turn.cancelled
                    and params["update"]["sessionUpdate"] == "agent_message_chunk"
                ):
                    turn.cancelled = True
                    cancel_tasks.append(asyncio.ensure_future(conn.cancel(session_id=session_id)))

            turn.on_update = on_update
            response = await conn.prompt(
                session_id=session_id, prompt=[text_block(text) for text in blocks]
            )
            await asyncio.gather(*cancel_tasks)
            return {
                "sent_blocks": len(blocks),
                "sessionId": session_id,
                "cancel_sent": turn.cancelled,
                **turn.report(response.stop_reason),
            }

        async def after_cancel() -> dict[str, Any]:
            blocks = ["still alive after cancel"]
            stop = await prompt(session_id, blocks, "allow")
            return {"sent": blocks, "sessionId": session_id, **client.turn.report(stop)}

        async def unsupported_method() -> dict[str, Any]:
            return await expect_error(
                conn.load_session(cwd=options.cwd, session_id=session_id, mcp_servers=[])
            )

        async def unknown_ext_method() -> dict[str, Any]:
            # ext_method prefixes the name with "_" on the wire.
            return await expect_error(
                conn.ext_method("idlc.interop/no_such_method", {"hello": "world"})
            )

        async def large_prompt() -> dict[str, Any]:
            text = large_text()
            stop = await prompt(session_id, [text], "allow")
            report = client.turn.report(stop)
            chunks = [
                {
                    "sessionId": u["params"]["sessionId"],
                    "length": len(u["params"]["update"]["content"].get("text", "")),
                    "sha256": sha256(u["params"]["update"]["content"].get("text", "")),
                }
                for u in report["updates"]
                if u["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
            ]
            report["updates"] = [
                u
                for u in report["updates"]
                if u["params"]["update"]["sessionUpdate"] != "agent_message_chunk"
            ]
            return {
                "sent_bytes": len(text.encode()),
                "sent_length": len(text),
                "sent_sha256": sha256(text),
                "sessionId": session_id,
                "chunks": chunks,
                **report,
            }

        async def meta_shadow() -> dict[str, Any]:
            shadow = "shadow-session-id"
            # Keyword arguments the SDK does not know become `_meta` on the wire.
            created = await conn.new_session(cwd=options.cwd, mcp_servers=[], sessionId=shadow)
            blocks = ["meta must not shadow"]
            stop = await prompt(created.session_id, blocks, "allow", sessionId=shadow)
            return {
                "sent": blocks,
                "shadow": shadow,
                "new_session": to_json(created),
                "sessionId": created.session_id,
                **client.turn.report(stop),
            }

        async def news() -> dict[str, Any]:
            stop = await prompt(session_id, [NEWS], "allow")
            return {"sent": [NEWS], "sessionId": session_id, **client.turn.report(stop)}

        scenarios: list[tuple[str, Callable[[], Awaitable[dict[str, Any]]]]] = [
            ("initialize", initialize),
            ("session_new", session_new),
            ("prompt", prompt_allowed),
            ("prompt_rejected", prompt_rejected),
            ("cancel", cancel),
            ("after_cancel", after_cancel),
            ("unsupported_method", unsupported_method),
            ("unknown_ext_method", unknown_ext_method),
            ("large_prompt", large_prompt),
            ("meta_shadow", meta_shadow),
        ]
        if options.news:
            scenarios.append(("news", news))
        for name, body in scenarios:
            try:
                record = await asyncio.wait_for(body(), SCENARIO_TIMEOUT)
            except Exception as error:  # reported, the test decides
                emit({"scenario": name, "failed": error_record(error)})
                if name in ("initialize", "session_new"):
                    break
            else:
                emit({"scenario": name, **record})
    code = process.returncode if process is not None else None
    emit({"scenario": "done", "agent_exit": {"code": code, "signal": None}})
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cwd", default=os.getcwd())
    parser.add_argument("--no-fs", dest="fs", action="store_false")
    parser.add_argument("--news", action="store_true")
    parser.add_argument(
        "--connect", metavar="URL", help="a remote agent (agent-client-protocol 1.0)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    if options.command[:1] == ["--"]:
        options.command = options.command[1:]
    if not options.command and options.connect is None:
        parser.error("an agent command is required after --")
    sys.exit(asyncio.run(run(options)))


if __name__ == "__main__":
    main()
