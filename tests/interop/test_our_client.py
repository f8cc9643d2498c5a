"""idlc's ACP client drives the agents written with the official SDKs.

`idlc_scenario_client.py` (idlc_acp + idlc_acp) runs the same scenarios as the official
clients against tests/interop/py_official_agent.py and js/agent.mjs; examples/acp_client.py
runs its one prompt against both. Every message our client puts on the wire is recorded
(tee.py around the agent) and checked against the ACP v1 schema. The official Python agent runs
on agent-client-protocol 0.12.1 and 1.0.0rc3; against TypeScript 2.4.0 and Python 1.0 our
client also runs the news scenario (the agent's notice and compaction updates must arrive
whole).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .expectations import assert_echo_agent, assert_news
from .support import (
    HERE,
    OUR_CLIENT,
    PY_AGENT,
    PY_SDK_1,
    PY_SDK_TEST_ENV,
    PYTHON,
    REPO,
    RUN_TIMEOUT,
    TS_AGENT,
    Recorded,
    child_env,
    drive,
    make_workspace,
    official_python,
    py_agent,
    require_file,
    require_node_modules,
    tee,
)
from .wire_check import Schema, read_tee_log

IDLC_CLIENT = [PYTHON, str(HERE / "idlc_scenario_client.py")]
AGENTS = {"py-agent": PY_AGENT, "ts-agent": TS_AGENT}
NEWS_AGENTS = ["ts-agent", f"py-agent-{PY_SDK_1}"]
SCENARIO_AGENTS = ["ts-agent", f"py-agent-{PY_SDK_TEST_ENV}", f"py-agent-{PY_SDK_1}"]


@pytest.fixture(scope="module", params=SCENARIO_AGENTS)
def recorded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    root = tmp_path_factory.mktemp(request.param)
    if request.param == "ts-agent":
        require_node_modules()
        agent = TS_AGENT
    else:
        agent = py_agent(official_python(request, request.param.removeprefix("py-agent-")))
    news = ["--news"] if request.param in NEWS_AGENTS else []
    return drive(IDLC_CLIENT, agent, root, *news)


def test_scenarios(recorded: Recorded) -> None:
    assert_echo_agent(recorded.run, recorded.workspace)


@pytest.mark.parametrize("recorded", NEWS_AGENTS, indirect=True)
def test_news_travel_from_the_official_agent(recorded: Recorded) -> None:
    """TypeScript 2.4.0's and Python 1.0's notice and compaction updates reach our client whole."""
    assert_news(recorded.run)


def test_every_message_our_client_sent_is_valid_acp(recorded: Recorded) -> None:
    report = Schema().check(read_tee_log(recorded.log, child="agent"), only="client")
    assert report.problems == []
    assert report.checked >= 15
    assert {"initialize", "session/new", "session/prompt", "session/cancel"} <= report.methods


@pytest.mark.parametrize("agent", AGENTS)
def test_example_client_runs_a_prompt(agent: str, tmp_path: Path) -> None:
    if agent == "ts-agent":
        require_node_modules()
    require_file(REPO / "examples" / "acp_client.py", "part A of issue 5")
    workspace = make_workspace(tmp_path)
    log = tmp_path / "wire.log"
    completed = subprocess.run(
        [*OUR_CLIENT, *tee(log, AGENTS[agent])],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=workspace.path,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    messages = read_tee_log(log, child="agent")
    report = Schema().check(messages, only="client")
    assert report.problems == []
    assert {"initialize", "session/new", "session/prompt"} <= report.methods
    agent_methods = {m.body.get("method") for m in messages if m.sender == "agent"}
    # It answered the permission request and, as it offers fs.readTextFile, the file read,
    # and printed what the agent reported (the README's first line).
    assert {"session/request_permission", "fs/read_text_file"} <= agent_methods
    assert workspace.first_line in completed.stdout
