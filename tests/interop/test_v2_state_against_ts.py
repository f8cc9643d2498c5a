"""idlc_acp's v2 session state against the official TypeScript SDK 2.4.0's (hypothesis).

The TypeScript v2 client has no general patch accumulator, but its `ActiveSession`
(dist/v2/acp.js) keeps some state from a session's updates: `configOptions` (replaced by
each `config_option_update`), `background` (from each `state_update`; unknown when omitted,
`null`, malformed or of a state it does not know), `canCancelToolCall` / `canCancelTerminal`
(from `capabilities.cancel` in `tool_call_update` / `terminal_update` patches) and
`readTextUntilIdle()` (a full `agent_message` replaces its message's content, chunks append;
text only). Hypothesis draws sequences of such updates — explicit `null`s, absent and
malformed fields, ids never updated, interleaved message ids, updates of other kinds — and
an agent written as raw JSON lines sends each sequence, one session per example, both to
js/v2_state_client.mjs (one Node process for the whole run) and to a `ClientV2` over a
socket pair; what each side kept must be the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
from collections.abc import AsyncIterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc_acp import v2
from idlc_acp.v2_client import ClientV2, SessionStateV2
from idlc_acp.wire import acp_options
from idlc_runtime import connect_fds

from .support import JS, REPO, child_env, require_node_modules

TS_STATE_CLIENT = ["node", str(JS / "v2_state_client.mjs")]
#: The ids the clients are asked about: updated ones, and one of each never updated.
TOOL_CALL_IDS = ["c0", "c1", "c9"]
TERMINAL_IDS = ["t0", "t1", "t9"]
STEP_TIMEOUT = 30.0

# ---------------------------------------------------------------- the updates

TEXT = st.text(alphabet="ab ", max_size=3).map(lambda text: {"type": "text", "text": text})
IMAGE = st.just({"type": "image", "data": "AAAA", "mimeType": "image/png"})
BLOCK = st.one_of(TEXT, TEXT, IMAGE)
AGENT_MESSAGE_IDS = st.sampled_from(["a0", "a1", "a2"])
CONFIG_OPTION = st.fixed_dictionaries(
    {
        "configId": st.sampled_from(["model", "mode"]),
        "name": st.just("Option"),
        "type": st.just("select"),
        "currentValue": st.just("x"),
        "options": st.just([{"value": "x", "name": "X"}]),
    }
)
BACKGROUND_WORK = st.one_of(
    st.sampled_from(["t0", "t1"]).map(lambda id: {"type": "terminal", "terminalId": id}),
    st.sampled_from(["c0", "c1"]).map(lambda id: {"type": "tool_call", "toolCallId": id}),
    st.just({"type": "future_work", "x": 1}),  # a newer peer's kind: kept as it came
)
BACKGROUND = st.one_of(
    st.none(),
    st.lists(BACKGROUND_WORK, max_size=2),
    # Malformed: treated as not reported.
    st.sampled_from([5, "x", [5], [{"type": "terminal"}], {"type": "terminal"}]),
)
CAPABILITIES = st.one_of(
    st.none(),
    st.sampled_from(
        [{}, {"cancel": {}}, {"cancel": None}, {"cancel": 5}, 5, {"cancel": {"_meta": {}}}]
    ),
)


def _update(kind: str, required: dict[str, Any], **optional: Any) -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries({"sessionUpdate": st.just(kind), **required}, optional=optional)


UPDATE = st.one_of(
    _update("agent_message_chunk", {"messageId": AGENT_MESSAGE_IDS, "content": BLOCK}),
    _update(
        "agent_message",
        {"messageId": AGENT_MESSAGE_IDS},
        content=st.one_of(st.none(), st.lists(BLOCK, max_size=2)),
    ),
    # Text the TypeScript helper does not collect.
    _update("user_message_chunk", {"messageId": st.just("u0"), "content": TEXT}),
    _update("agent_thought_chunk", {"messageId": st.just("h0"), "content": TEXT}),
    _update("config_option_update", {"configOptions": st.lists(CONFIG_OPTION, max_size=2)}),
    _update(
        "state_update",
        {"state": st.sampled_from(["running", "requires_action", "paused"])},
        background=BACKGROUND,
    ),
    _update(
        "tool_call_update",
        {"toolCallId": st.sampled_from(["c0", "c1"])},
        capabilities=CAPABILITIES,
        title=st.one_of(st.none(), st.just("Read")),
    ),
    _update(
        "terminal_update",
        {"terminalId": st.sampled_from(["t0", "t1"])},
        capabilities=CAPABILITIES,
        command=st.one_of(st.none(), st.just("ls")),
    ),
)
#: The one idle `state_update` of an example, last: both clients read until it.
IDLE = _update(
    "state_update",
    {"state": st.just("idle"), "stopReason": st.just("end_turn")},
    background=BACKGROUND,
)
EXAMPLES = st.tuples(st.lists(UPDATE, max_size=12), IDLE).map(lambda drawn: [*drawn[0], drawn[1]])

# ---------------------------------------------------------------- the agent, as raw lines


class RawAgent:
    """The agent's side of one connection, written as JSON lines: it answers `initialize`,
    `session/new` (naming in `_meta` the ids the client reports on) and `session/prompt`,
    then sends the session's updates."""

    def __init__(self, name: str, reader: asyncio.StreamReader, write: Any) -> None:
        self.name = name
        self._reader = reader
        self._write = write

    def _send(self, message: dict[str, Any]) -> None:
        self._write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())

    async def _request(self, method: str) -> dict[str, Any]:
        while True:
            line = await self._reader.readline()
            assert line, f"{self.name} closed the connection before {method}"
            message: dict[str, Any] = json.loads(line)
            if message.get("method") == method and "id" in message:
                return message

    async def initialize(self) -> None:
        request = await self._request("initialize")
        info = {"name": "raw-agent", "version": "1"}
        self._send({"id": request["id"], "result": {"protocolVersion": 2, "info": info}})

    async def session(self, session_id: str, updates: list[dict[str, Any]]) -> None:
        request = await self._request("session/new")
        ids = {"toolCallIds": TOOL_CALL_IDS, "terminalIds": TERMINAL_IDS}
        self._send({"id": request["id"], "result": {"sessionId": session_id, "_meta": ids}})
        request = await self._request("session/prompt")
        self._send({"id": request["id"], "result": {"messageId": f"user-{session_id}"}})
        for update in updates:
            params = {"sessionId": session_id, "update": update}
            self._send({"method": "session/update", "params": params})

    async def stop(self) -> None:
        """Answer the next `session/new` with an error: the TypeScript client ends then."""
        request = await self._request("session/new")
        self._send({"id": request["id"], "error": {"code": -32603, "message": "done"}})


