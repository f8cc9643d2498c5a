"""An ACP client that runs one prompt against any ACP agent.

    python examples/acp_client.py [options] AGENT_CMD [AGENT_ARG ...]
    python examples/acp_client.py --prompt "hello" -- python examples/acp_echo_agent.py
    python examples/acp_client.py --connect ws://127.0.0.1:8000/acp [options]

It spawns the agent (or, with `--connect URL`, reaches a remote one over WebSocket for
`ws://` and `wss://`, streamable HTTP for `http://` and `https://`: docs/acp-remote.md),
initializes (offering `fs.readTextFile` and `fs.writeTextFile` unless `--no-fs`), signs
in with `--authenticate METHOD_ID` if given, opens a session in `--cwd` (plus any
`--add-dir`), sends the prompt (one text block per `--prompt`), prints every `session/update`, answers permission requests
(`--permission`) and file reads and writes, and prints the stop reason. The agent may read
and write files inside the session's folders only (`idlc_acp.contrib.ConfinedFiles`); with
`--confirm-writes` every write is put to the same permission policy first.
`--cancel-after S` sends `session/cancel` S seconds into the turn. `--json` prints one JSON
object per line instead of text:
`{"event": "initialized" | "authenticated" | "session" | "update" | "permission" | "read" | "write" | "result", …}`.
`--protocol-version 2` prefers the ACP v2 draft (spawned or with `--connect`): it initializes
at v2 and, against an agent that speaks v1 only, falls back to v1 on the same connection (the `initialized` event says
which: `"protocolVersion"`); a v2 turn prints its updates until the idle `state_update` and
its stop reason. A version this client does not support (not 1 or 2) is refused.
Exit status: 0 when the turn ended (any stop reason), 1 on a protocol or connection error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

import msgspec

from idlc_acp import (
    PROTOCOL_VERSION,
    AgentConnection,
    AuthenticateRequest,
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
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    UnsupportedProtocolVersion,
    WriteTextFileRequest,
    WriteTextFileResponse,
    __version__,
    spawn_agent,
    v2,
)
from idlc_acp.contrib import ConfinedFiles, PermissionBroker, choose
from idlc_acp.v2_client import CLIENT_PROTOCOL_VERSIONS, ClientV2, initialize_preferring_v2
from idlc_runtime import RpcError

_encoder = msgspec.json.Encoder()

#: `--permission` → the policy that answers permission requests.
POLICIES = {
    "allow": choose(PermissionOptionKind.ALLOW_ONCE, PermissionOptionKind.ALLOW_ALWAYS),
    "reject": choose(PermissionOptionKind.REJECT_ONCE, PermissionOptionKind.REJECT_ALWAYS),
    "cancel": choose(),
}


def to_json(value: object) -> Any:
    return json.loads(_encoder.encode(value))


class PrintingClient(Client):
    def __init__(self, *, permission: str, confirm_writes: bool, as_json: bool) -> None:
        self.as_json = as_json
        self.permissions = PermissionBroker(POLICIES[permission])
        self.files = ConfinedFiles(permissions=self.permissions if confirm_writes else None)
        #: Set once the agent runs; updates of a turn are printed where the turn is iterated.
        self.agent: AgentConnection | None = None

    def emit(self, event: str, **fields: Any) -> None:
        if self.as_json:
            print(json.dumps({"event": event, **fields}, ensure_ascii=False), flush=True)
        else:
            detail = " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in fields.items())
            print(f"[{event}] {detail}", flush=True)

    async def update(self, input: SessionNotification) -> None:
        if self.agent is not None and self.agent.watching(input.session_id):
            return  # `run` prints it, from the turn's stream
        self.emit("update", sessionId=input.session_id, update=to_json(input.update))

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        answer = await self.permissions.request_permission(input)
        if isinstance(answer.outcome, RequestPermissionOutcomeSelected):
            self.emit(
                "permission",
                toolCallId=input.tool_call.tool_call_id,
                optionId=answer.outcome.option_id,
            )
        else:
            self.emit("permission", toolCallId=input.tool_call.tool_call_id, outcome="cancelled")
        return answer

    async def read_text_file(self, input: ReadTextFileRequest) -> ReadTextFileResponse:
        answer = await self.files.read_text_file(input)
        self.emit("read", path=input.path, chars=len(answer.content))
        return answer

    async def write_text_file(self, input: WriteTextFileRequest) -> WriteTextFileResponse:
        answer = await self.files.write_text_file(input)
        self.emit("write", path=input.path, chars=len(input.content))
        return answer


class PrintingClientV2(ClientV2):
    """The v2 side of the same client: permission requests answered by `--permission`."""

    def __init__(self, printer: PrintingClient, permission: str) -> None:
        super().__init__()
        self.printer = printer
        self.permission = permission

    async def on_update(self, input: v2.UpdateSessionNotification) -> None:
        self.printer.emit("update", sessionId=input.session_id, update=to_json(input.update))

    async def request_permission(
        self, input: v2.RequestPermissionRequest
    ) -> v2.RequestPermissionResponse:
        kinds = {
            "allow": {v2.PermissionOptionKind.ALLOW_ONCE, v2.PermissionOptionKind.ALLOW_ALWAYS},
            "reject": {v2.PermissionOptionKind.REJECT_ONCE, v2.PermissionOptionKind.REJECT_ALWAYS},
        }.get(self.permission, set())
        chosen = next((option for option in input.options if option.kind in kinds), None)
        subject = input.subject
        call_id = (
            subject.tool_call.tool_call_id
            if isinstance(subject, v2.RequestPermissionSubjectToolCall)
            else None
        )
        if chosen is None:
            self.printer.emit("permission", toolCallId=call_id, outcome="cancelled")
            return v2.RequestPermissionResponse(outcome=v2.RequestPermissionOutcomeCancelled())
        self.printer.emit("permission", toolCallId=call_id, optionId=chosen.option_id)
        return v2.RequestPermissionResponse(
            outcome=v2.RequestPermissionOutcomeSelected(option_id=chosen.option_id)
        )


async def run(args: argparse.Namespace) -> int:
    client = PrintingClient(
        permission=args.permission, confirm_writes=args.confirm_writes, as_json=args.json
    )
    async with open_agent(client, args) as agent:
        client.agent = agent
        v1_request = InitializeRequest(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(
                    read_text_file=not args.no_fs, write_text_file=not args.no_fs
                )
            ),
            client_info=Implementation(name="idlc-acp-client", version=__version__),
        )
        if args.protocol_version == 2:
            client_v2 = PrintingClientV2(client, args.permission)
            negotiated = await initialize_preferring_v2(
                agent.peer,
                v2_request=v2.InitializeRequest(
                    protocol_version=2,
                    info=v2.Implementation(name="idlc-acp-client", version=__version__),
                ),
                v2_client=client_v2,
                v1_request=v1_request,
                v1_client=client,
            )
            client.emit(
                "initialized",
                protocolVersion=negotiated.version,
                result=to_json(negotiated.response),
            )
            if negotiated.version == 2:
                return await run_v2(args, client, client_v2, v2.AgentProxy(agent.peer))
        else:
            init = await agent.initialize(v1_request)
            client.emit("initialized", protocolVersion=1, result=to_json(init))
        if args.authenticate is not None:
            # One of the `authMethods` the agent offered; an agent that requires it answers
            # session methods -32000 until then.
            await agent.authenticate(AuthenticateRequest(method_id=args.authenticate))
            client.emit("authenticated", methodId=args.authenticate)
        request = NewSessionRequest(
            cwd=os.path.abspath(args.cwd),
            additional_directories=[os.path.abspath(d) for d in args.add_dir] or None,
            mcp_servers=[],
        )
        session = await agent.new_session(request)
        client.files.open_session(session.session_id, request.cwd, request.additional_directories)
        client.emit("session", sessionId=session.session_id)

        prompts = args.prompt or ["Hello from idlc's ACP client."]
        turn = agent.turn(
            PromptRequest(
                session_id=session.session_id,
                prompt=[ContentBlockText(text=text) for text in prompts],
            )
        )
        canceller = (
            None
            if args.cancel_after is None
            else asyncio.ensure_future(cancel_later(agent, session.session_id, args.cancel_after))
        )
        async for update in turn:
            client.emit("update", sessionId=session.session_id, update=to_json(update))
        if canceller is not None:
            canceller.cancel()
        client.emit("result", stopReason=turn.response.stop_reason.value)
    return 0


async def run_v2(
    args: argparse.Namespace, printer: PrintingClient, client: PrintingClientV2, agent: Any
) -> int:
    """The session and the turn, in v2's shape."""
    session = await agent.new_session(v2.NewSessionRequest(cwd=os.path.abspath(args.cwd)))
    printer.emit("session", sessionId=session.session_id)
    prompts = args.prompt or ["Hello from idlc's ACP client."]
    turn = client.turn(
        agent,
        v2.PromptRequest(
            session_id=session.session_id,
            prompt=[v2.ContentBlockText(text=text) for text in prompts],
        ),
    )

    async def cancel_later() -> None:
        await asyncio.sleep(args.cancel_after)
        await agent.cancel(v2.CancelSessionNotification(session_id=session.session_id))

    canceller = None if args.cancel_after is None else asyncio.ensure_future(cancel_later())
    async for update in turn:
        printer.emit("update", sessionId=session.session_id, update=to_json(update))
    if canceller is not None:
        canceller.cancel()
    printer.emit("result", stopReason=turn.stop_reason, messageId=turn.message_id)
    return 0


