"""examples/acp_reference_agent.py keeps each connection's sessions to that connection.

Hypothesis draws sequences of session operations (new, prompt, list, load, resume, close,
delete, set_mode, set_config_option) on two WebSocket connections to one `--listen` process,
each naming a session of either connection or one nobody made. A model of what each
connection made says what must happen: the owner's operations behave as the agent's docs
say, and every operation naming the other's session (or an unknown one) answers -32002 with
that session id, sends no `session/update` and changes nothing the owner sees afterwards;
signed out (`logout`, drawn too), a connection is answered -32000 whatever it names.
The capabilities themselves are tested against the official TypeScript client in
tests/interop/test_reference_agent.py; `session/list`'s pages are tested here, in-process.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc_acp import (
    AuthenticateRequest,
    AuthRequired,
    Client,
    CloseSessionRequest,
    ContentBlockText,
    DeleteSessionRequest,
    InitializeRequest,
    ListSessionsRequest,
    LoadSessionRequest,
    LogoutRequest,
    NewSessionRequest,
    PromptRequest,
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ResourceNotFound,
    ResumeSessionRequest,
    SessionNotification,
    SessionUpdateUserMessageChunk,
    SetSessionConfigOptionRequestDefault,
    SetSessionModeRequest,
)
from idlc_acp.client import AgentConnection
from idlc_acp.web import connect_websocket
from tests.interop.test_remote import remote_agent, url_for

from .conftest import CLIENT, ROOT
from .pair import connected

REFERENCE_AGENT = ROOT / "examples" / "acp_reference_agent.py"
#: Upper bound for one drawn sequence; a sequence takes well under a second.
SEQUENCE_TIMEOUT = 60.0
CWD = "/reference/workspace"
NOBODYS = "ref-made-by-nobody"
OPERATIONS = [
    "new",
    "prompt",
    "list",
    "load",
    "resume",
    "close",
    "delete",
    "set_mode",
    "set_config_option",
    "logout",
    "authenticate",
]


class AllowingClient(Client):
    """Allows what the agent asks (its `ask` mode) and records every update it receives."""

    def __init__(self) -> None:
        self.updates: list[SessionNotification] = []

    async def update(self, input: SessionNotification) -> None:
        self.updates.append(input)

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        allow = input.options[0].option_id
        return RequestPermissionResponse(outcome=RequestPermissionOutcomeSelected(option_id=allow))


@dataclass
class Made:
    """What the model knows of a session: its owner, the prompts it noted, if it is open."""

    owner: int
    prompts: list[str] = field(default_factory=list)
    active: bool = True


@dataclass
class Side:
    connection: AgentConnection
    client: AllowingClient
    signed_in: bool = True

    async def sign_in(self) -> None:
        await self.connection.authenticate(AuthenticateRequest(method_id="local-user"))
        self.signed_in = True

    async def sign_out(self) -> None:
        await self.connection.logout(LogoutRequest())
        self.signed_in = False


@pytest.fixture(scope="module")
def ws_url() -> Iterator[str]:
    with remote_agent([sys.executable, str(REFERENCE_AGENT), "--listen", "127.0.0.1:0"]) as url:
        yield url_for("ws", url)


async def open_side(url: str, stack: contextlib.AsyncExitStack) -> Side:
    client = AllowingClient()
    connection = await stack.enter_async_context(connect_websocket(url, client))
    await connection.initialize(InitializeRequest(protocol_version=1))
    side = Side(connection, client)
    await side.sign_in()
    return side


async def operate(side: Side, operation: str, session_id: str, step: int) -> str | None:
    """Perform `operation` naming `session_id`; the new session's id for `new`."""
    agent = side.connection
    if operation == "new":
        made = await agent.new_session(NewSessionRequest(cwd=CWD, mcp_servers=[]))
        return made.session_id
    if operation == "prompt":
        text = f"note {step}"
        await agent.prompt(
            PromptRequest(session_id=session_id, prompt=[ContentBlockText(text=text)])
        )
    elif operation == "list":
        await agent.list_sessions(ListSessionsRequest())
    elif operation == "load":
        await agent.load_session(LoadSessionRequest(session_id=session_id, cwd=CWD, mcp_servers=[]))
    elif operation == "resume":
        await agent.resume_session(ResumeSessionRequest(session_id=session_id, cwd=CWD))
    elif operation == "close":
        await agent.close_session(CloseSessionRequest(session_id=session_id))
    elif operation == "delete":
        await agent.delete_session(DeleteSessionRequest(session_id=session_id))
    elif operation == "set_mode":
        mode = "ask" if step % 2 else "auto"
        await agent.set_mode(SetSessionModeRequest(session_id=session_id, mode_id=mode))
    else:
        await agent.set_config_option(
            SetSessionConfigOptionRequestDefault(
                session_id=session_id, config_id="reply", value="count"
            )
        )
    return None


def expected_to_work(operation: str, made: Made | None, by: int) -> bool:
    """The model: whether `by`'s operation on the session `made` succeeds."""
    if made is None or made.owner != by:
        return False
    if operation in ("prompt", "close", "set_mode", "set_config_option"):
        return made.active
    return True


def apply(operation: str, made: Made, step: int) -> None:
    if operation == "prompt":
        made.prompts.append(f"note {step}")
    elif operation == "close":
        made.active = False
    elif operation in ("load", "resume"):
        made.active = True


