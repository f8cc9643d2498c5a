"""The Python client — the runtime's `Peer` with the generated Python proxies of
`generated/quixos_agent` — against the Node server examples/quixos_server.ts, on the
generated TypeScript skeletons, over stdio and WebSocket (issue 25): every member answers
what the Python server answers (tests/interop_ts/walk.py), -32601 for what the skeleton
leaves, -32602 with a path for bad params, `$target`, and cancellation both ways
(ts/hooks_server.ts: the example's directory plus test hooks)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from quixos_agent import AgentDirectory

from idlc_runtime import PeerOptions, RpcError, Unsupported, current_peer, spawn
from idlc_runtime.web import Refused, connect_websocket
from tests.interop_ts.support import TIMEOUT, masked, python_env, python_server
from tests.interop_ts.walk import edges, walk
from tests.runtime_ts.support import STEP, ws_server

#: One step of a test (an answer awaited): far less than the whole test's bound.

TRANSPORTS = pytest.mark.parametrize("transport", ["stdio", "ws"])


def bounded(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """An async test run in a fresh loop, bounded in time."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(asyncio.wait_for(test(*args, **kwargs), TIMEOUT))

    return wrapper


@asynccontextmanager
async def connect(argv: list[str], transport: str, options: Any = None) -> AsyncIterator[Any]:
    """A Python peer connected to the Node server `argv` over `transport`; with `options`,
    it serves the Node side's calls back through their fallback."""
    root = None if options is None else Bystander()
    if transport == "stdio":
        async with spawn(argv, root=root, options=options) as peer:
            yield peer
    else:
        async with ws_server(*argv, "--listen", "127.0.0.1:0") as url:
            async with connect_websocket(url, root=root, options=options) as peer:
                yield peer


class Bystander(AgentDirectory):
    """Any skeleton will do as the Python client's root: the fallback serves the hooks."""


def example(node: str, dist: Path) -> list[str]:
    return [node, str(dist / "quixos_server.js"), "--quiet"]


def hooked(node: str, dist: Path) -> list[str]:
    return [node, str(dist / "hooks_server.js"), "--quiet"]


async def call(peer: Any, method: str, params: Any = None, **kwargs: Any) -> Any:
    return await asyncio.wait_for(peer.request(method, params, Any, **kwargs), STEP)


@TRANSPORTS
@bounded
async def test_every_member(
    node: str, dist: Path, transport: str, python_seen: dict[str, Any]
) -> None:
    async with connect(example(node, dist), transport) as peer:
        seen = await asyncio.wait_for(walk(peer), STEP)
    assert masked(seen) == python_seen


@pytest.fixture(scope="module")
def python_edges() -> dict[str, Any]:
    """The other branches of the rules, as the Python server answers them."""

    async def main() -> dict[str, Any]:
        async with spawn(python_server("--quiet"), env=python_env()) as peer:
            return await edges(peer)

    return asyncio.run(asyncio.wait_for(main(), TIMEOUT))


@TRANSPORTS
@bounded
async def test_the_rules_other_branches(
    node: str, dist: Path, transport: str, python_edges: dict[str, Any]
) -> None:
    """Refusals, links, recovery, limits, corrections of corrections and text beyond ASCII:
    the Node server answers each call as the Python server does."""
    async with connect(example(node, dist), transport) as peer:
        seen = await asyncio.wait_for(edges(peer), STEP)
    assert seen.keys() == python_edges.keys()
    for key, answer in python_edges.items():
        assert seen[key] == answer, key
    # Some of what was compared, spelled out.
    assert python_edges["03 agent:directory:initialize:call"] == {"result": None}
    errors = [answer for answer in python_edges.values() if "error" in answer]
    assert {error["error"]["code"] for error in errors} == {4004, 4009}


