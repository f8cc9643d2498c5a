"""A proxy chain (UNSTABLE; docs/acp.md, "The unstable surface"): our client, our conductor
(`python -m idlc_acp.conductor`), one or two `ChainProxy` proxies and the echo agent, each
a real process on real pipes. A prompt travels client → conductor → proxy → (conductor →)
agent and the agent's updates, permission request and file read travel back the same way.

The TypeScript SDK 2.4.0 generates the proxy-chain types but does not route them (its docs
say so), so there is no official peer to interoperate with: the conductor and proxies here
are idlc's own, and what the client sees is checked against the ACP schema.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import idlc_acp
from idlc_acp import LoadSessionRequest, spawn_agent
from idlc_acp.proxy_chain import envelope, hop_local
from idlc_runtime import RpcError, Unsupported

from .conftest import ACP, ECHO_AGENT, TEE
from .test_echo_agent import (
    README_FIRST_LINE,
    RecordingClient,
    check_wire,
    new_session,
    run,
    start,
    text_prompt,
)

PROXY = '''
import msgspec

from idlc_acp import unstable
from idlc_acp.proxy_chain import ChainProxy, run_proxy


class Tagging(ChainProxy):
    """Prefixes every text block of a prompt, and signs the chain's `agentInfo`."""

    async def prompt(self, input: unstable.PromptRequest) -> unstable.PromptResponse:
        blocks = [
            msgspec.structs.replace(block, text="[proxied] " + block.text)
            if isinstance(block, unstable.ContentBlockText)
            else block
            for block in input.prompt
        ]
        return await super().prompt(msgspec.structs.replace(input, prompt=blocks))

    async def initialize_proxy(
        self, input: unstable.InitializeProxyRequest
    ) -> unstable.InitializeProxyResponse:
        answer = await super().initialize_proxy(input)
        info = answer.agent_info
        name = "tagging proxy > " + (info.name if info is not None else "?")
        return msgspec.structs.replace(
            answer, agent_info=unstable.Implementation(name=name, version="1")
        )


