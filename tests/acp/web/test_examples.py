"""The examples over the web, as issue 15 and docs/acp-remote.md give the commands:
`acp_echo_agent.py --listen 127.0.0.1:PORT` and `acp_client.py --connect ws://…/acp`
(and `http://…/acp`), each a real subprocess."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from .support import ECHO_AGENT, STEP_TIMEOUT, echo_agent, run_client


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_one_prompt_over_websocket_and_streamable_http(signum: int, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# over the web\nsecond\n", encoding="utf-8")
    with echo_agent(signum=signum) as (url, _):
        for connect in (url.replace("http://", "ws://"), url):
            code, events, said = run_client(connect, tmp_path, "--prompt", "hello remote")
            assert code == 0, said
            kinds = [event["event"] for event in events]
            assert kinds[:2] == ["initialized", "session"]
            assert events[-1] == {"event": "result", "stopReason": "end_turn"}
            reads = [event["path"] for event in events if event["event"] == "read"]
            assert reads == [str(tmp_path / "README.md")]
            updates = [event["update"] for event in events if event["event"] == "update"]
            assert updates[0]["content"] == {"type": "text", "text": "hello remote"}
            assert updates[-1]["content"][0]["content"]["text"] == "# over the web"


def test_cancel_after_over_both_transports(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# x\n", encoding="utf-8")
    blocks = [flag for n in range(20) for flag in ("--prompt", f"block {n}")]
    with echo_agent() as (url, _):
        for connect in (url.replace("http://", "ws://"), url):
            code, events, said = run_client(connect, tmp_path, "--cancel-after", "0.3", *blocks)
            assert code == 0, said
            assert events[-1] == {"event": "result", "stopReason": "cancelled"}


def test_a_port_in_use_and_a_server_that_is_not_there_are_clear_errors(tmp_path: Path) -> None:
    with echo_agent() as (url, port):
        taken = subprocess.run(
            [sys.executable, str(ECHO_AGENT), "--listen", f"127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
        )
        assert taken.returncode == 1
        assert taken.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}")
        assert "Traceback" not in taken.stderr
    # Now nothing listens on that port.
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0
    for connect in (url.replace("http://", "ws://"), url):
        code, events, said = run_client(connect, tmp_path)
        assert code == 1
        assert said.startswith("error: ") and "Traceback" not in said, said
