"""The Python runtime's client against a Node server of runtime-ts (js/server.mjs, whose
InterfaceSpecs are written by hand as the generator will write them), over stdio: typed
calls through `idlc_runtime.spawn`, and raw lines for what a well-behaved client never sends
(docs/wire.md §3, §7, §8)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest
from quixos_agent import AgentDirectory

from idlc_runtime import PeerOptions, RpcError, Unsupported, spawn
from idlc_runtime.web import connect_websocket
from tests.runtime_ts.support import JS, STEP, TIMEOUT, ws_server

#: One step of a test (an answer awaited): far less than the whole test's bound.


def run(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """An async test run in a fresh loop, bounded in time; parametrized over stdio and
    WebSocket when it takes `transport`."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(asyncio.wait_for(test(*args, **kwargs), TIMEOUT))

    if "transport" in inspect.signature(test).parameters:
        return pytest.mark.parametrize("transport", ["stdio", "ws"])(wrapper)  # type: ignore[no-any-return]
    return wrapper


def _server(node: str, *args: str) -> AbstractAsyncContextManager[str]:
    """js/server.mjs over WebSocket on a free port of 127.0.0.1 (`ws_server`)."""
    return ws_server(node, str(JS / "server.mjs"), "ws", *args)


@asynccontextmanager
async def connect(
    node: str, transport: str, *args: str, root: object | None = None, options: Any = None
) -> AsyncIterator[Any]:
    """A Python peer connected to js/server.mjs over `transport` ("stdio" or "ws")."""
    if transport == "stdio":
        async with spawn(server(node, *args), root=root, options=options) as peer:
            yield peer
    else:
        async with _server(node, *args) as url:
            async with connect_websocket(url, root=root, options=options) as peer:
                yield peer


def server(node: str, *args: str) -> list[str]:
    return [node, str(JS / "server.mjs"), "stdio", *args]


async def ping(method: str, params: Any, notify: bool) -> Any:
    """The Python client's side of the Node server's calls back (`client:ping`)."""
    if method == "client:ping":
        return f"pong{params['n']}"
    raise Unsupported(method)


class Bystander(AgentDirectory):
    """Any skeleton will do as the Python client's root: the fallback serves `client:ping`."""


async def call(peer: Any, method: str, params: Any = None, **kwargs: Any) -> Any:
    return await asyncio.wait_for(peer.request(method, params, Any, **kwargs), STEP)


@run
async def test_calls_and_errors(node: str, transport: str) -> None:
    async with connect(node, transport) as peer:
        assert await call(peer, "test:echo", {"text": "héllo"}) == "héllo"
        assert await call(peer, "test:required") == "yes"
        # 64-bit integers stay exact both ways (bigint on the Node side).
        assert await call(peer, "test:add", {"a": 2**62, "b": 2**62 - 1}) == 2**63 - 1
        assert await call(peer, "test:add", {"a": 2, "b": 3}) == 5
        # A member the implementation leaves to the skeleton: -32601 without decoding the
        # params (these would not decode).
        with pytest.raises(Unsupported) as unsupported:
            await call(peer, "test:unprovided", {"text": 1})
        assert unsupported.value.code == -32601
        with pytest.raises(Unsupported):
            await call(peer, "test:no-such-method", {})
        with pytest.raises(RpcError) as bad:
            await call(peer, "test:echo", {"text": 1})
        assert bad.value.code == -32602
        assert bad.value.data["path"] == "$.text"
        with pytest.raises(RpcError) as missing:
            await call(peer, "test:echo", {})
        assert missing.value.code == -32602
        with pytest.raises(RpcError) as failed:
            await call(peer, "test:fail")
        assert (failed.value.code, failed.value.message) == (-32603, "Internal error")
        with pytest.raises(RpcError) as application:
            await call(peer, "test:app-error")
        assert (application.value.code, application.value.data) == (4009, {"why": "stale"})


