"""An ACP client written with idlc's own SDK (`idlc_acp` + the generated `idlc_acp`).

    python tests/interop/idlc_scenario_client.py --cwd DIR [--no-fs] -- AGENT_CMD [ARGS...]
    python tests/interop/idlc_scenario_client.py --cwd DIR [--no-fs] --connect URL

Spawns the agent with `idlc_acp.spawn_agent` (or, with --connect, reaches a remote one with
`idlc_acp.web.connect_websocket` for ws:// URLs, `connect_http` for http:// ones), runs the interop scenarios and prints the same
JSON records as js/client.mjs and py_official_client.py, so the tests judge all three alike.
With --news it also advertises `session.notices` and `session.compaction` and runs the news
scenario (a prompt of the one text block NEWS; see py_official_client.py).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec

from idlc_acp import (  # noqa: E402  (idlc_acp makes the generated package importable)
    CancelNotification,
    Client,
    ClientCapabilities,
    ClientSessionCapabilities,
    CompactionCapabilities,
    ContentBlockText,
    FileSystemCapabilities,
    Implementation,
    InitializeRequest,
    LoadSessionRequest,
    NewSessionRequest,
    NoticeCapabilities,
    PermissionOptionKind,
    PromptRequest,
    ReadTextFileRequest,
    ReadTextFileResponse,
    RequestPermissionOutcomeCancelled,
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    spawn_agent,
)
from idlc_runtime import RpcError
from idlc_runtime.hooks import enc_hook

SCENARIO_TIMEOUT = 60.0
CANCEL_BLOCKS = 30
NEWS = "NEWS"
ENCODER = msgspec.json.Encoder(enc_hook=enc_hook)
ALLOW = (PermissionOptionKind.ALLOW_ONCE, PermissionOptionKind.ALLOW_ALWAYS)
REJECT = (PermissionOptionKind.REJECT_ONCE, PermissionOptionKind.REJECT_ALWAYS)


def large_text() -> str:
    """The 2 MiB prompt: a 32-byte unit with multi-byte UTF-8 characters, 65,536 times."""
    return "0123456789abcdef-äöü-€-✓\n" * 65536


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def to_json(value: Any) -> Any:
    return json.loads(ENCODER.encode(value))


def emit(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def error_record(error: BaseException) -> dict[str, Any]:
    if isinstance(error, RpcError):
        return {"code": error.code, "message": error.message}
    return {"exception": f"{type(error).__name__}: {error}"}


def texts(blocks: list[str]) -> list[ContentBlockText]:
    return [ContentBlockText(text=text) for text in blocks]


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


class ScenarioClient(Client):
    """Records everything and answers permission and file requests."""

    def __init__(self, offer_fs: bool) -> None:
        self.offer_fs = offer_fs
        self.turn = Turn()
        self.started = time.perf_counter()

    async def update(self, input: SessionNotification) -> None:
        params = to_json(input)
        # The record names the session the decoded notification names, not the JSON's.
        params["sessionId"] = input.session_id
        self.turn.updates.append(
            {"t_ms": (time.perf_counter() - self.started) * 1000, "params": params}
        )
        if self.turn.on_update is not None:
            self.turn.on_update(params)

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        record = to_json(input)
        record["sessionId"] = input.session_id
        self.turn.permissions.append(record)
        if self.turn.cancelled:
            return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())
        kinds = ALLOW if self.turn.permission_answer == "allow" else REJECT
        for option in input.options:
            if option.kind in kinds:
                return RequestPermissionResponse(
                    outcome=RequestPermissionOutcomeSelected(option_id=option.option_id)
                )
        return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())

    async def read_text_file(self, input: ReadTextFileRequest) -> ReadTextFileResponse:
        self.turn.reads.append({"sessionId": input.session_id, "path": input.path})
        if not self.offer_fs:
            raise RpcError(-32601, "fs/read_text_file was not offered by this client")
        content = Path(input.path).read_text(encoding="utf-8")
        if input.line is not None or input.limit is not None:
            lines = content.split("\n")
            start = max((input.line or 1) - 1, 0)
            content = "\n".join(
                lines[start : start + input.limit if input.limit is not None else None]
            )
        return ReadTextFileResponse(content=content)


def open_agent(client: ScenarioClient, options: argparse.Namespace) -> Any:
    if options.connect is None:
        return spawn_agent(client, options.command, env=dict(os.environ))
    from idlc_acp.web import connect_http, connect_websocket

    if options.connect.startswith("ws"):
        return connect_websocket(options.connect, client)
    return connect_http(options.connect, client)


async def run(options: argparse.Namespace) -> int:
    client = ScenarioClient(offer_fs=options.fs)
    async with open_agent(client, options) as agent:
        session_id = ""

        async def prompt(sid: str, blocks: list[str], answer: str, **extra: Any) -> str:
            client.turn = Turn(answer)
            response = await agent.prompt(
                PromptRequest(session_id=sid, prompt=texts(blocks), **extra)
            )
            return str(response.stop_reason.value)

        async def expect_error(call: Awaitable[Any]) -> dict[str, Any]:
            try:
                return {"result": to_json(await call)}
            except RpcError as error:
                return {"error": error_record(error)}

        async def initialize() -> dict[str, Any]:
            response = await agent.initialize(
                InitializeRequest(
                    protocol_version=1,
                    client_capabilities=ClientCapabilities(
                        fs=FileSystemCapabilities(read_text_file=options.fs, write_text_file=False),
                        terminal=False,
                        session=(
                            ClientSessionCapabilities(
                                notices=NoticeCapabilities(), compaction=CompactionCapabilities()
                            )
                            if options.news
                            else None
                        ),
                    ),
                    client_info=Implementation(name="idlc-interop-idlc-client", version="0.0.0"),
                )
            )
            return {"response": to_json(response)}

        async def session_new() -> dict[str, Any]:
            nonlocal session_id
            response = await agent.new_session(NewSessionRequest(cwd=options.cwd, mcp_servers=[]))
            session_id = response.session_id
            return {"response": to_json(response), "cwd": options.cwd}

        async def prompt_allowed() -> dict[str, Any]:
            blocks = ["Hello", "from idlc's ACP SDK", "third block"]
            stop = await prompt(session_id, blocks, "allow")
            return {"sent": blocks, "sessionId": session_id, **client.turn.report(stop)}

        async def prompt_rejected() -> dict[str, Any]:
            blocks = ["permission will be rejected"]
            stop = await prompt(session_id, blocks, "reject")
            return {"sent": blocks, "sessionId": session_id, **client.turn.report(stop)}

        async def cancel() -> dict[str, Any]:
            blocks = [f"block {i}" for i in range(CANCEL_BLOCKS)]
            turn = client.turn = Turn("allow")
            cancels: list[asyncio.Task[None]] = []

            # Cancel as soon as the first chunk of this turn arrives: no timing guesses.
            def on_update(params: dict[str, Any]) -> None:
                if (
                    not turn.cancelled
                    and params["update"]["sessionUpdate"] == "agent_message_chunk"
                ):
                    turn.cancelled = True
                    cancels.append(
                        asyncio.ensure_future(
                            agent.cancel(CancelNotification(session_id=session_id))
                        )
                    )

            turn.on_update = on_update
            response = await agent.prompt(
                PromptRequest(session_id=session_id, prompt=texts(blocks))
            )
            await asyncio.gather(*cancels)
            return {
                "sent_blocks": len(blocks),
                "sessionId": session_id,
                "cancel_sent": turn.cancelled,
                **turn.report(str(response.stop_reason.value)),
            }

        async def after_cancel() -> dict[str, Any]:
            blocks = ["still alive after cancel"]
            stop = await prompt(session_id, blocks, "allow")
            return {"sent": blocks, "sessionId": session_id, **client.turn.report(stop)}

        async def unsupported_method() -> dict[str, Any]:
            return await expect_error(
                agent.load_session(
                    LoadSessionRequest(session_id=session_id, cwd=options.cwd, mcp_servers=[])
                )
            )

        async def unknown_ext_method() -> dict[str, Any]:
            return await expect_error(
                agent.peer.request("_idlc.interop/no_such_method", {"hello": "world"}, Any)
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
            created = await agent.new_session(
                NewSessionRequest(
                    cwd=options.cwd,
                    mcp_servers=[],
                    # Not `cwd`: the official Python agent would take `_meta.cwd` for the cwd.
                    meta={"sessionId": shadow},
                )
            )
            blocks = ["meta must not shadow"]
            # Only `sessionId`: the official Python agent lets a `_meta.session_id` through.
            stop = await prompt(created.session_id, blocks, "allow", meta={"sessionId": shadow})
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
    emit({"scenario": "done", "agent_exit": {"code": 0, "signal": None}})
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cwd", default=os.getcwd())
    parser.add_argument("--no-fs", dest="fs", action="store_false")
    parser.add_argument("--news", action="store_true")
    parser.add_argument("--connect", metavar="URL")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    if options.command[:1] == ["--"]:
        options.command = options.command[1:]
    if not options.command and options.connect is None:
        parser.error("an agent command is required after --")
    sys.exit(asyncio.run(run(options)))


if __name__ == "__main__":
    main()