async def listed(side: Side) -> set[str]:
    answer = await side.connection.list_sessions(ListSessionsRequest())
    return {info.session_id for info in answer.sessions}


async def run_sequence(url: str, steps: list[tuple[int, str, int]]) -> None:
    async with contextlib.AsyncExitStack() as stack:
        sides = [await open_side(url, stack), await open_side(url, stack)]
        sessions: dict[str, Made] = {}
        order: list[str] = []  # ids in the order made: what a drawn index names
        owners: dict[str, int] = {}  # every id made, deleted ones too, and who made it
        for step, (by, operation, pick) in enumerate(steps):
            side = sides[by]
            if operation in ("logout", "authenticate"):
                await (side.sign_out() if operation == "logout" else side.sign_in())
                continue
            candidates = [*order, NOBODYS]
            session_id = candidates[pick % len(candidates)]
            if not side.signed_in:
                # Signed out, nothing is served, whoever's the session.
                with pytest.raises(AuthRequired):
                    await operate(side, operation, session_id, step)
                continue
            if operation == "new":
                new_id = await operate(side, "new", "", step)
                assert new_id is not None and new_id not in owners
                sessions[new_id] = Made(owner=by)
                owners[new_id] = by
                order.append(new_id)
                continue
            if operation == "list":
                mine = {sid for sid, known in sessions.items() if known.owner == by}
                assert await listed(side) == mine
                continue
            target = sessions.get(session_id)
            updates_before = len(side.client.updates)
            if expected_to_work(operation, target, by):
                assert target is not None
                await operate(side, operation, session_id, step)
                apply(operation, target, step)
                if operation == "delete":
                    del sessions[session_id]
                continue
            with pytest.raises(ResourceNotFound) as refused:
                await operate(side, operation, session_id, step)
            assert refused.value.data == {"sessionId": session_id}
            assert len(side.client.updates) == updates_before, "a refused call sent updates"
        # Each connection saw updates of the sessions it made only ...
        for by, side in enumerate(sides):
            if not side.signed_in:
                await side.sign_in()
            made_here = {sid for sid, owner in owners.items() if owner == by}
            assert {n.session_id for n in side.client.updates} <= made_here
        # ... and its sessions are as it left them: the replay holds its prompts, no other's.
        for session_id, made in sessions.items():
            side = sides[made.owner]
            request = LoadSessionRequest(session_id=session_id, cwd=CWD, mcp_servers=[])
            said = [
                update.content.text
                for update in [u async for u in side.connection.replay(request)]
                if isinstance(update, SessionUpdateUserMessageChunk)
                and isinstance(update.content, ContentBlockText)
            ]
            assert said == made.prompts


steps = st.lists(
    st.tuples(st.integers(0, 1), st.sampled_from(OPERATIONS), st.integers(0, 15)),
    max_size=30,
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=steps)
def test_one_connection_never_sees_or_touches_the_others_sessions(
    ws_url: str, steps: list[tuple[int, str, int]]
) -> None:
    # Every sequence begins with a session on each side, so that most steps name one.
    start = [(0, "new", 0), (1, "new", 0)]
    asyncio.run(asyncio.wait_for(run_sequence(ws_url, start + steps), SEQUENCE_TIMEOUT))


def load_reference_agent() -> Any:
    """examples/acp_reference_agent.py as a module (registered first: its dataclasses look
    their module up)."""
    spec = importlib.util.spec_from_file_location("acp_reference_agent", REFERENCE_AGENT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("acp_reference_agent", module)
    spec.loader.exec_module(module)
    return sys.modules["acp_reference_agent"]


def test_session_list_comes_in_pages_that_cover_every_session_once() -> None:
    reference = load_reference_agent()
    page = reference.LIST_PAGE

    async def main() -> None:
        agent = reference.ReferenceAgent()
        async with connected(agent, AllowingClient()) as connection:
            await connection.initialize(InitializeRequest(protocol_version=1))
            await connection.authenticate(AuthenticateRequest(method_id="local-user"))
            made = [
                (await connection.new_session(NewSessionRequest(cwd=CWD, mcp_servers=[])))
                for _ in range(page + 5)
            ]
            first = await connection.list_sessions(ListSessionsRequest(cwd=CWD))
            assert len(first.sessions) == page and first.next_cursor is not None
            rest = await connection.list_sessions(
                ListSessionsRequest(cwd=CWD, cursor=first.next_cursor)
            )
            assert rest.next_cursor is None
            listed = [info.session_id for info in [*first.sessions, *rest.sessions]]
            assert listed == [answer.session_id for answer in made]

    asyncio.run(asyncio.wait_for(main(), SEQUENCE_TIMEOUT))


def run_example_client(cwd: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(CLIENT), "--cwd", str(cwd), "--json", *flags]
    return subprocess.run(
        [*command, "--prompt", "buy milk", "--", sys.executable, str(REFERENCE_AGENT)],
        capture_output=True,
        text=True,
        timeout=SEQUENCE_TIMEOUT,
    )


def test_the_example_client_signs_in_with_authenticate(tmp_path: Path) -> None:
    refused = run_example_client(tmp_path)
    assert refused.returncode == 1
    assert "[-32000] Authentication required" in refused.stderr

    done = run_example_client(tmp_path, "--authenticate", "local-user")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["event"] for e in events] == [
        "initialized",
        "authenticated",
        "session",
        "update",
        "result",
    ]
    assert events[3]["update"]["content"]["text"] == 'Noted: text "buy milk"'
