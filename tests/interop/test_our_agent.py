"""The official SDKs' clients drive idlc's ACP echo agent (examples/acp_echo_agent.py).

Every message the agent puts on the wire is recorded (tee.py) and checked against the ACP v1
schema vendored in idl/acp-schema/v1/schema.json.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .expectations import assert_echo_agent
from .support import (
    ECHO_AGENT,
    PY_CLIENT,
    REPO,
    TS_CLIENT,
    Recorded,
    drive,
    require_file,
    require_node_modules,
)
from .wire_check import Schema, read_tee_log

CLIENTS = {"ts-client": TS_CLIENT, "py-client": PY_CLIENT}


@pytest.fixture(scope="module", params=CLIENTS)
def recorded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    if request.param == "ts-client":
        require_node_modules()
    require_file(REPO / "examples" / "acp_echo_agent.py", "part A of issue 5")
    return drive(CLIENTS[request.param], ECHO_AGENT, tmp_path_factory.mktemp(request.param))


def test_scenarios(recorded: Recorded) -> None:
    assert_echo_agent(recorded.run, recorded.workspace)


def test_every_message_the_agent_sent_is_valid_acp(recorded: Recorded) -> None:
    report = Schema().check(read_tee_log(recorded.log, child="agent"), only="agent")
    assert report.problems == []
    assert report.checked >= 20
    assert {"session/update", "session/request_permission", "fs/read_text_file"} <= report.methods


def test_client_without_fs_gets_no_file_requests(tmp_path: Path) -> None:
    require_file(REPO / "examples" / "acp_echo_agent.py", "part A of issue 5")
    recorded = drive(PY_CLIENT, ECHO_AGENT, tmp_path, "--no-fs")
    assert_echo_agent(recorded.run, recorded.workspace, offered_fs=False)
    report = Schema().check(read_tee_log(recorded.log, child="agent"), only="agent")
    assert report.problems == [] and "fs/read_text_file" not in report.methods