def open_agent(client: PrintingClient, args: argparse.Namespace) -> Any:
    """The agent's connection: spawned, or remote with `--connect`."""
    if args.connect is None:
        return spawn_agent(client, args.agent)
    from idlc_acp.web import connect_http, connect_websocket

    if args.connect.startswith(("ws://", "wss://")):
        return connect_websocket(args.connect, client)
    return connect_http(args.connect, client)


async def cancel_later(agent: AgentConnection, session_id: str, delay: float) -> None:
    await asyncio.sleep(delay)
    await agent.cancel(CancelNotification(session_id=session_id))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", action="append", help="a text block (repeatable)")
    parser.add_argument("--cwd", default=".", help="the session's working directory")
    parser.add_argument(
        "--add-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="another folder of the session, which the agent may read and write (repeatable)",
    )
    parser.add_argument(
        "--permission",
        choices=sorted(POLICIES),
        default="allow",
        help="how to answer permission requests (default: allow)",
    )
    parser.add_argument(
        "--confirm-writes",
        action="store_true",
        help="put every file write to the permission policy first",
    )
    parser.add_argument("--no-fs", action="store_true", help="do not offer file access")
    parser.add_argument(
        "--authenticate",
        metavar="METHOD_ID",
        help="sign in with this auth method of the agent before opening the session",
    )
    parser.add_argument("--cancel-after", type=float, help="send session/cancel after S seconds")
    parser.add_argument("--json", action="store_true", help="JSON lines on stdout")
    parser.add_argument(
        "--protocol-version",
        type=int,
        default=1,
        help="the ACP protocol version to ask for: 1, or 2 (the draft, falling back to 1)",
    )
    parser.add_argument(
        "--connect",
        metavar="URL",
        help="a remote agent (ws://…/acp or http://…/acp) instead of a command line",
    )
    parser.add_argument("agent", nargs=argparse.REMAINDER, help="the agent's command line")
    args = parser.parse_args(argv)
    if args.agent and args.agent[0] == "--":
        args.agent = args.agent[1:]
    if args.connect is not None:
        if args.agent:
            parser.error("give either --connect or the agent's command line, not both")
        if not args.connect.startswith(("ws://", "wss://", "http://", "https://")):
            parser.error("--connect wants a ws://, wss://, http:// or https:// URL")
    elif not args.agent:
        parser.error("give the agent's command line")
    if args.protocol_version not in CLIENT_PROTOCOL_VERSIONS:
        supported = " and ".join(str(v) for v in sorted(CLIENT_PROTOCOL_VERSIONS))
        parser.error(
            f"this client does not support ACP protocol version {args.protocol_version} "
            f"(it supports {supported})"
        )
    errors: tuple[type[Exception], ...] = (RpcError, ConnectionError, UnsupportedProtocolVersion)
    if args.connect is not None:
        from idlc_acp.web import Refused

        errors += (Refused,)  # the server turned us away (401, 403, 503)
    try:
        return asyncio.run(run(args))
    except errors as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