run_proxy(Tagging())
'''


@pytest.fixture
def proxy(tmp_path: Path) -> Path:
    script = tmp_path / "tagging_proxy.py"
    script.write_text(PROXY, encoding="utf-8")
    return script


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_text(f"{README_FIRST_LINE}\nmore text\n")
    return folder


def chain_argv(log: Path, *proxies: Path) -> list[str]:
    """The conductor, behind a tee that logs what the client and the conductor exchange."""
    components = [shlex.join([sys.executable, str(proxy)]) for proxy in proxies]
    components.append(shlex.join([sys.executable, str(ECHO_AGENT)]))
    conductor = [sys.executable, "-m", "idlc_acp.conductor", *components]
    return [sys.executable, str(TEE), str(log), "--", *conductor]


def tee(log: Path, script: Path) -> Path:
    """A one-line launcher running `script` behind a tee that logs its connection to the
    conductor (the conductor takes a component as one command line)."""
    launcher = log.with_suffix(".sh.py")
    launcher.write_text(
        "import os, sys\n"
        f"os.execv(sys.executable, {[sys.executable, str(TEE), str(log), '--', sys.executable, str(script)]!r})\n",
        encoding="utf-8",
    )
    return launcher


@cache
def _unstable_schema() -> tuple[Any, dict[str, dict[str, str]]]:
    """A validator factory for `schema.unstable.json` and its defs by method and kind."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    document = json.loads((ACP / "schema.unstable.json").read_text())
    registry: Registry[Any] = Registry().with_resource(
        "urn:acp:v1u", Resource.from_contents(document)
    )
    by_method: dict[str, dict[str, str]] = {}
    for name, node in document["$defs"].items():
        if "x-method" in node:
            kind = "result" if name.endswith("Response") else "request"
            kind = "notification" if name.endswith("Notification") else kind
            by_method.setdefault(node["x-method"], {})[kind] = name

    def errors(instance: Any, definition: str) -> list[str]:
        validator = Draft202012Validator(
            {"$ref": f"urn:acp:v1u#/$defs/{definition}"}, registry=registry
        )
        return [f"{definition}: {error.message}" for error in validator.iter_errors(instance)]

    return errors, by_method


def proxy_wire_errors(log: Path) -> tuple[int, list[str]]:
    """How many messages crossed a proxy's connection, and what in them (the wrapped
    messages of `proxy/successor` included, and results by the method they answer) is not
    valid under the unstable schema."""
    errors, by_method = _unstable_schema()
    pending: dict[tuple[str, Any], str] = {}  # (direction of the request, id) -> method
    problems: list[str] = []
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    for entry in entries:
        message = json.loads(entry["line"])
        method, params = message.get("method"), message.get("params")
        notify = "id" not in message
        if method == "proxy/successor":
            kind = "notification" if notify else "request"
            problems += errors(params, by_method[method][kind])
            method, params = params["method"], params.get("params")  # what it wraps
        if method is not None:
            if not notify:
                pending[(entry["dir"], message["id"])] = method
            kind = "notification" if notify else "request"
            problems += errors(params, by_method[method][kind])
            continue
        answered = pending.pop(("in" if entry["dir"] == "out" else "out", message["id"]))
        if "error" in message:
            problems += errors(message["error"], "Error")
        else:
            problems += errors(message["result"], by_method[answered]["result"])
    return len(entries), problems


def test_a_turn_travels_through_a_proxy_and_back(
    proxy: Path, project: Path, tmp_path: Path
) -> None:
    client = RecordingClient()
    log, proxy_log = tmp_path / "client-side.jsonl", tmp_path / "proxy-side.jsonl"

    async def main() -> None:
        async with spawn_agent(client, chain_argv(log, tee(proxy_log, proxy))) as agent:
            init, _, _ = await start(agent)
            assert init.protocol_version == 1
            assert init.agent_info is not None
            assert init.agent_info.name == "tagging proxy > idlc-echo-agent"
            session_id = await new_session(agent, project)
            answer = await agent.prompt(text_prompt(session_id, "one", "two"))
            assert answer.stop_reason is idlc_acp.StopReason.END_TURN

    run(main())
    # The agent echoed what the proxy changed; its updates came back through the proxy.
    assert client.texts() == ["[proxied] one", "[proxied] two"]
    # The agent's own requests to the client crossed the chain the other way and back.
    assert len(client.permissions) == 1 and len(client.reads) == 1
    assert client.reads[0].path == str(project / "README.md")
    final = client.updates[-1].update
    assert isinstance(final, idlc_acp.SessionUpdateToolCallUpdate)
    assert final.status is idlc_acp.ToolCallStatus.COMPLETED
    assert check_wire(log) >= 10
    # Between the conductor and the proxy: proxy/initialize, and proxy/successor both ways
    # and in both kinds, each valid with what it wraps.
    count, problems = proxy_wire_errors(proxy_log)
    assert problems == [] and count >= 20
    methods = [
        json.loads(json.loads(line)["line"]).get("method")
        for line in proxy_log.read_text().splitlines()
    ]
    assert "proxy/initialize" in methods and methods.count("proxy/successor") >= 8


def test_two_proxies_each_see_the_prompt(proxy: Path, project: Path, tmp_path: Path) -> None:
    client = RecordingClient()
    log = tmp_path / "client-side.jsonl"

    async def main() -> None:
        async with spawn_agent(client, chain_argv(log, proxy, proxy)) as agent:
            init, _, _ = await start(agent)
            assert init.agent_info is not None
            assert init.agent_info.name == "tagging proxy > tagging proxy > idlc-echo-agent"
            session_id = await new_session(agent, project)
            answer = await agent.prompt(text_prompt(session_id, "hi"))
            assert answer.stop_reason is idlc_acp.StopReason.END_TURN

    run(main())
    assert client.texts() == ["[proxied] [proxied] hi"]
    assert len(client.reads) == 1
    check_wire(log)


def test_errors_and_cancellation_pass_through_unchanged(
    proxy: Path, project: Path, tmp_path: Path
) -> None:
    """What the proxy does not implement (`session/load`, `session/cancel`) is forwarded as
    it came: the agent's -32601 reaches the client as the agent wrote it, and a
    `session/cancel` stops the agent's turn."""
    chained, direct = RecordingClient(permission="wait"), RecordingClient()
    log = tmp_path / "client-side.jsonl"
    errors: list[Unsupported] = []

    async def load(agent: Any, session_id: str) -> None:
        with pytest.raises(Unsupported) as failure:
            await agent.load_session(
                LoadSessionRequest(session_id=session_id, cwd=str(project), mcp_servers=[])
            )
        errors.append(failure.value)

    async def main() -> None:
        async with spawn_agent(chained, chain_argv(log, proxy)) as agent:
            await start(agent)
            session_id = await new_session(agent, project)
            await load(agent, session_id)
            turn = asyncio.ensure_future(agent.prompt(text_prompt(session_id, "wait")))
            await chained.asked.wait()
            await agent.cancel(idlc_acp.CancelNotification(session_id=session_id))
            answer = await turn
            assert answer.stop_reason is idlc_acp.StopReason.CANCELLED
        async with spawn_agent(direct, [sys.executable, str(ECHO_AGENT)]) as agent:
            await start(agent)
            await load(agent, await new_session(agent, project))

    run(main())
    through, straight = errors
    assert (through.code, through.message, through.data) == (
        straight.code,
        straight.message,
        straight.data,
    )
    check_wire(log)


def test_an_envelope_leaves_absent_params_absent() -> None:
    assert envelope("session/cancel", None) == {"method": "session/cancel"}
    assert envelope("m", {"a": 1}) == {"method": "m", "params": {"a": 1}}


def test_cancelling_a_forward_does_not_cancel_the_call_sent_on() -> None:
    """Hop-local cancellation: the handler that forwarded is cancelled; the call it made
    runs to its end."""

    async def main() -> None:
        release = asyncio.Event()
        finished: list[str] = []

        async def sent_on() -> str:
            await release.wait()
            finished.append("done")
            return "result"

        inner = asyncio.ensure_future(sent_on())
        handler = asyncio.ensure_future(hop_local(inner))
        await asyncio.sleep(0)  # the handler is now waiting on the forwarded call
        handler.cancel()
        with pytest.raises(asyncio.CancelledError):
            await handler
        assert not inner.cancelled()
        release.set()
        assert await inner == "result"
        assert finished == ["done"]

    asyncio.run(main())


def test_a_successor_that_exited_is_an_error_the_conductor_answers_itself(
    proxy: Path, tmp_path: Path
) -> None:
    client = RecordingClient()
    log = tmp_path / "client-side.jsonl"
    argv = chain_argv(log, proxy)
    argv[-1] = shlex.join([sys.executable, "-c", "pass"])  # an agent that exits at once

    async def main() -> None:
        async with spawn_agent(client, argv) as agent:
            with pytest.raises(RpcError) as failure:
                await start(agent)
            assert failure.value.code == -32603
            assert failure.value.message == "Internal error: component 1 has exited"

    run(main())
    check_wire(log)


@pytest.mark.parametrize(
    ("commands", "says"),
    [
        (["'unbalanced"], "cannot read a command"),
        ([""], "every component needs a command"),
        ([], "usage:"),
        (["/nonexistent/agent-binary"], "cannot start a component"),
    ],
)
def test_the_conductor_refuses_bad_commands_clearly(commands: list[str], says: str) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "idlc_acp.conductor", *commands],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert completed.returncode == 1
    assert says in completed.stderr and "Traceback" not in completed.stderr


def test_a_client_cannot_speak_for_the_conductor(
    proxy: Path, project: Path, tmp_path: Path
) -> None:
    """`proxy/…` methods are the conductor's own with its proxies: from the client they are
    -32601 and go nowhere (review finding: a client's `proxy/successor` reached proxy 0 as if
    its successor had sent it, and came back to the client as a request)."""
    client = RecordingClient()
    log = tmp_path / "client-side.jsonl"

    async def main() -> None:
        async with spawn_agent(client, chain_argv(log, proxy)) as agent:
            await start(agent)
            wrapped = {"method": "fs/read_text_file", "params": {"sessionId": "s", "path": "/"}}
            for method, params in (
                ("proxy/successor", wrapped),
                ("proxy/initialize", {"protocolVersion": 1}),
            ):
                with pytest.raises(Unsupported):
                    await agent.peer.request(method, params, Any)
            await agent.peer.notify("proxy/successor", wrapped)
            session = await new_session(agent, project)
            answer = await agent.prompt(text_prompt(session, "still here"))
            assert answer.stop_reason is idlc_acp.StopReason.END_TURN

    run(main())
    assert client.texts() == ["[proxied] still here"]
    assert all(read.path != "/" for read in client.reads)  # the spoofed read went nowhere
