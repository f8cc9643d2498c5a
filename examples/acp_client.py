"""An ACP client that runs one prompt against any ACP agent.

    python examples/acp_client.py [options] AGENT_CMD [AGENT_ARG ...]
    python examples/acp_client.py --prompt "hello" -- python examples/acp_echo_agent.py

It spawns the agent, initializes (offering `fs.readTextFile` and `fs.writeTextFile` unless
`--no-fs`), opens a session in `--cwd`, sends the prompt (one text block per `--prompt`),
prints every `session/update`, answers permission requests (`--permission`) and file reads
and writes, and prints the stop reason. `--cancel-after S` sends `session/cancel` S seconds
into the turn. `--json` prints one JSON object per line instead of text:
`{"event": "initialized" | "session" | "update" | "permission" | "read" | "write" | "result", …}`.
Exit status: 0 when the turn ended (any stop reason), 1 on a protocol or connection error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import msgspec
from idlc_acp import (
    PROTOCOL_VERSION,
    CancelNotification,
    Client,
    ClientCapabilities,
    ContentBlockText,
    FileSystemCapabilities,
    Implementation,
    InitializeRequest,
    NewSessionRequest,
    PermissionOptionKind,
    PromptRequest,
    ReadTextFileRequest,
    ReadTextFileResponse,
    RequestPermissionOutcomeCancelled,
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    WriteTextFileRequest,
    WriteTextFileResponse,
    __version__,
    spawn_agent,
)
from idlc_runtime import RpcError

_encoder = msgspec.json.Encoder()


def to_json(value: object) -> Any:
    return json.loads(_encoder.encode(value))


class PrintingClient(Client):
    def __init__(self, *, permission: str, as_json: bool) -> None:
        self.permission = permission
        self.as_json = as_json

    def emit(self, event: str, **fields: Any) -> None:
        if self.as_json:
            print(json.dumps({"event": event, **fields}, ensure_ascii=False), flush=True)
        else:
            detail = " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in fields.items())
            print(f"[{event}] {detail}", flush=True)

    async def update(self, input: SessionNotification) -> None:
        self.emit("update", sessionId=input.session_id, update=to_json(input.update))

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        wanted = {
            "allow": (PermissionOptionKind.ALLOW_ONCE, PermissionOptionKind.ALLOW_ALWAYS),
            "reject": (PermissionOptionKind.REJECT_ONCE, PermissionOptionKind.REJECT_ALWAYS),
        }.get(self.permission, ())
        choice = next((o for o in input.options if o.kind in wanted), None)
        if choice is None:
            self.emit("permission", toolCallId=input.tool_call.tool_call_id, outcome="cancelled")
            return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())
        self.emit("permission", toolCallId=input.tool_call.tool_call_id, optionId=choice.option_id)
        return RequestPermissionResponse(
            outcome=RequestPermissionOutcomeSelected(option_id=choice.option_id)
        )

    async def read_text_file(self, input: ReadTextFileRequest) -> ReadTextFileResponse:
        try:
            text = Path(input.path).read_text(encoding="utf-8")
        except OSError as error:
            raise RpcError(-32002, f"Cannot read {input.path}: {error.strerror}") from None
        if input.line is not None or input.limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((input.line or 1) - 1, 0)
            end = None if input.limit is None else start + input.limit
            text = "".join(lines[start:end])
        self.emit("read", path=input.path, chars=len(text))
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, input: WriteTextFileRequest) -> WriteTextFileResponse:
        Path(input.path).write_text(input.content, encoding="utf-8")
        self.emit("write", path=input.path, chars=len(input.content))
        return WriteTextFileResponse()


async def run(args: argparse.Namespace) -> int:
    client = PrintingClient(permission=args.permission, as_json=args.json)
    async with spawn_agent(client, args.agent) as agent:
        init = await agent.initialize(
            InitializeRequest(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(
                        read_text_file=not args.no_fs, write_text_file=not args.no_fs
                    )
                ),
                client_info=Implementation(name="idlc-acp-client", version=__version__),
            )
        )
        client.emit("initialized", result=to_json(init))
        session = await agent.new_session(
            NewSessionRequest(cwd=os.path.abspath(args.cwd), mcp_servers=[])
        )
        client.emit("session", sessionId=session.session_id)
        prompts = args.prompt or ["Hello from idlc's ACP client."]
        turn = asyncio.ensure_future(
            agent.prompt(
                PromptRequest(
                    session_id=session.session_id,
                    prompt=[ContentBlockText(text=text) for text in prompts],
                )
            )
        )
        if args.cancel_after is not None:
            done, _ = await asyncio.wait([turn], timeout=args.cancel_after)
            if not done:
                await agent.cancel(CancelNotification(session_id=session.session_id))
        answer = await turn
        client.emit("result", stopReason=answer.stop_reason.value)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", action="append", help="a text block (repeatable)")
    parser.add_argument("--cwd", default=".", help="the session's working directory")
    parser.add_argument(
        "--permission",
        choices=("allow", "reject", "cancel"),
        default="allow",
        help="how to answer permission requests (default: allow)",
    )
    parser.add_argument("--no-fs", action="store_true", help="do not offer file access")
    parser.add_argument("--cancel-after", type=float, help="send session/cancel after S seconds")
    parser.add_argument("--json", action="store_true", help="JSON lines on stdout")
    parser.add_argument("agent", nargs=argparse.REMAINDER, help="the agent's command line")
    args = parser.parse_args(argv)
    if args.agent and args.agent[0] == "--":
        args.agent = args.agent[1:]
    if not args.agent:
        parser.error("give the agent's command line")
    try:
        return asyncio.run(run(args))
    except (RpcError, ConnectionError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