# ---------------------------------------------------------------- the two clients


class Client(ClientV2):
    async def request_permission(
        self, input: v2.RequestPermissionRequest
    ) -> v2.RequestPermissionResponse:
        return v2.RequestPermissionResponse(outcome=v2.RequestPermissionOutcomeCancelled())


def our_report(state: SessionStateV2, session_id: str) -> dict[str, Any]:
    """What the TypeScript client reports, from our session state."""
    text = "".join(
        block["text"]
        for message in state.messages.values()
        if message["kind"] == "agent_message"
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "text"
    )
    return {
        "sessionId": session_id,
        "text": text,
        "configOptions": state.config_options,
        "background": state.background,
        "toolCalls": {id: state.can_cancel_tool_call(id) for id in TOOL_CALL_IDS},
        "terminals": {id: state.can_cancel_terminal(id) for id in TERMINAL_IDS},
    }


@contextlib.asynccontextmanager
async def _raw_end(read_fd: int, write_fd: int) -> AsyncIterator[tuple[asyncio.StreamReader, Any]]:
    """A stream reader on `read_fd` and a write function on `write_fd` (pipes), closed on
    leaving."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    write_transport, _ = await loop.connect_write_pipe(
        asyncio.Protocol, os.fdopen(write_fd, "wb", buffering=0)
    )
    try:
        yield reader, write_transport.write
    finally:
        write_transport.close()
        read_transport.close()


class Both:
    """The TypeScript client (a Node process) and ours (in this process), each with its
    raw agent, taking one example after the other."""

    def __init__(self) -> None:
        self.count = 0

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Both]:
        """Both clients initialized; on leaving without an error, the TypeScript one is
        told to end (its next `session/new` fails)."""
        node = await asyncio.create_subprocess_exec(
            *TS_STATE_CLIENT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_env(),
            cwd=REPO,
        )
        assert node.stdin is not None and node.stdout is not None and node.stderr is not None
        self._reports = node.stderr
        self.theirs = RawAgent("the TypeScript client", node.stdout, node.stdin.write)
        agent_read, client_write = os.pipe()
        client_read, agent_write = os.pipe()
        stack = contextlib.AsyncExitStack()
        try:
            raw_end = _raw_end(agent_read, agent_write)
            self.ours = RawAgent("ClientV2", *await stack.enter_async_context(raw_end))
            self.client = Client()
            async with connect_fds(
                client_read, client_write, self.client, options=acp_options()
            ) as peer:
                self.proxy = v2.AgentProxy(peer)
                await asyncio.gather(
                    self.theirs.initialize(),
                    self.ours.initialize(),
                    self.proxy.initialize(
                        v2.InitializeRequest(
                            protocol_version=2, info=v2.Implementation(name="ours", version="0")
                        )
                    ),
                )
                yield self
                await self.theirs.stop()
        finally:
            await stack.aclose()
            with contextlib.suppress(ProcessLookupError):
                node.kill()
            await node.wait()

    async def _their_report(self) -> dict[str, Any]:
        said: list[bytes] = []
        while True:
            line = await self._reports.readline()
            assert line, f"the TypeScript client ended: {b''.join(said).decode()[-2000:]}"
            said.append(line)
            if line.startswith(b'{"report"'):
                report: dict[str, Any] = json.loads(line)["report"]
                return report

    async def _our_report(self, session_id: str) -> dict[str, Any]:
        await self.proxy.new_session(v2.NewSessionRequest(cwd="/"))
        prompt = v2.PromptRequest(session_id=session_id, prompt=[v2.ContentBlockText(text="go")])
        async for _ in self.client.turn(self.proxy, prompt):
            pass
        return our_report(self.client.sessions[session_id], session_id)

    async def run(self, updates: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
        self.count += 1
        session_id = f"s{self.count}"
        # A task group: if one side fails, the others stop too.
        async with asyncio.TaskGroup() as group:
            group.create_task(self.theirs.session(session_id, updates))
            group.create_task(self.ours.session(session_id, updates))
            theirs = group.create_task(self._their_report())
            ours = group.create_task(self._our_report(session_id))
        return theirs.result(), ours.result()


# ---------------------------------------------------------------- the property


def test_our_session_state_keeps_what_the_typescript_active_session_keeps() -> None:
    require_node_modules()
    loop = asyncio.new_event_loop()
    running = Both().running()
    try:
        both = loop.run_until_complete(asyncio.wait_for(running.__aenter__(), STEP_TIMEOUT))

        @settings(
            max_examples=40,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
            database=None,
        )
        @given(updates=EXAMPLES)
        def same_state(updates: list[dict[str, Any]]) -> None:
            theirs, ours = loop.run_until_complete(
                asyncio.wait_for(both.run(updates), STEP_TIMEOUT)
            )
            assert ours == theirs, updates

        try:
            same_state()
        except BaseException as error:
            # The clients are not asked for more: their processes and pipes are closed.
            loop.run_until_complete(running.__aexit__(type(error), error, error.__traceback__))
            raise
        loop.run_until_complete(asyncio.wait_for(running.__aexit__(None, None, None), STEP_TIMEOUT))
    finally:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()
