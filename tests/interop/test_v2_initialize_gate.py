"""The v2 agent's initialize gate (idlc_acp.v2_agent.InitializeGateV2) answers as the
TypeScript SDK 2.4.0's v2 agent (`InitializationState`, `agentInitializationGuard` in
dist/v2/acp.js): the same raw lines go to tests/interop/idlc_v2_gate_agent.py and
js/v2_gate_agent.mjs, behind each SDK's router and on their own, and the answers must be
the same — malformed repeats, repeats asking a lower or a newer version, repeats after
other requests, requests before and during an initialize, and an initialize sent while
another is in progress (held until the process gets SIGUSR2).

The one thing compared loosely is the `data` of a -32602 for params that do not decode:
each SDK says what is wrong in its own validator's words (zod's, msgspec's).
"""

from __future__ import annotations

import json
import select
import signal
import subprocess
from typing import Any

import pytest

from .support import HERE, JS, PYTHON, REPO, child_env

OURS = [PYTHON, str(HERE / "idlc_v2_gate_agent.py")]
THEIRS = ["node", str(JS / "v2_gate_agent.mjs")]
INFO = {"name": "raw", "version": "1"}
#: How long one answer may take (the agents answer at once but for a held initialize).
ANSWER_TIMEOUT = 30.0


class Agent:
    """One gate agent, driven one raw line at a time."""

    def __init__(self, command: list[str], direct: bool) -> None:
        self.process = subprocess.Popen(
            [*command, *(["--direct"] if direct else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
            env=child_env(),
            cwd=REPO,
        )

    def send(self, message: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        """The agent's next line, waited for at most ANSWER_TIMEOUT (a missing answer fails
        the test instead of hanging the run)."""
        stdout = self.process.stdout
        assert stdout is not None
        # The pipes are unbuffered (bufsize=0), so what select sees is all there is; the
        # agents write each message with its newline at once.
        if not select.select([stdout], [], [], ANSWER_TIMEOUT)[0]:
            pytest.fail(f"no answer within {ANSWER_TIMEOUT} s")
        line = stdout.readline()
        assert line, "the agent closed its stdout"
        message: dict[str, Any] = json.loads(line)
        return message

    def release(self) -> None:
        """Let a held initialize answer."""
        self.process.send_signal(signal.SIGUSR2)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def _initialize(id: Any, params: Any = None, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": "initialize"}
    if params is not None:
        message["params"] = params
    return {**message, **extra}


def _new_session(id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": "session/new", "params": {"cwd": "/"}}


def _held(id: Any) -> dict[str, Any]:
    return _initialize(id, {"protocolVersion": 2, "info": INFO, "_meta": {"hold": True}})


OK = {"protocolVersion": 2, "info": INFO}

#: Repeats of every kind after a first initialize, then one after another request.
REPEATS: list[Any] = [
    _initialize(1, OK),
    _initialize(2, {"protocolVersion": 1}),  # lower and malformed: the version decides
    _initialize(3, {"protocolVersion": 1, "info": INFO}),
    _initialize(4, {"protocolVersion": 0, "info": 5}),
    _initialize(5, {"protocolVersion": "2", "info": INFO}),
    _initialize(6, {}),
    _initialize(7),
    _initialize(8, []),
    _initialize(9, {"protocolVersion": -1, "info": INFO}),
    _initialize(10, {"protocolVersion": 65536, "info": INFO}),
    _initialize(11, {"protocolVersion": True, "info": INFO}),
    _initialize(12, {"protocolVersion": 2}),  # v2, malformed: -32602
    _initialize(13, {"protocolVersion": 3}),  # newer: read as v2, `info` filled in
    _initialize(14, {"protocolVersion": 9, "info": 5}),
    _initialize(15, {**OK, "capabilities": 5}),
    _initialize(16, OK),
    _new_session(17),
    _initialize(18, OK),
    _initialize(19, {"protocolVersion": 1}),
    _initialize(20, {"protocolVersion": "x"}),
    _new_session(21),
]

#: On its own connection, what comes before the first initialize is the agent's too.
FIRST: list[Any] = [
    _new_session(1),
    {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}},
    _initialize(2, {"protocolVersion": 1, "info": INFO}),
    _initialize(3, {"protocolVersion": 0}),
    _initialize(4, {"protocolVersion": "2", "info": INFO}),
    _initialize(5, {"protocolVersion": 2}),
    _new_session(6),
    _initialize(7, {"protocolVersion": 4}),
    _new_session(8),
]


def _comparable(answer: dict[str, Any]) -> dict[str, Any]:
    error = answer.get("error")
    if error is not None and error["code"] == -32602:
        # Each validator's words: only the code and message are compared.
        return {**answer, "error": {"code": -32602, "message": error["message"]}}
    return answer


def _answers(command: list[str], direct: bool, lines: list[Any]) -> list[dict[str, Any]]:
    agent = Agent(command, direct)
    try:
        answers = []
        for line in lines:
            agent.send(line)
            if "id" in line:
                answers.append(_comparable(agent.receive()))
        return answers
    finally:
        agent.close()


@pytest.fixture(autouse=True)
def _node(node_modules: None) -> None:
    return None


@pytest.mark.parametrize("direct", [False, True], ids=["routed", "direct"])
def test_repeated_initializes_are_answered_as_the_typescript_agent_answers(direct: bool) -> None:
    ours, theirs = _answers(OURS, direct, REPEATS), _answers(THEIRS, direct, REPEATS)
    assert ours == theirs
    by_id = {answer["id"]: answer for answer in ours}
    # What the comparison covers: a malformed repeat asking 1 is refused for its version.
    assert by_id[2]["error"] == {
        "code": -32600,
        "message": "Invalid request: a repeated initialize must request protocol version 2 or later",
    }
    assert by_id[13]["result"]["_meta"] == {"protocolVersion": 2}
    assert by_id[18]["error"]["data"] == (
        "ACP v2 initialize must not be repeated after other requests"
    )


def test_before_the_first_initialize_the_agent_alone_answers_as_the_typescript_agent() -> None:
    ours, theirs = _answers(OURS, True, FIRST), _answers(THEIRS, True, FIRST)
    assert ours == theirs
    by_id = {answer["id"]: answer for answer in ours}
    assert by_id[1]["error"]["data"] == "ACP v2 connection must be initialized before 'session/new'"
    assert by_id[2]["error"]["code"] == -32022
    assert by_id[7]["result"]["_meta"] == {"protocolVersion": 2}


def _concurrent(command: list[str], direct: bool) -> list[dict[str, Any]]:
    """A held first initialize, a second one and a request meanwhile; released; then a
    held repeat, again with a second one and a request meanwhile."""
    agent = Agent(command, direct)
    try:
        seen: list[dict[str, Any]] = []
        for first, second, request in ((1, 2, 3), (4, 5, 6)):
            agent.send(_held(first))
            agent.send(_initialize(second, OK))
            seen.append(_comparable(agent.receive()))
            agent.send(_new_session(request))
            seen.append(_comparable(agent.receive()))
            agent.release()
            seen.append(_comparable(agent.receive()))
        agent.send(_new_session(7))
        seen.append(agent.receive())
        return seen
    finally:
        agent.close()


@pytest.mark.parametrize("direct", [False, True], ids=["routed", "direct"])
def test_an_initialize_in_progress_is_answered_as_the_typescript_agent_answers(
    direct: bool,
) -> None:
    ours, theirs = _concurrent(OURS, direct), _concurrent(THEIRS, direct)
    assert ours == theirs
    assert [answer["id"] for answer in ours] == [2, 3, 1, 5, 6, 4, 7]
    assert ours[0]["error"] == {
        "code": -32600,
        "message": "Invalid request",
        "data": "ACP v2 initialize is already in progress",
    }
    assert ours[1]["error"]["data"] == "ACP v2 connection must be initialized before 'session/new'"
    assert ours[2]["result"]["protocolVersion"] == 2
    assert ours[-1]["result"] == {"sessionId": "s"}
