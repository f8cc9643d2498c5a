"""examples/acp_reference_agent.py's v2 agent keeps each connection's sessions to that
connection, in-process: one `ReferenceAgentV2` serving two connections (as `idlc_acp` lets
one v2 agent object serve many).

Hypothesis draws sequences of session operations (prompt, resume, set_config_option, close,
delete, list, tool_call/cancel) on either connection, each naming a session of either
connection or one nobody made. A model of what each connection made says what must happen:
the owner's operations behave as the agent's docs say; an operation naming the other's
session (or an unknown one) answers -32002 with that session id (-32602 for
`tool_call/cancel`, which names work of a session), and no connection ever receives a
`session/update` of a session it does not own. The capabilities themselves are tested
against the official TypeScript client in tests/interop/test_reference_agent_v2.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc_acp import v2
from idlc_runtime import RpcError

from .pair import connected_v2

ROOT = Path(__file__).resolve().parents[2]
INFO = v2.Implementation(name="ownership", version="0")
CWD = "/project"
NOT_FOUND = -32002
INVALID_PARAMS = -32602


def _example() -> Any:
    spec = importlib.util.spec_from_file_location(
        "acp_reference_agent_v2_example", ROOT / "examples" / "acp_reference_agent.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered first: its dataclasses look their module up while they are made.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ReferenceAgentV2 = _example().ReferenceAgentV2


class Client(v2.Client):
    """Records which sessions its updates name, and the idle updates that end turns."""

    def __init__(self) -> None:
        self.named: set[str] = set()
        self.ended = asyncio.Event()

    async def update(self, input: v2.UpdateSessionNotification) -> None:
        self.named.add(input.session_id)
        if getattr(input.update, "stop_reason", None) is not None:
            self.ended.set()

    async def request_permission(
        self, input: v2.RequestPermissionRequest
    ) -> v2.RequestPermissionResponse:
        return v2.RequestPermissionResponse(
            outcome=v2.RequestPermissionOutcomeSelected(option_id="allow")
        )


@contextlib.asynccontextmanager
async def connection(agent: Any, client: Client) -> AsyncIterator[v2.AgentProxy]:
    async with connected_v2(agent, client) as peer:
        proxy = v2.AgentProxy(peer)
        await proxy.initialize(v2.InitializeRequest(protocol_version=2, info=INFO))
        await proxy.login(v2.LoginAuthRequest(method_id="local-user"))
        yield proxy


OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["prompt", "resume", "set_config", "close", "delete", "cancel_tool"]),
        st.sampled_from([0, 1]),  # the connection asking
        st.sampled_from([0, 1, None]),  # whose session it names (None: nobody's)
    ),
    max_size=12,
)


async def _operate(
    proxy: v2.AgentProxy, client: Client, operation: str, session_id: str
) -> dict[str, Any] | None:
    """The operation's answer: None when it succeeded, else its error's code and data."""
    try:
        if operation == "prompt":
            client.ended.clear()
            await proxy.prompt(
                v2.PromptRequest(session_id=session_id, prompt=[v2.ContentBlockText(text="hi")])
            )
            await client.ended.wait()  # the turn's idle update: the next operation finds it done
        elif operation == "resume":
            await proxy.resume_session(
                v2.ResumeSessionRequest(
                    session_id=session_id, cwd=CWD, replay_from=v2.ReplayFromStart()
                )
            )
        elif operation == "set_config":
            await proxy.set_config_option(
                v2.SetSessionConfigOptionRequestId(
                    session_id=session_id, config_id="reply", value="count"
                )
            )
        elif operation == "close":
            await proxy.close_session(v2.CloseSessionRequest(session_id=session_id))
        elif operation == "delete":
            await proxy.delete_session(v2.DeleteSessionRequest(session_id=session_id))
        else:
            await proxy.cancel_tool_call(
                v2.CancelToolCallRequest(session_id=session_id, tool_call_id="call-x")
            )
    except RpcError as error:
        return {"code": error.code, "data": error.data}
    return None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations=OPERATIONS)
def test_a_connection_can_neither_see_nor_touch_another_connections_session(
    operations: list[tuple[str, int, int | None]],
) -> None:
    async def go() -> None:
        agent = ReferenceAgentV2()
        clients = [Client(), Client()]
        async with connection(agent, clients[0]) as a, connection(agent, clients[1]) as b:
            proxies = [a, b]
            made = [
                (await p.new_session(v2.NewSessionRequest(cwd=CWD))).session_id for p in proxies
            ]
            nobody = "ref-AAAAAAAAAAAAAAAAAAAAAA"
            # The model: which of its sessions each connection still has, and which are open.
            exists = [True, True]
            active = [True, True]
            for operation, asking, named in operations:
                session_id = nobody if named is None else made[named]
                answer = await _operate(proxies[asking], clients[asking], operation, session_id)
                mine = named == asking and exists[asking]
                if operation == "cancel_tool":
                    # No tool call of that id is cancellable, the owner's session or not.
                    assert answer is not None and answer["code"] == INVALID_PARAMS
                elif not mine:
                    # Unknown here (v2's close and delete included: the SDKs treat -32002 to
                    # them as done), telling nothing of the other connection's session.
                    assert answer == {"code": NOT_FOUND, "data": {"sessionId": session_id}}
                elif operation in ("prompt", "set_config") and not active[asking]:
                    assert answer is not None and answer["code"] == NOT_FOUND
                elif operation == "close" and not active[asking]:
                    assert answer is not None and answer["code"] == NOT_FOUND
                else:
                    assert answer is None, (operation, answer)
                    if operation == "close":
                        active[asking] = False
                    elif operation == "resume":
                        active[asking] = True
                    elif operation == "delete":
                        exists[asking] = False
            for index, proxy in enumerate(proxies):
                listed = await proxy.list_sessions(v2.ListSessionsRequest())
                expected = [made[index]] if exists[index] else []
                assert [s.session_id for s in listed.sessions] == expected
                # Updates only ever named the connection's own session.
                assert clients[index].named <= {made[index]}

    asyncio.run(asyncio.wait_for(go(), 60))
