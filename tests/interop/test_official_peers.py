"""The scenario peers themselves, run against each other: both official SDKs, no idlc code.

This shows that the scenarios and their expectations are right (the reference implementations
satisfy them), so a failure with idlc's peers is idlc's, not the harness's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .expectations import assert_echo_agent
from .support import (
    PY_AGENT,
    PY_CLIENT,
    TS_AGENT,
    TS_CLIENT,
    drive,
    require_node_modules,
)
from .wire_check import Schema, read_tee_log

PAIRS = {
    "ts-client-ts-agent": (TS_CLIENT, TS_AGENT),
    "py-client-py-agent": (PY_CLIENT, PY_AGENT),
    "py-client-ts-agent": (PY_CLIENT, TS_AGENT),
    "ts-client-py-agent": (TS_CLIENT, PY_AGENT),
}


@pytest.mark.parametrize("pair", PAIRS)
def test_official_peers_pass_the_scenarios(pair: str, tmp_path: Path) -> None:
    client, agent = PAIRS[pair]
    if "ts" in pair:
        require_node_modules()
    recorded = drive(client, agent, tmp_path)
    meta_shadow = True
    if pair == "ts-client-py-agent":
        # agent-client-protocol 0.12.1 merges `_meta` into the handler's keyword arguments
        # (acp/router.py), so `_meta: {"session_id": …}` replaces the real session id and the
        # prompt fails with -32602. Only js/client.mjs sends that key; the rest must pass.
        shadow = recorded.run.records.pop("meta_shadow")
        assert shadow.get("failed", {}).get("code") == -32602, shadow
        meta_shadow = False
    assert_echo_agent(recorded.run, recorded.workspace, meta_shadow=meta_shadow)
    report = Schema().check(read_tee_log(recorded.log, child="agent"), only="agent")
    assert report.checked >= 20 and report.problems == []
