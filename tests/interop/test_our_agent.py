"""The official SDKs' clients drive idlc's ACP echo agent (examples/acp_echo_agent.py).

Every message the agent puts on the wire is recorded (tee.py) and checked against the ACP v1
schema vendored in idl/acp-schema/v1/schema.json. The official Python client runs on
agent-client-protocol 0.12.1 and 1.0.0rc3. The TypeScript client and the Python 1.0 client
drive idlc_news_agent.py (the echo agent plus the news scenario), whose notice and compaction
updates they must receive whole; 0.12.1 knows neither update.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .expectations import assert_echo_agent, assert_news
from .support import (
    ECHO_AGENT,
    NEWS_AGENT,
    PY_CLIENT,
    PY_SDK_1,
    PY_SDK_TEST_ENV,
    REPO,
    TS_CLIENT,
    Recorded,
    drive,
    official_python,
    py_client,
    require_file,
    require_node_modules,
)
from .wire_check import Schema, read_tee_log

CLIENTS = ["ts-client", f"py-client-{PY_SDK_TEST_ENV}", f"py-client-{PY_SDK_1}"]
NEWS_CLIENTS = ["ts-client", f"py-client-{PY_SDK_1}"]


@pytest.fixture(scope="module", params=CLIENTS)
def recorded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    require_file(REPO / "examples" / "acp_echo_agent.py", "part A of issue 5")
    root = tmp_path_factory.mktemp(request.param)
    if request.param == "ts-client":
        require_node_modules()
        client = TS_CLIENT
    else:
        client = py_client(official_python(request, request.param.removeprefix("py-client-")))
    if request.param in NEWS_CLIENTS:
        return drive(client, NEWS_AGENT, root, "--news")
    return drive(client, ECHO_AGENT, root)


def test_scenarios(recorded: Recorded) -> None:
    assert_echo_agent(recorded.run, recorded.workspace)


@pytest.mark.parametrize("recorded", NEWS_CLIENTS, indirect=True)
def test_news_travel_to_the_official_client(recorded: Recorded) -> None:
    """Our notice and compaction updates reach TypeScript 2.4.0's and Python 1.0's clients whole."""
    assert_news(recorded.run)


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