@run
async def test_keyed_objects(node: str, transport: str) -> None:
    async with connect(node, transport) as peer:
        with pytest.raises(RpcError) as unknown:
            await call(peer, "counter:get", None, target="c1")
        assert (unknown.value.code, unknown.value.data) == (-32900, {"target": "c1"})
        assert await call(peer, "test:open", {"key": "c1"}) == "c1"
        assert await call(peer, "counter:bump", None, target="c1") == 1
        assert await call(peer, "counter:bump", None, target="c1") == 2
        assert await call(peer, "counter:get", {"$target": "c1"}) == 2
        with pytest.raises(RpcError) as not_string:
            await call(peer, "counter:get", {"$target": None})
        assert not_string.value.code == -32602
        # The root does not serve the keyed object's members, nor the other way round.
        with pytest.raises(Unsupported):
            await call(peer, "counter:get")
        with pytest.raises(Unsupported):
            await call(peer, "test:echo", {"text": "x"}, target="c1")


@run
async def test_cancelling_a_call_cancels_the_node_handler(node: str, transport: str) -> None:
    async with connect(node, transport) as peer:
        slow = asyncio.ensure_future(peer.request("test:slow", None, Any))
        # The request is on the wire once the echo after it is answered (one pipe, in order).
        assert await call(peer, "test:echo", {"text": "x"}) == "x"
        slow.cancel()  # sends $/cancel_request
        with pytest.raises(asyncio.CancelledError):
            await slow
        assert await call(peer, "test:was-cancelled") is True


@run
async def test_notifications_are_handled_in_order(node: str, transport: str) -> None:
    async with connect(node, transport) as peer:
        for n in range(5):
            await peer.notify("test:log", {"n": n})
        # Requests are not ordered: this one runs while notification 0 holds the others.
        state = await call(peer, "test:state")
        assert state == {"started": [0], "handled": []}
        assert await call(peer, "test:release") is True
        assert await call(peer, "test:wait-logged", {"count": 5}) == [0, 1, 2, 3, 4]


@run
async def test_concurrent_notifications_opt_out(node: str, transport: str) -> None:
    async with connect(node, transport, "--concurrent", "test:log") as peer:
        for n in range(3):
            await peer.notify("test:log", {"n": n})
        # Notification 0 waits for its gate; 1 and 2 did not wait behind it.
        assert await call(peer, "test:wait-logged", {"count": 2}) == [1, 2]
        assert await call(peer, "test:release") is True
        assert await call(peer, "test:wait-logged", {"count": 3}) == [1, 2, 0]


@run
async def test_a_notification_handler_may_call_the_other_side(node: str, transport: str) -> None:
    # A root that implements nothing: `client:ping`, undeclared, goes to the fallback.
    options = PeerOptions(fallback=ping)
    async with connect(node, transport, root=Bystander(), options=options) as peer:
        await peer.notify("test:log-call", {"n": 7})
        await peer.notify("test:log-call", {"n": 8})
        handled = await call(peer, "test:wait-logged", {"count": 2})
        assert handled == ["7:pong7:pong7", "8:pong8:pong8"]


# ---------------------------------------------------------------- raw lines


