"""`agent_main`, the command line both example agents use: bad `--listen` values are usage
errors (status 2, no traceback). Serving on stdio and on `--listen` is what the examples'
tests run (tests/acp/test_echo_agent.py, tests/acp/web/test_examples.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import ECHO_AGENT, ROOT

REFERENCE_AGENT = ROOT / "examples" / "acp_reference_agent.py"


@pytest.mark.parametrize("listen", ["8765", "127.0.0.1:", "127.0.0.1:http", "127.0.0.1:65536"])
@pytest.mark.parametrize("agent", [ECHO_AGENT, REFERENCE_AGENT], ids=["echo", "reference"])
def test_a_listen_that_is_not_host_port_is_a_usage_error(agent: object, listen: str) -> None:
    done = subprocess.run(
        [sys.executable, str(agent), "--listen", listen],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert f"--listen wants HOST:PORT, not {listen!r}" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_help_names_the_agent_and_the_option() -> None:
    done = subprocess.run(
        [sys.executable, str(REFERENCE_AGENT), "--help"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0
    assert "An ACP agent with every session capability." in done.stdout
    assert "--listen HOST:PORT" in done.stdout
