"""Our echo agent driven by our client over real subprocess stdio, every message checked
against the ACP schema (a tee between the two logs both directions)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import idlc_acp  # noqa: E402
from idlc_acp import (  # noqa: E402  # noqa: E402
    CancelNotification,
    Client,
    ClientCapabilities,
    ContentBlockText,
    FileSystemCapabilities,
    InitializeRequest,
    InitializeResponse,
    LoadSessionRequest,
    NewSessionRequest,
    PromptRequest,
    PromptResponse,
    ReadTextFileRequest,
    ReadTextFileResponse,
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    spawn_agent,
)
from idlc_acp.client import AgentConnection  # noqa: E402
from idlc_runtime import Unsupported  # noqa: E402

from .conftest import ECHO_AGENT, TEE, message_errors

README_FIRST_LINE = "# Echo test project"


class RecordingClient(Client):
    def __init__(self, permission: str = "allow") -> None:
        self.permission = permission
        self.updates: list[SessionNotification] = []
        self.permissions: list[RequestPermissionRequest] = []
        self.permission_answers: list[RequestPermissionResponse] = []
        self.reads: list[ReadTextFileRequest] = []
        self.first_update = asyncio.Event()
        self.asked = asyncio.Event()

    async def update(self, input: SessionNotification) -> None:
        self.updates.append(input)
        self.first_update.set()

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        self.permissions.append(input)
        self.asked.set()
        if self.permission == "wait":
            await asyncio.sleep(3600)
        kind = "allow_once" if self.permission == "allow" else "reject_once"
        option = next(o for o in input.options if o.kind.value == kind)
        answer = RequestPermissionResponse(
            outcome=RequestPermissionOutcomeSelected(option_id=option.option_id)
        )
        self.permission_answers.append(answer)
        return answer

    async def read_text_file(self, input: ReadTextFileRequest) -> ReadTextFileResponse:
        self.reads.append(input)
        lines = Path(input.path).read_text().splitlines(keepends=True)
        start = (input.line or 1) - 1
        end = None if input.limit is None else start + input.limit
        return ReadTextFileResponse(content="".join(lines[start:end]))

    def texts(self) -> list[str]:
        return [
            u.update.content.text
            for u in self.updates
            if isinstance(u.update, idlc_acp.SessionUpdateAgentMessageChunk)
            and isinstance(u.update.content, ContentBlockText)
        ]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text(f"{README_FIRST_LINE}\nmore text\n")
    return tmp_path


@pytest.fixture
def wire_log(tmp_path: Path) -> Path:
    return tmp_path / "wire.jsonl"


def check_wire(log: Path) -> int:
    """Every message of the log is valid ACP; returns how many there were."""
    requests: dict[Any, str] = {}
    count = 0
    for entry in log.read_text().splitlines():
        record = json.loads(entry)
        message = json.loads(record["line"])
        errors = message_errors(message, requests)
        assert errors == [], (record["dir"], message.get("method"), errors[:3])
        count += 1
    return count


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 30))


def agent_argv(log: Path) -> list[str]:
    return [sys.executable, str(TEE), str(log), "--", sys.executable, str(ECHO_AGENT)]


async def start(agent: AgentConnection, fs: bool = True) -> tuple[InitializeResponse, str, Any]:
    init = await agent.initialize(
        InitializeRequest(
            protocol_version=1,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=fs, write_text_file=False)
            ),
        )
    )
    return init, "", None


async def new_session(agent: AgentConnection, cwd: Path) -> str:
    session = await agent.new_session(NewSessionRequest(cwd=str(cwd), mcp_servers=[]))
    return session.session_id


def text_prompt(session_id: str, *texts: str) -> PromptRequest:
    return PromptRequest(session_id=session_id, prompt=[ContentBlockText(text=t) for t in texts])


def test_a_full_turn(project: Path, wire_log: Path) -> None:
    client = RecordingClient()

    async def main() -> None:
        async with spawn_agent(client, agent_argv(wire_log)) as agent:
            init, _, _ = await start(agent)
            assert init.protocol_version == 1
            caps = init.agent_capabilities
            assert not caps.load_session
            assert caps.session_capabilities == idlc_acp.SessionCapabilities()
            assert caps.auth == idlc_acp.AgentAuthCapabilities()
            session_id = await new_session(agent, project)
            answer = await agent.prompt(text_prompt(session_id, "one", "two", "three"))
            assert answer.stop_reason is idlc_acp.StopReason.END_TURN

    run(main())
    assert client.texts() == ["one", "two", "three"]
    kinds = [type(u.update).__name__ for u in client.updates]
    assert kinds[3] == "SessionUpdateToolCall"
    assert len(client.permissions) == 1 and len(client.reads) == 1
    assert client.reads[0].path == str(project / "README.md")
    final = client.updates[-1].update
    assert isinstance(final, idlc_acp.SessionUpdateToolCallUpdate)
    assert final.status is idlc_acp.ToolCallStatus.COMPLETED
    assert final.content is not None
    block = final.content[0]
    assert isinstance(block, idlc_acp.ToolCallContentContent)
    assert isinstance(block.content, ContentBlockText) and block.content.text == README_FIRST_LINE
    assert check_wire(wire_log) >= 12


def test_rejected_permission_and_no_file_capability_read_nothing(
    project: Path, wire_log: Path
) -> None:
    rejecting = RecordingClient(permission="reject")
    no_fs = RecordingClient()

    async def main() -> None:
        async with spawn_agent(rejecting, agent_argv(wire_log)) as agent:
            await start(agent)
            answer = await agent.prompt(text_prompt(await new_session(agent, project), "x"))
            assert answer.stop_reason is idlc_acp.StopReason.END_TURN
        async with spawn_agent(no_fs, agent_argv(wire_log)) as agent:
            await start(agent, fs=False)
            answer = await agent.prompt(text_prompt(await new_session(agent, project), "x"))
            assert answer.stop_reason is idlc_acp.StopReason.END_TURN

    run(main())
    for client in (rejecting, no_fs):
        assert client.reads == []
        final = client.updates[-1].update
        assert isinstance(final, idlc_acp.SessionUpdateToolCallUpdate)
        assert final.status is idlc_acp.ToolCallStatus.FAILED
    check_wire(wire_log)


def test_cancel_stops_the_turn(project: Path, wire_log: Path) -> None:
    client = RecordingClient()

    async def main() -> None:
        async with spawn_agent(client, agent_argv(wire_log)) as agent:
            await start(agent)
            session_id = await new_session(agent, project)
            turn = asyncio.ensure_future(
                agent.prompt(text_prompt(session_id, *[f"block {i}" for i in range(20)]))
            )
            await client.first_update.wait()
            await agent.cancel(CancelNotification(session_id=session_id))
            answer = await turn
            assert answer.stop_reason is idlc_acp.StopReason.CANCELLED
            # The agent still serves the session afterwards.
            again = await agent.prompt(text_prompt(session_id, "after"))
            assert again.stop_reason is idlc_acp.StopReason.END_TURN

    run(main())
    texts = client.texts()
    assert 1 <= texts.index("after") < 20
    check_wire(wire_log)


def test_cancel_during_permission_resolves_it_as_cancelled(project: Path, wire_log: Path) -> None:
    client = RecordingClient(permission="wait")

    async def main() -> None:
        async with spawn_agent(client, agent_argv(wire_log)) as agent:
            await start(agent)
            session_id = await new_session(agent, project)
            turn = asyncio.ensure_future(agent.prompt(text_prompt(session_id, "hi")))
            await client.asked.wait()
            await agent.cancel(CancelNotification(session_id=session_id))
            answer = await turn
            assert answer.stop_reason is idlc_acp.StopReason.CANCELLED

    run(main())
    assert client.reads == []
    entries = [json.loads(e) for e in wire_log.read_text().splitlines()]
    outgoing = [json.loads(e["line"]) for e in entries if e["dir"] == "out"]
    incoming = [json.loads(e["line"]) for e in entries if e["dir"] == "in"]
    permission_ids = {m["id"] for m in outgoing if m.get("method") == "session/request_permission"}
    answers = [m for m in incoming if m.get("id") in permission_ids and "method" not in m]
    # Answered exactly once, with the cancelled outcome (or -32800 if the agent's
    # `$/cancel_request` got there first); never left hanging.
    assert len(answers) == 1
    if "result" in answers[0]:
        assert answers[0]["result"] == {"outcome": {"outcome": "cancelled"}}
    else:
        assert answers[0]["error"]["code"] == -32800
    check_wire(wire_log)


def test_unsupported_and_extension_methods(project: Path, wire_log: Path) -> None:
    client = RecordingClient()

    async def main() -> None:
        async with spawn_agent(client, agent_argv(wire_log)) as agent:
            await start(agent)
            session_id = await new_session(agent, project)
            with pytest.raises(Unsupported) as failure:
                await agent.load_session(
                    LoadSessionRequest(session_id=session_id, cwd=str(project), mcp_servers=[])
                )
            assert failure.value.code == -32601
            with pytest.raises(Unsupported):
                await agent.peer.request("_vendor/unknown", {"x": 1}, Any)
            await agent.peer.notify("_vendor/note", {"y": 2})
            await agent.peer.notify("made/up", {})
            answer = await agent.prompt(text_prompt(session_id, "still here"))
            assert answer.stop_reason is idlc_acp.StopReason.END_TURN

    run(main())
    assert client.texts() == ["still here"]


def test_a_two_mib_prompt_comes_back_whole(project: Path, wire_log: Path) -> None:
    client = RecordingClient()
    big = ("0123456789abcdef" * 65536 * 2)[: 2 * 1024 * 1024 - 3] + "end"

    async def main() -> None:
        async with spawn_agent(client, agent_argv(wire_log)) as agent:
            await start(agent)
            session_id = await new_session(agent, project)
            answer = await agent.prompt(text_prompt(session_id, big, "small"))
            assert answer.stop_reason is idlc_acp.StopReason.END_TURN

    run(main())
    assert client.texts() == [big, "small"]


def test_meta_cannot_shadow_the_session_id(project: Path, wire_log: Path) -> None:
    client = RecordingClient()

    async def main() -> None:
        async with spawn_agent(client, agent_argv(wire_log)) as agent:
            await start(agent)
            session_id = await new_session(agent, project)
            raw = {
                "sessionId": session_id,
                "prompt": [{"type": "text", "text": "meta"}],
                "_meta": {"sessionId": "someone-else", "prompt": []},
            }
            answer = await agent.peer.request("session/prompt", raw, PromptResponse)
            assert answer.stop_reason is idlc_acp.StopReason.END_TURN
            return session_id

    session_id = run(main())
    assert {u.session_id for u in client.updates} == {session_id}
    assert client.texts() == ["meta"]
    check_wire(wire_log)


def test_capabilities_follow_what_an_agent_implements() -> None:
    from idlc_acp import Agent, agent_capabilities

    class Rich(Agent):
        async def initialize(self, input: Any) -> Any: ...
        async def new_session(self, input: Any) -> Any: ...
        async def prompt(self, input: Any) -> Any: ...
        async def load_session(self, input: Any) -> Any: ...
        async def list_sessions(self, input: Any) -> Any: ...
        async def close_session(self, input: Any) -> Any: ...
        async def logout(self, input: Any) -> Any: ...

    caps = agent_capabilities(Rich())
    assert caps.load_session
    assert caps.session_capabilities is not None
    assert caps.session_capabilities.list_ is not None
    assert caps.session_capabilities.close is not None
    assert caps.session_capabilities.delete is None and caps.session_capabilities.resume is None
    assert caps.auth is not None and caps.auth.logout is not None