class Raw:
    """The Node server's stdin and stdout as lines, for messages a peer would never send."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    async def send(self, *lines: str | bytes) -> None:
        assert self.process.stdin is not None
        for line in lines:
            data = line if isinstance(line, bytes) else line.encode()
            self.process.stdin.write(data + b"\n")
        await self.process.stdin.drain()

    async def answer(self) -> Any:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), STEP)
        assert line, "the server closed its output"
        return json.loads(line)

    async def answers(self, count: int) -> dict[Any, Any]:
        """The next `count` answers, by id (answers to requests run concurrently come in
        any order)."""
        found = {}
        for _ in range(count):
            message = await self.answer()
            found[message.get("id")] = message
        return found

    async def call(self, id: int, method: str, params: Any = None) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(json.dumps(message))
        return await self.answer()


@asynccontextmanager
async def raw_server(node: str, *args: str) -> AsyncIterator[Raw]:
    process = await asyncio.create_subprocess_exec(
        *server(node, *args),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=2**24,
    )
    try:
        yield Raw(process)
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), STEP)
        except TimeoutError:
            process.kill()
            await process.wait()


def code(message: Any) -> int:
    return int(message["error"]["code"])


@run
async def test_malformed_lines(node: str) -> None:
    async with raw_server(node) as raw:
        await raw.send("garbage")
        answer = await raw.answer()
        assert (answer["id"], code(answer)) == (None, -32700)
        # Unreadable, but its id is in the first KiB: answered with it.
        await raw.send('{"jsonrpc":"2.0","id":41,"method":"test:echo","params":{"text":"x"')
        answer = await raw.answer()
        assert (answer["id"], code(answer)) == (41, -32700)
        # ... or in the last KiB.
        await raw.send('{"params":{"text":"x"}}, "method":"test:echo","id":"tail"}')
        answer = await raw.answer()
        assert (answer["id"], code(answer)) == ("tail", -32700)
        await raw.send(b'{"jsonrpc":"2.0","id":42,"method":"test:echo","params":{"text":"\xff"}}')
        answer = await raw.answer()
        assert (answer["id"], code(answer)) == (42, -32700)
        # Numbers out of range (docs/wire.md §8 rule 1).
        await raw.send('{"jsonrpc":"2.0","id":43,"method":"test:add","params":{"a":1e400,"b":1}}')
        assert code(await raw.answer()) == -32700
        # An integer beyond 64 bits is read, and refused by the field's type at its path,
        # as the Python runtime does (-32602, not -32700).
        await raw.send(
            '{"jsonrpc":"2.0","id":44,"method":"test:add","params":{"a":' + str(2**64) + ',"b":1}}'
        )
        answer = await raw.answer()
        assert code(answer) == -32602
        assert answer["error"]["data"]["path"] == "$.a"
        # JSON, but no valid request (rule 2).
        invalid = {
            '{"jsonrpc":"2.0","id":1}': 1,
            '{"jsonrpc":"1.0","id":2,"method":"test:echo"}': 2,
            '{"jsonrpc":"2.0","id":true,"method":"test:echo"}': None,
            '{"jsonrpc":"2.0","id":1.5,"method":"test:echo"}': None,
            '{"jsonrpc":"2.0","id":null,"method":"test:echo"}': None,
            '{"jsonrpc":"2.0","id":3,"method":7}': 3,
            "[1]": None,
            "42": None,
        }
        for line, id in invalid.items():
            await raw.send(line)
            answer = await raw.answer()
            if isinstance(answer, list):
                (answer,) = answer
            assert (answer["id"], code(answer)) == (id, -32600), line
        # Blank lines are ignored; the connection goes on.
        await raw.send("", "   ")
        assert (await raw.call(5, "test:echo", {"text": "still here"}))["result"] == "still here"


@run
async def test_responses_are_not_answered(node: str) -> None:
    async with raw_server(node) as raw:
        await raw.send(
            '{"jsonrpc":"2.0","id":99,"result":1}',
            '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}',
            '{"jsonrpc":"2.0","id":98,"error":"not an object"}',
        )
        # Nothing came back for those: the next line answered is this call's.
        assert (await raw.call(1, "test:echo", {"text": "x"}))["id"] == 1


@run
async def test_ids(node: str) -> None:
    async with raw_server(node) as raw:
        big = 2**60 + 1
        answer = await raw.call(big, "test:echo", {"text": "x"})
        assert answer["id"] == big  # not rounded to a double
        answer = await raw.call("a-string", "test:echo", {"text": "x"})  # type: ignore[arg-type]
        assert answer["id"] == "a-string"
        # An id still being handled is refused, and the first request goes on.
        await raw.send('{"jsonrpc":"2.0","id":7,"method":"test:slow"}')
        answer = await raw.call(7, "test:echo", {"text": "x"})
        assert (answer["id"], code(answer)) == (7, -32600)
        await raw.send('{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}')
        answer = await raw.answer()
        assert (answer["id"], code(answer)) == (7, -32800)
        assert (await raw.call(8, "test:was-cancelled"))["result"] is True
        # A cancel for nothing running, or that does not decode, is ignored.
        await raw.send(
            '{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":12345}}',
            '{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":[1]}}',
            '{"jsonrpc":"2.0","method":"$/cancel_request"}',
        )
        assert (await raw.call(9, "test:echo", {"text": "x"}))["id"] == 9


@run
async def test_batches(node: str) -> None:
    async with raw_server(node) as raw:
        await raw.send(
            json.dumps(
                [
                    {"jsonrpc": "2.0", "id": 1, "method": "test:echo", "params": {"text": "a"}},
                    {"jsonrpc": "2.0", "method": "test:ignored", "params": {"n": 1}},
                    {"jsonrpc": "2.0", "id": 2, "method": "test:echo", "params": {"text": 2}},
                    [{"jsonrpc": "2.0", "id": 3, "method": "test:echo"}],
                    {"jsonrpc": "2.0", "id": 4, "method": "test:add", "params": {"a": 1, "b": 2}},
                ]
            )
        )
        batch = await raw.answer()
        assert isinstance(batch, list)
        by_id = {answer["id"]: answer for answer in batch}
        assert len(batch) == 4
        assert by_id[1]["result"] == "a"
        assert code(by_id[2]) == -32602
        assert code(by_id[None]) == -32600  # the nested array
        assert by_id[4]["result"] == 3
        # Only notifications: no answer at all. An empty array: one -32600. An array that
        # does not parse: one -32700.
        await raw.send('[{"jsonrpc":"2.0","method":"test:ignored","params":{"n":1}}]', "[]")
        answer = await raw.answer()
        assert (answer["id"], code(answer)) == (None, -32600)
        await raw.send('[{"jsonrpc":"2.0","id":1,"method":"test:echo"')
        answer = await raw.answer()
        assert (answer["id"], code(answer)) == (None, -32700)
        # A member cancelled by id carries its -32800 in the array.
        await raw.send(
            '[{"jsonrpc":"2.0","id":5,"method":"test:slow"},'
            '{"jsonrpc":"2.0","id":6,"method":"test:echo","params":{"text":"b"}}]',
            '{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":5}}',
        )
        batch = await raw.answer()
        assert sorted(
            (answer["id"], answer.get("result"), answer.get("error", {}).get("code"))
            for answer in batch
        ) == [
            (5, None, -32800),
            (6, "b", None),
        ]


@run
async def test_batches_refused(node: str) -> None:
    async with raw_server(node, "--no-batches") as raw:
        await raw.send('[{"jsonrpc":"2.0","id":1,"method":"test:echo","params":{"text":"a"}}]')
        answer = await raw.answer()
        assert (answer["id"], code(answer)) == (None, -32600)


@run
async def test_oversized_lines(node: str) -> None:
    limit = 4096
    async with raw_server(node, "--max", str(limit)) as raw:
        padding = "x" * (3 * limit)
        # The id before the params, as writers put it: found in the first KiB.
        await raw.send(
            '{"jsonrpc":"2.0","id":1,"method":"test:echo","params":{"text":"PAD"}}'.replace(
                "PAD", padding
            )
        )
        answer = await raw.answer()
        assert (answer["id"], code(answer)) == (1, -32600)
        assert answer["error"]["data"]["limit"] == limit
        assert answer["error"]["data"]["size"] > limit
        # After them: found in the last KiB.
        await raw.send(
            '{"params":{"text":"PAD"},"method":"test:echo","id":2}'.replace("PAD", padding)
        )
        answer = await raw.answer()
        assert (answer["id"], code(answer)) == (2, -32600)
        # Between two large values: not found.
        await raw.send('{"a":"PAD","id":3,"b":"PAD"}'.replace("PAD", padding))
        answer = await raw.answer()
        assert (answer["id"], code(answer)) == (None, -32600)
        # An oversized response is not answered.
        await raw.send('{"jsonrpc":"2.0","id":9,"result":"PAD"}'.replace("PAD", padding))
        # The next line is read normally; one just under the limit is fine.
        text = "y" * (limit - 200)
        assert (await raw.call(4, "test:echo", {"text": text}))["result"] == text


# ---------------------------------------------------------------- raw frames


@run
async def test_websocket_frames(node: str) -> None:
    from websockets.asyncio.client import connect as ws_connect

    limit = 4096
    async with _server(node, "--max", str(limit)) as url:
        async with ws_connect(url, max_size=2**24) as socket:

            async def answer() -> Any:
                return json.loads(await asyncio.wait_for(socket.recv(), STEP))

            # A frame is one message: newlines in it are whitespace (docs/wire.md §2).
            await socket.send(
                '{"jsonrpc":"2.0",\n"id":1,\n"method":"test:echo","params":{"text":"a"}}'
            )
            assert (await answer())["result"] == "a"
            # A binary frame is read as UTF-8 text; an empty frame is ignored.
            await socket.send(b"")
            await socket.send(
                b'{"jsonrpc":"2.0","id":2,"method":"test:echo","params":{"text":"b"}}'
            )
            assert (await answer())["result"] == "b"
            # Two messages in one frame are unreadable; the id is in the first KiB.
            await socket.send(
                '{"jsonrpc":"2.0","id":3,"method":"test:required"}\n'
                '{"jsonrpc":"2.0","id":4,"method":"test:required"}'
            )
            message = await answer()
            assert (message["id"], code(message)) == (3, -32700)
            # Over the limit (but under the limit plus 1 MiB): -32600, the connection goes on.
            frame = '{"jsonrpc":"2.0","id":5,"method":"test:echo","params":{"text":"PAD"}}'
            frame = frame.replace("PAD", "x" * (2 * limit))
            await socket.send(frame)
            message = await answer()
            assert (message["id"], code(message)) == (5, -32600)
            assert message["error"]["data"] == {"size": len(frame), "limit": limit}
            # A batch over WebSocket is one frame out.
            await socket.send(
                json.dumps(
                    [
                        {"jsonrpc": "2.0", "id": 6, "method": "test:required"},
                        {"jsonrpc": "2.0", "id": 7, "method": "test:echo", "params": {"text": "c"}},
                    ]
                )
            )
            batch = await answer()
            assert sorted(item["id"] for item in batch) == [6, 7]
            # Far over the limit (past the limit plus 1 MiB): closed with 1009.
            await socket.send("x" * (limit + 2 * 2**20))
            with pytest.raises(Exception) as closed:
                await asyncio.wait_for(socket.recv(), STEP)
            assert "1009" in str(closed.value)


@run
async def test_websocket_origins(node: str) -> None:
    from websockets.asyncio.client import connect as ws_connect
    from websockets.exceptions import InvalidStatus

    async with _server(node, "--origin", "https://app.example") as url:
        # A browser page of another origin is refused (cross-site WebSocket hijacking).
        with pytest.raises(InvalidStatus) as refused:
            async with ws_connect(url, origin="https://evil.example"):  # type: ignore[arg-type]
                pass
        assert refused.value.response.status_code == 403
        async with ws_connect(url, origin="https://app.example") as socket:  # type: ignore[arg-type]
            await socket.send('{"jsonrpc":"2.0","id":1,"method":"test:required"}')
            assert json.loads(await asyncio.wait_for(socket.recv(), STEP))["result"] == "yes"
        # No Origin: a program, not a browser.
        async with connect_websocket(url) as peer:
            assert await call(peer, "test:required") == "yes"


@pytest.mark.parametrize("bound", [1, 2])
@run
async def test_the_handler_bound_holds_later_messages(node: str, bound: int) -> None:
    """At `maxConcurrentHandlers` the server takes no more messages, even those of the read
    it has already made (docs/wire.md §11), until a handler ends."""
    async with raw_server(node, "--max-handlers", str(bound)) as raw:
        # One write, so one read on the other side: the bound holds the echo back.
        await raw.send(
            *(
                '{"jsonrpc":"2.0","id":ID,"method":"test:sleep","params":{"ms":300}}'.replace(
                    "ID", str(id)
                )
                for id in range(1, bound + 1)
            ),
            '{"jsonrpc":"2.0","id":99,"method":"test:echo","params":{"text":"x"}}',
        )
        ids = [(await raw.answer())["id"] for _ in range(bound + 1)]
        # The echo waited for a slot: a sleep ended first.
        assert ids[0] != 99, ids
        assert sorted(ids) == [*range(1, bound + 1), 99]


@run
async def test_without_the_bound_the_echo_is_answered_first(node: str) -> None:
    """The control of the test above: under the bound, the echo does not wait."""
    async with raw_server(node) as raw:
        await raw.send(
            '{"jsonrpc":"2.0","id":1,"method":"test:sleep","params":{"ms":300}}',
            '{"jsonrpc":"2.0","id":99,"method":"test:echo","params":{"text":"x"}}',
        )
        assert [(await raw.answer())["id"] for _ in range(2)] == [99, 1]


@run
async def test_handlers_running_at_the_end_of_input_still_answer(node: str) -> None:
    """The other side may still read after it stopped sending (docs/wire.md §10): running
    handlers get `finishOnEof` to answer, then the server exits."""
    async with raw_server(node) as raw:
        await raw.send('{"jsonrpc":"2.0","id":1,"method":"test:sleep","params":{"ms":200}}')
        assert raw.process.stdin is not None
        raw.process.stdin.close()
        assert (await raw.answer())["result"] == 200
        assert await asyncio.wait_for(raw.process.wait(), STEP) == 0


@run
async def test_an_escaped_target_is_the_same_member(node: str) -> None:
    """`"\\u0024target"` is `$target` (docs/wire.md §5)."""
    async with raw_server(node) as raw:
        await raw.send(
            '{"jsonrpc":"2.0","id":1,"method":"counter:get","params":{"\\u0024target":"nope"}}'
        )
        answer = await raw.answer()
        assert (code(answer), answer["error"]["data"]) == (-32900, {"target": "nope"})
        assert (await raw.call(2, "test:open", {"key": "k"}))["result"] == "k"
        await raw.send(
            '{"jsonrpc":"2.0","id":3,"method":"counter:bump","params":{"\\u0024target":"k"}}'
        )
        assert (await raw.answer())["result"] == 1


@run
async def test_many_calls_at_once_and_large_messages(node: str, transport: str) -> None:
    """Hundreds of calls in flight, and messages of megabytes that arrive over many reads."""
    async with connect(node, transport) as peer:
        texts = [f"call {n}" for n in range(300)]
        answers = await asyncio.gather(*(call(peer, "test:echo", {"text": t}) for t in texts))
        assert answers == texts
        large = "é" * (3 * 2**20)  # 6 MiB of UTF-8, split across reads
        assert await call(peer, "test:echo", {"text": large}) == large


async def upgrade_status(url: str, host: str, extra: str = "") -> int:
    """The status of a WebSocket upgrade request to `url` naming `host` in its Host header,
    with the `extra` header lines (each ending in CRLF)."""
    address = url.removeprefix("ws://").rstrip("/")
    name, _, port = address.rpartition(":")
    reader, writer = await asyncio.open_connection(name, int(port))
    writer.write(
        (
            f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            f"{extra}\r\n"
        ).encode()
    )
    await writer.drain()
    status = await asyncio.wait_for(reader.readline(), STEP)
    writer.close()
    return int(status.split()[1])


@run
async def test_websocket_admission(node: str) -> None:
    """A loopback server answers to loopback names only (DNS rebinding), requires its bearer
    token, and refuses connections past its bound (docs/web.md)."""
    from idlc_runtime.web import Refused

    async with _server(node, "--token", "s3cret", "--max-connections", "1") as url:
        port = url.rstrip("/").rpartition(":")[2]
        assert await upgrade_status(url, f"evil.example:{port}") == 421
        twice = "Authorization: Bearer s3cret\r\nAuthorization: Bearer other\r\n"
        assert await upgrade_status(url, f"127.0.0.1:{port}", twice) == 400
        with pytest.raises(Refused) as missing:
            async with connect_websocket(url):
                pass
        assert missing.value.status == 401
        with pytest.raises(Refused) as wrong:
            async with connect_websocket(url, headers={"Authorization": "Bearer nope"}):
                pass
        assert wrong.value.status == 403
        good = {"Authorization": "Bearer s3cret"}
        async with connect_websocket(url, headers=good) as peer:
            assert await call(peer, "test:required") == "yes"
            with pytest.raises(Refused) as busy:
                async with connect_websocket(url, headers=good):
                    pass
            assert busy.value.status == 503
    # Given once, the same header is admitted (a server of its own: without a connection
    # bound, no closing connection of the test above can count).
    async with _server(node, "--token", "s3cret") as url:
        port = url.rstrip("/").rpartition(":")[2]
        assert await upgrade_status(url, f"127.0.0.1:{port}", twice[:30]) == 101
