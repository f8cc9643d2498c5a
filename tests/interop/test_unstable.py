"""The opt-in unstable surface (docs/acp.md, "The unstable surface"): `idlc_acp.unstable`,
generated from the items of idl/acp.idl marked `@unstable` (schema.unstable.json's
additions), importing the rest from idlc_acp.protocol. Importing idlc_acp never imports it;
an agent that opts in serves `session/fork` to the official TypeScript client, and idlc's
client forks a session of the official TypeScript agent."""

from __future__ import annotations

import asyncio
import json
import subprocess
from typing import Any

import pytest

from idlc_acp import (
    Client,
    InitializeRequest,
    NewSessionRequest,
    RequestPermissionOutcomeCancelled,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    spawn_agent,
)
from idlc_runtime import Unsupported

from .support import HERE, JS, PYTHON, RUN_TIMEOUT, child_env, require_node_modules

SCHEMA = HERE.parents[1] / "idl" / "acp-schema" / "v1" / "schema.unstable.json"
UNSTABLE_AGENT = [PYTHON, str(HERE / "idlc_unstable_agent.py")]
TS_FORK_AGENT = ["node", str(JS / "fork_agent.mjs")]


def test_importing_idlc_acp_does_not_import_the_unstable_surface() -> None:
    probe = (
        "import sys, idlc_acp, idlc_acp.agent, idlc_acp.client, idlc_acp.session\n"
        "print(sorted(m for m in sys.modules if m.startswith('idlc_acp.unstable')))"
    )
    completed = subprocess.run(
        [PYTHON, "-c", probe], capture_output=True, text=True, env=child_env(), timeout=60
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


def test_the_official_ts_client_forks_a_session_of_an_idlc_agent() -> None:
    require_node_modules()
    completed = subprocess.run(
        ["node", str(JS / "fork_client.mjs"), "--", *UNSTABLE_AGENT],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=RUN_TIMEOUT,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    found = json.loads(completed.stdout.splitlines()[-1])
    parent = found["created"]["sessionId"]
    assert found["forked"]["sessionId"].endswith(f"-of-{parent}")
    # An unstable method the agent leaves out answers -32601, as any other.
    assert found["archive"]["error"]["code"] == -32601


class Recorder(Client):
    async def update(self, input: SessionNotification) -> None:
        pass

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())


async def fork_with_our_client(agent: list[str]) -> tuple[str, Any]:
    from idlc_acp.unstable import ArchiveSessionRequest, ForkSessionRequest

    async with spawn_agent(Recorder(), agent, env=child_env()) as connection:
        await connection.initialize(InitializeRequest(protocol_version=1))
        created = await connection.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
        unstable = connection.unstable()
        forked = await unstable.fork_session(
            ForkSessionRequest(session_id=created.session_id, cwd="/tmp", mcp_servers=[])
        )
        with pytest.raises(Unsupported):
            await unstable.archive_session(ArchiveSessionRequest(session_id=created.session_id))
    return created.session_id, forked


def test_idlc_client_forks_a_session_of_the_official_ts_agent() -> None:
    require_node_modules()
    parent, forked = asyncio.run(asyncio.wait_for(fork_with_our_client(TS_FORK_AGENT), 60))
    assert forked.session_id.startswith("fork-") and forked.session_id != parent
    assert forked.meta == {"forkedFrom": parent}


def test_idlc_client_forks_a_session_of_an_idlc_agent() -> None:
    parent, forked = asyncio.run(asyncio.wait_for(fork_with_our_client(UNSTABLE_AGENT), 60))
    assert forked.session_id.endswith(f"-of-{parent}")


def _validator(definition: str) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    registry: Registry[Any] = Registry().with_resource(
        "urn:acp:v1u", Resource.from_contents(json.loads(SCHEMA.read_text()))
    )
    return Draft202012Validator({"$ref": f"urn:acp:v1u#/$defs/{definition}"}, registry=registry)


def _unstable_samples() -> list[tuple[str, Any]]:
    from idlc_acp import unstable as u

    return [
        (
            "ForkSessionRequest",
            u.ForkSessionRequest(
                session_id="s-1",
                cwd="/work",
                additional_directories=["/data"],
                mcp_servers=[],
                meta={"k": 1},
            ),
        ),
        ("ForkSessionResponse", u.ForkSessionResponse(session_id="s-2")),
        ("ArchiveSessionRequest", u.ArchiveSessionRequest(session_id="s-1")),
        ("SetSessionTitleRequest", u.SetSessionTitleRequest(session_id="s-1", title="Plan")),
        ("SessionStatusRequest", u.SessionStatusRequest(session_id="s-1")),
        ("ListProvidersRequest", u.ListProvidersRequest()),
        ("AuthStatusRequest", u.AuthStatusRequest()),
        (
            "MessageMcpRequest",
            u.MessageMcpRequest(server_id="s", request_id="r", method="tools/list", params={}),
        ),
        (
            "MessageMcpNotification",
            u.MessageMcpNotification(server_id="s", request_id="r", method="notifications/x"),
        ),
        ("MessageMcpResponse", u.MessageMcpResponseOption1(result=None)),
        (
            "MessageMcpResponse",
            u.MessageMcpResponseOption2(error=u.McpError(code=1, message="m"), meta={"k": 1}),
        ),
        (
            "StateUpdate",
            u.StateUpdateIdleEndTurn(
                usage=u.Usage(total_tokens=1, input_tokens=1, output_tokens=0)
            ),
        ),
        ("StateUpdate", u.StateUpdateIdleError(error=u.Error(code=-1, message="m"))),
        ("StateUpdate", u.StateUpdateIdleDefault(meta={"k": 1})),
        ("StateUpdate", u.StateUpdateIdleUnknown({"state": "idle", "stopReason": "_x"})),
        ("StateUpdate", u.StateUpdateUnknown()),
        ("StateUpdate", u.StateUpdateUnknown_({"state": "_custom", "n": 1})),
        ("StateUpdate", u.StateUpdateRunning()),
    ]


@pytest.mark.parametrize("index", range(len(_unstable_samples())))
def test_what_the_unstable_surface_encodes_is_valid_under_the_unstable_schema(index: int) -> None:
    import msgspec

    from idlc_runtime.hooks import enc_hook

    definition, value = _unstable_samples()[index]
    instance = json.loads(msgspec.json.encode(value, enc_hook=enc_hook))
    errors = [error.message for error in _validator(definition).iter_errors(instance)]
    assert not errors, (definition, instance, errors)


def test_every_unstable_method_is_served() -> None:
    """The unstable package has every method of schema.unstable.json, the proxy chain's
    `proxy/initialize` and `proxy/successor` (both kinds) included."""
    from idlc_acp import unstable as u

    schema = json.loads(SCHEMA.read_text())
    methods = {node["x-method"] for node in schema["$defs"].values() if "x-method" in node}
    served = {
        method.wire
        for interface in (u.Agent, u.Client, u.Protocol, u.Proxy, u.Successor)
        for method in interface.__idlc_interface__.methods
    }
    assert served == methods
    successor = u.Successor.__idlc_interface__
    assert set(successor.requests) == set(successor.notifications) == {"proxy/successor"}


# -- MCP over ACP and a child session's state (`mcp/message`, `StateUpdate`) ----------------

MCP_AGENT = [PYTHON, str(HERE / "idlc_mcp_agent.py")]
TS_MCP_AGENT = ["node", str(JS / "mcp_agent.mjs")]
NOTIFICATION = {
    "serverId": "srv-1",
    "requestId": "mcp-7",
    "method": "notifications/progress",
    "params": {"progress": 1},
}


def test_the_official_ts_client_and_an_idlc_agent_speak_mcp_over_acp() -> None:
    """`mcp/message` both ways on one connection: the TypeScript client notifies the agent
    and answers its requests; the agent's child states reach the client as sent."""
    require_node_modules()
    from idlc_runtime.hooks import enc_hook

    from .idlc_mcp_agent import STATES

    completed = subprocess.run(
        ["node", str(JS / "mcp_client.mjs"), "--", *MCP_AGENT],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=RUN_TIMEOUT,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    found = json.loads(completed.stdout.splitlines()[-1])
    assert found["prompt"] == {"stopReason": "end_turn"}
    assert [(r["method"], r["requestId"]) for r in found["requests"]] == [
        ("tools/list", "r-tools/list"),
        ("fail", "r-fail"),
    ]
    chunk, *states = found["updates"]
    report = json.loads(chunk["content"]["text"])
    assert report["notifications"] == [NOTIFICATION]
    assert report["answer_classes"] == ["MessageMcpResponseOption1", "MessageMcpResponseOption2"]
    assert report["answers"][0] == {"result": {"tools": [{"name": "echo"}], "echoed": {"n": 1}}}
    # The MCP error's explicit `"data": null` is kept (optional<nullable<json>>), and so are
    # the members it does not declare (an open record): G15.
    assert report["answers"][1] == {
        "error": {
            "code": -32602,
            "message": "no such tool",
            "data": None,
            "retryAfterMs": 50,
            "hint": {"tool": "echo"},
        }
    }
    # The TypeScript SDK validated each snapshot and kept it as the agent encoded it.
    import msgspec

    assert [update["state"] for update in states] == [
        json.loads(msgspec.json.encode(state, enc_hook=enc_hook)) for state in STATES
    ]


async def mcp_with_our_client(agent: list[str]) -> tuple[Any, list[Any], list[Any]]:
    from idlc_acp import PromptRequest
    from idlc_acp.unstable import Client as UnstableClient
    from idlc_acp.unstable import (
        ContentBlockText,
        McpError,
        MessageMcpNotification,
        MessageMcpRequest,
        MessageMcpResponse,
        MessageMcpResponseOption1,
        MessageMcpResponseOption2,
    )
    from idlc_acp.unstable import RequestPermissionOutcomeCancelled as Cancelled
    from idlc_acp.unstable import RequestPermissionRequest as PermissionRequest
    from idlc_acp.unstable import RequestPermissionResponse as PermissionResponse
    from idlc_acp.unstable import SessionNotification as Notification

    requests: list[MessageMcpRequest] = []
    updates: list[Any] = []

    class McpClient(UnstableClient):
        async def update(self, input: Notification) -> None:
            updates.append(input.update)

        async def request_permission(self, input: PermissionRequest) -> PermissionResponse:
            return PermissionResponse(outcome=Cancelled())

        async def message_mcp(self, input: MessageMcpRequest) -> MessageMcpResponse:
            requests.append(input)
            if input.method == "fail":
                error = McpError(code=-32602, message="no", extra={"retryAfterMs": 50})
                return MessageMcpResponseOption2(error=error)
            return MessageMcpResponseOption1(result={"tools": [], "echoed": input.params})

    async with spawn_agent(McpClient(), agent, env=child_env()) as connection:
        await connection.initialize(InitializeRequest(protocol_version=1))
        created = await connection.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
        await connection.unstable().message_mcp(
            MessageMcpNotification(
                server_id="srv-1",
                request_id="mcp-7",
                method="notifications/progress",
                params={"progress": 1},
            )
        )
        answer = await connection.prompt(PromptRequest(session_id=created.session_id, prompt=[]))
    chunk = updates[0].content
    assert isinstance(chunk, ContentBlockText)
    return answer, requests, [json.loads(chunk.text), *updates[1:]]


@pytest.mark.parametrize("agent", ["ts", "idlc"])
def test_idlc_client_speaks_mcp_over_acp(agent: str) -> None:
    """idlc's client notifies the agent on `mcp/message` and answers its `mcp/message`
    requests, and reads the child states the agent sends into their classes."""
    from idlc_acp import StopReason
    from idlc_acp import unstable as u

    if agent == "ts":
        require_node_modules()
    command = TS_MCP_AGENT if agent == "ts" else MCP_AGENT
    answer, requests, (report, *states) = asyncio.run(
        asyncio.wait_for(mcp_with_our_client(command), 60)
    )
    assert answer.stop_reason == StopReason.END_TURN
    assert [(r.method, r.request_id, r.params) for r in requests] == [
        ("tools/list", "r-tools/list", {"n": 1}),
        ("fail", "r-fail", {"n": 1}),
    ]
    assert report["notifications"] == [NOTIFICATION]
    assert report["answers"] == [
        {"result": {"tools": [], "echoed": {"n": 1}}},
        # The member McpError does not declare reached the agent (G15).
        {"error": {"code": -32602, "message": "no", "retryAfterMs": 50}},
    ]
    assert all(isinstance(update, u.SessionUpdateSubagentUpdate) for update in states)
    kinds = [type(update.state) for update in states]
    if agent == "ts":
        assert kinds == [
            u.StateUpdateIdleMaxTokens,
            u.StateUpdateIdleError,
            u.StateUpdateIdleDefault,
            u.StateUpdateIdleUnknown,
            u.StateUpdateUnknown,
            u.StateUpdateUnknown_,
        ]
        assert states[0].state.usage.total_tokens == 3
        assert states[1].state.error.message == "child failed"
        assert states[3].state.data["extra"] == 1
        assert states[5].state.tag == "_sleeping" and states[5].state.data["until"] == "later"
    else:
        from .idlc_mcp_agent import STATES

        assert [update.state for update in states] == STATES


#: JSON-RPC envelopes of the unstable schema (method + params unions), not ACP types.
ENVELOPES = {
    f"{side}{kind}"
    for side in ("Agent", "Client", "Proxy", "Ext")
    for kind in ("Request", "Response", "Notification")
}


def test_every_type_of_the_unstable_schema_is_generated() -> None:
    """Nothing of schema.unstable.json is left out but the envelopes."""
    from idlc_acp import unstable as u

    defs = json.loads(SCHEMA.read_text())["$defs"]
    assert ENVELOPES <= set(defs)
    assert [name for name in defs if name not in ENVELOPES and not hasattr(u, name)] == []


TOOL = HERE.parents[1] / "tools" / "acp_idl.py"
ACP_IDL = HERE.parents[1] / "idl" / "acp.idl"


def _drawn(tmp_path: Any, *arguments: str) -> Any:
    """What tools/acp_idl.py writes with `arguments`, formatted, as a file under tmp_path."""
    drawn = subprocess.run(
        [PYTHON, str(TOOL), *arguments], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    target = tmp_path / "idl" / "acp.idl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(drawn, encoding="utf-8")
    subprocess.run(
        [PYTHON, "-m", "idlc", "fmt", str(target)], capture_output=True, timeout=120, check=True
    )
    return target


def test_acp_idl_is_what_tools_acp_idl_writes(tmp_path: Any) -> None:
    """idl/acp.idl is the converter's merge of the two schemas, formatted: no hand edit
    hides in it."""
    target = _drawn(tmp_path)
    assert target.read_text(encoding="utf-8") == ACP_IDL.read_text(encoding="utf-8")


def test_the_stable_package_is_what_the_stable_schema_alone_makes(tmp_path: Any) -> None:
    """Every addition of the unstable schema is marked: the stable view of idl/acp.idl
    generates exactly the package that schema.json alone does, so no unstable item leaks
    into idlc_acp.protocol."""
    target = _drawn(tmp_path, "--stable")
    out = tmp_path / "out"
    subprocess.run(
        [PYTHON, "-m", "idlc", "generate", str(target), "--out", str(out)]
        + ["--package", "protocol", "-A", "W0002"],
        capture_output=True,
        timeout=300,
        check=True,
    )
    committed = HERE.parents[1] / "acp" / "idlc_acp" / "protocol"
    names = sorted(path.name for path in committed.glob("*.py"))
    assert names == sorted(path.name for path in (out / "protocol").glob("*.py"))
    for name in names:
        ours = (out / "protocol" / name).read_text(encoding="utf-8").splitlines()
        theirs = (committed / name).read_text(encoding="utf-8").splitlines()
        # The header names the source by its path, which differs; nothing else may.
        assert [line for line in ours if not line.startswith("#   ")] == [
            line for line in theirs if not line.startswith("#   ")
        ], name


def test_the_unstable_package_defines_only_what_the_features_change() -> None:
    """idlc_acp.unstable imports from idlc_acp.protocol every declaration the unstable
    items leave alone: one class per declaration, and not a second family of types."""
    from idlc_acp import protocol as p
    from idlc_acp import unstable as u

    # Left alone: the very same classes.
    for name in ("SessionId", "ContentBlock", "TextContent", "ToolKind", "CancelNotification"):
        assert getattr(u, name) is getattr(p, name), name
    assert u.Protocol is p.Protocol
    # Changed: a field, a case or a member of its own is added.
    assert "archived" in u.SessionInfo.__struct_fields__
    assert "archived" not in p.SessionInfo.__struct_fields__
    assert u.SessionInfo is not p.SessionInfo
    assert hasattr(u.Agent, "fork_session") and not hasattr(p.Agent, "fork_session")
    # Nothing only the unstable schema has is in the stable package.
    assert not hasattr(p, "ForkSessionRequest") and not hasattr(p, "Proxy")
    source = (HERE.parents[1] / "acp" / "idlc_acp" / "unstable" / "_types.py").read_text()
    assert "class SessionId" not in source and "class TextContent" not in source
