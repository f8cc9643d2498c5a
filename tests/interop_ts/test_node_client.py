"""The Node client of examples/quixos_client.ts — the generated TypeScript proxies — against
the Python server examples/quixos_server.py, over WebSocket and stdio (issue 25): every
member of both seed interfaces answers what the Python client sees for the same calls
(tests/interop_ts/walk.py through the generated Python package), and the raw peer's bad
params, unknown and unimplemented members, `$target` and cancellation (ts/probe_client.ts)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.interop_ts.support import (
    PY_HOOKS_SERVER,
    PYTHON,
    REPO,
    TIMEOUT,
    listening,
    masked,
    python_server,
    run_node,
)


@pytest.fixture(scope="module")
def ws_url() -> Iterator[str]:
    with listening(*python_server("--listen", "127.0.0.1:0", "--quiet")) as url:
        yield url


def test_every_member_over_websocket(
    node: str, dist: Path, ws_url: str, python_seen: dict[str, Any]
) -> None:
    seen = run_node(node, dist / "quixos_client.js", "--connect", ws_url)
    assert masked(seen) == python_seen


def test_every_member_over_stdio(node: str, dist: Path, python_seen: dict[str, Any]) -> None:
    seen = run_node(node, dist / "quixos_client.js", "--spawn", *python_server("--quiet"))
    assert masked(seen) == python_seen


def test_what_the_walk_saw(python_seen: dict[str, Any]) -> None:
    """The reference itself, spot-checked against the server's rules, so that two equal
    walks are also right ones."""
    assert python_seen["admit"] == {
        "result": {"accepted": True, "thread": "thread-2", "request": "request-1"}
    }
    assert python_seen["claim worker-b stale"] == {"result": {"claimed": False, "generation": 1}}
    assert python_seen["steer stale"]["error"]["code"] == 4009
    assert python_seen["items"] == {"result": ["request-1/item/outline", "request-1/item/tone"]}
    assert python_seen["followUp retryOf"] == {"result": "request-1"}
    assert python_seen["followUp progress"]["result"]["status"] == "cancelled"
    assert python_seen["notificationSent unknown"]["error"]["code"] == 4004
    # The member the server leaves out, and a target that names nothing.
    assert python_seen["reconcileRepair"]["error"]["code"] == -32601
    assert python_seen["reconcileRepair"]["error"]["unsupported"] is True
    assert python_seen["unknown target"]["error"]["code"] == -32900
    assert python_seen["unknown target"]["error"]["data"] == {"target": "request-404"}
    # uint64 stays an integer on the wire (bigint on the Node side).
    assert python_seen["admission"]["result"]["sequence"] == 1


def check_probe(seen: dict[str, Any]) -> None:
    assert seen["badName"]["error"]["code"] == -32602
    assert seen["badName"]["error"]["data"]["path"] == "$.name"
    assert seen["missingField"]["error"]["code"] == -32602
    assert seen["badNested"]["error"]["code"] == -32602
    assert seen["badNested"]["error"]["data"]["path"] == "$.submission.causalDepth"
    assert seen["badWrapped"]["error"]["code"] == -32602
    assert seen["badWrapped"]["error"]["data"]["path"] == "$.input"
    assert seen["unknownMethod"]["error"]["code"] == -32601
    # Left to the skeleton: -32601 without decoding its (bad) params.
    assert seen["unimplemented"]["error"]["code"] == -32601
    assert seen["targeted"]["result"]["text"] == "hello"
    assert seen["targetInParams"] == {"result": 0}
    assert seen["unknownTarget"]["error"]["code"] == -32900
    assert seen["abortedProxyCall"] == {"thrown": "Error: no longer wanted"}
    assert seen["dataAfter"] == {"result": "1"}  # one request admitted


def test_raw_calls_over_websocket(node: str, dist: Path, ws_url: str) -> None:
    check_probe(run_node(node, dist / "probe_client.js", "--connect", ws_url))


def test_raw_calls_over_stdio(node: str, dist: Path) -> None:
    check_probe(run_node(node, dist / "probe_client.js", "--spawn", *python_server("--quiet")))


def test_cancellation_over_stdio(node: str, dist: Path) -> None:
    """Aborting the signal rejects the call at once and cancels the Python handler."""
    seen = run_node(node, dist / "probe_client.js", "--cancel", "--spawn", PYTHON, PY_HOOKS_SERVER)
    check_probe(seen)
    assert seen["slow"] == {"thrown": "Error: no longer wanted"}
    assert seen["wasCancelled"] == {"result": True}


def test_cancellation_over_websocket(node: str, dist: Path) -> None:
    with listening(PYTHON, PY_HOOKS_SERVER, "--listen") as url:
        seen = run_node(node, dist / "probe_client.js", "--cancel", "--connect", url)
    check_probe(seen)
    assert seen["slow"] == {"thrown": "Error: no longer wanted"}
    assert seen["wasCancelled"] == {"result": True}


def test_without_arguments_it_spawns_the_python_server(
    node: str, dist: Path, python_seen: dict[str, Any]
) -> None:
    """Run from the repository root, the client starts examples/quixos_server.py itself
    (`$PYTHON`, the committed `generated/` package on its path)."""
    done = subprocess.run(
        [node, str(dist / "quixos_client.js")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHON": PYTHON},
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert masked(json.loads(done.stdout)) == python_seen
