"""A Node client (runtime-ts) against the Python runtime, over stdio and WebSocket: raw wire
methods of the quixos directory, the errors, `$target`, cancellation, ordered notifications
(tests/runtime_ts/js/quixos_client.mjs against tests/runtime_ts/py_server.py)."""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.runtime_ts.support import HERE, PYTHON, REPO, TIMEOUT, python_env, run_node

SERVER = str(HERE / "py_server.py")


@pytest.fixture(scope="module")
def ws_url() -> Iterator[str]:
    """py_server.py over WebSocket on a free port of 127.0.0.1."""
    yield from listening([PYTHON, SERVER, "--listen"])


def listening(argv: list[str]) -> Iterator[str]:
    """Runs a server that says where it listens on stderr (`listening on ws://…`): its URL."""
    process = subprocess.Popen(
        argv,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=python_env(),
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:  # the server says where it listens, then serves
            found = re.search(r"listening on (ws://\S+)", line)
            if found:
                # Drained from here on, so that a chatty server never fills the pipe.
                threading.Thread(target=process.stderr.read, daemon=True).start()
                yield found.group(1)
                break
        else:
            pytest.fail(f"the server exited ({process.wait()}) without listening")
    finally:
        process.terminate()
        process.wait(TIMEOUT)


def check(seen: dict[str, Any]) -> None:
    assert seen["createAgent"] == {"result": "agent-1"}
    assert seen["admit"]["result"]["accepted"] is True
    assert seen["targeted"]["result"]["text"] == "hello"
    assert seen["unknownTarget"]["code"] == -32900
    assert seen["unknownTarget"]["data"] == {"target": "request-404"}
    assert seen["nonStringTarget"]["code"] == -32602
    assert seen["unknownMethod"]["code"] == -32601
    assert seen["unknownMethod"]["unsupported"] is True
    assert seen["unimplemented"]["code"] == -32601
    assert seen["badParams"]["code"] == -32602
    assert seen["badParams"]["data"]["path"] == "$.name"
    # Aborting rejected the call with the abort's reason and cancelled the Python handler.
    assert seen["slow"] == {"thrown": "Error: no longer wanted", "name": "Error"}
    assert seen["wasCancelled"] == {"result": True}
    # The answer to test:ticks came after the 20 notifications before it were handled.
    assert seen["ticks"]["answer"] == {"result": "done"}
    assert seen["ticks"]["handledBeforeAnswer"] == list(range(20))
    assert seen["afterClose"]["name"] == "ConnectionClosed"


def test_stdio(node: str) -> None:
    check(run_node(node, "quixos_client.mjs", "stdio", PYTHON, SERVER))


def test_websocket(node: str, ws_url: str) -> None:
    seen = run_node(node, "quixos_client.mjs", "ws", ws_url)
    check(seen)
    assert seen["refused"]["name"] == "ConnectionClosed"
    assert "403" in seen["refused"]["thrown"]


def test_the_root_entry_over_a_global_websocket(node: str, ws_url: str) -> None:
    """The root entry alone, as a browser runs it: the global WebSocket (Node 20's, behind
    --experimental-websocket), no `ws`, no AsyncLocalStorage."""
    seen = run_node(
        node, "quixos_client.mjs", "browser", ws_url, flags=("--experimental-websocket",)
    )
    check(seen)
    assert seen["refused"]["name"] == "TypeError"
    assert "cannot send headers" in seen["refused"]["thrown"]


def test_the_quixos_example_over_websocket(node: str) -> None:
    """examples/quixos_server.py --listen as docs/web.md runs it, with a browser origin
    admitted: a Node client with that Origin is served, one with another is refused 403."""
    origin = "https://app.example"
    argv = [PYTHON, str(REPO / "examples" / "quixos_server.py")]
    servers = listening([*argv, "--listen", "127.0.0.1:0", "--allow-origin", origin])
    url = next(servers)
    try:
        seen = run_node(node, "example_client.mjs", url, origin)
    finally:
        servers.close()
    assert seen["refused"]["name"] == "ConnectionClosed"
    assert "403" in seen["refused"]["thrown"]
    assert seen["createAgent"] == {"result": "agent-1"}
    assert seen["data"]["result"] is not None
    assert seen["unimplemented"]["code"] == -32601
    assert seen["badParams"]["code"] == -32602
    assert seen["unknownTarget"] == {"code": -32900, "data": {"target": "request-9"}}