@TRANSPORTS
@bounded
async def test_errors_and_targets(node: str, dist: Path, transport: str) -> None:
    agent = {"name": "writer", "description": "d", "instructions": "i", "settings": "s"}
    async with connect(example(node, dist), transport) as peer:
        # Left to the skeleton: -32601 without decoding its params (these would not decode).
        with pytest.raises(Unsupported) as unprovided:
            await call(peer, "agent:directory:reconcile-repair:call", {"key": 1})
        assert unprovided.value.code == -32601
        with pytest.raises(Unsupported):
            await call(peer, "agent:directory:no-such:call", {})
        with pytest.raises(RpcError) as bad:
            await call(peer, "agent:directory:create-agent:call", {**agent, "name": 7})
        assert bad.value.code == -32602
        assert bad.value.data["path"] == "$.name"
        with pytest.raises(RpcError) as missing:
            await call(peer, "agent:directory:create-agent:call", {"name": "x"})
        assert missing.value.code == -32602
        writer = await call(peer, "agent:directory:create-agent:call", agent)
        assert writer == "agent-1"
        submission = {
            "text": "hello",
            "sourceKind": "user",
            "sourceLabel": "probe",
            "createdAt": "2025-01-01T12:00:00Z",
            "contexts": [],
            "causalDepth": -1,
        }
        admit = {"agent": writer, "submission": submission, "optionalWork": False}
        with pytest.raises(RpcError) as nested:
            await call(peer, "agent:directory:admit:call", admit)
        assert nested.value.code == -32602
        assert nested.value.data["path"] == "$.submission.causalDepth"
        with pytest.raises(RpcError) as wrapped:
            await call(peer, "agent:directory:notification-sent:call", {"input": 7})
        assert wrapped.value.data["path"] == "$.input"
        submission["causalDepth"] = 0
        admitted = await call(peer, "agent:directory:admit:call", admit)
        ref = admitted["request"]
        # The admitted request is a keyed object under its reference.
        assert (await call(peer, "agent:request:admission:get", target=ref))["text"] == "hello"
        assert await call(peer, "agent:request:spawned:get", {"$target": ref}) == 0
        with pytest.raises(RpcError) as nowhere:
            await call(peer, "agent:request:admission:get", target="request-404")
        assert nowhere.value.code == -32900
        assert nowhere.value.data == {"target": "request-404"}
        with pytest.raises(RpcError) as not_string:
            await call(peer, "agent:request:admission:get", {"$target": 7})
        assert not_string.value.code == -32602
        # An application error of the Node handler: its code, message and data.
        with pytest.raises(RpcError) as unknown:
            await call(peer, "agent:directory:notification-sent:call", {"input": "request-9"})
        assert (unknown.value.code, unknown.value.message) == (4004, "Unknown request: request-9")
        assert unknown.value.data == {"request": "request-9"}


@TRANSPORTS
@bounded
async def test_python_cancels_a_node_handler(node: str, dist: Path, transport: str) -> None:
    """A Python task cancelled while its call runs: the Node handler's signal aborts."""
    started = asyncio.Event()

    async def fallback(method: str, params: Any, notify: bool) -> Any:
        if method == "test:started":
            started.set()
            return None
        raise Unsupported(method)

    options = PeerOptions(fallback=fallback)
    async with connect(hooked(node, dist), transport, options) as peer:
        slow = asyncio.ensure_future(peer.request("test:slow", None, Any))
        await asyncio.wait_for(started.wait(), STEP)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        assert await call(peer, "test:was-cancelled") is True
        # The connection goes on serving.
        assert (await call(peer, "agent:directory:data:get"))["pending"] == 0


@TRANSPORTS
@bounded
async def test_node_cancels_its_call_to_python(node: str, dist: Path, transport: str) -> None:
    """The Node handler aborts its own call back to Python: the Python handler is cancelled
    and the Node call rejects with the abort's reason."""
    cancelled = asyncio.Event()

    async def fallback(method: str, params: Any, notify: bool) -> Any:
        if method == "test:py-slow":
            try:
                # Asks Node to abort this very call, then waits to be cancelled.
                assert await current_peer().request("test:abort", None, Any) is True
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise
        raise Unsupported(method)

    options = PeerOptions(fallback=fallback)
    async with connect(hooked(node, dist), transport, options) as peer:
        answer = await call(peer, "test:cancel-python")
        assert answer == {"rejected": "Error: Node no longer wants it"}
        await asyncio.wait_for(cancelled.wait(), STEP)


@bounded
async def test_browser_origins(node: str, dist: Path) -> None:
    """`--allow-origin`: a browser's Origin not named is refused 403, as by the Python server;
    a named one, and a program's request without Origin, are served."""
    argv = [*example(node, dist), "--allow-origin", "https://studio.example"]
    async with ws_server(*argv, "--listen", "127.0.0.1:0") as url:
        with pytest.raises(Refused) as refused:
            async with connect_websocket(url, headers={"Origin": "https://evil.example"}):
                pass
        assert refused.value.status == 403
        for headers in ({"Origin": "https://studio.example"}, {}):
            async with connect_websocket(url, headers=headers) as peer:
                assert (await call(peer, "agent:directory:data:get"))["pending"] == 0
