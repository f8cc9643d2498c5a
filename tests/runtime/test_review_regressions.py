"""Review regressions (fail on purpose until fixed): where the runtime and docs/wire.md, the
normative spec, disagree."""

from __future__ import annotations

import asyncio

from idlc_runtime import PeerOptions, memory_pair

from .support import SampleService, raw_connection, run_async


@run_async
async def test_a_null_target_is_invalid_params() -> None:
    # docs/wire.md §5: "A `$target` that is not a string is answered -32602."
    # Today `"$target": null` is served by the root object instead.
    async with raw_connection(SampleService()) as (client, _):
        answer = await client.call("sample:add:call", {"amount": 1, "$target": None})
        assert answer.get("error", {}).get("code") == -32602, answer
        await client.assert_still_serving()


@run_async
async def test_a_null_id_is_no_id() -> None:
    # docs/wire.md §3: "An id is an integer or a string" and a request with anything else
    # "is answered -32600 with id null". Today `"id": null` runs the request and answers
    # its result with id null.
    async with raw_connection(SampleService()) as (client, _):
        await client.send(b'{"jsonrpc":"2.0","id":null,"method":"sample:ping:get"}\n')
        answer = await client.receive()
        assert answer.get("error", {}).get("code") == -32600, answer
        await client.assert_still_serving()


@run_async
async def test_an_error_response_without_id_is_not_answered() -> None:
    # docs/wire.md §8: "Responses are never answered" (JSON-RPC forbids answering a
    # response). Today a readable error response that lacks its id is answered -32600,
    # which two peers of this kind can bounce back and forth.
    async with raw_connection(SampleService()) as (client, _):
        await client.send(b'{"jsonrpc":"2.0","error":{"code":-32000,"message":"x"}}\n')
        await client.assert_still_serving()  # the ping's answer must be the next line


@run_async
async def test_an_escaped_target_key_is_still_a_target() -> None:
    # docs/wire.md §5: `$target` in the params object aims the call at a keyed object. The
    # runtime only looks for it when the raw bytes contain `$target`, so the same key
    # written with a JSON escape (`"\u0024target"`, equal after decoding) is ignored and the
    # call runs on the root object instead of being answered -32900.
    async with raw_connection(SampleService()) as (client, _):
        await client.send(
            b'{"jsonrpc":"2.0","id":2,"method":"sample:add:call",'
            b'"params":{"amount":1,"\\u0024target":"nobody"}}\n'
        )
        answer = await client.receive()
        assert answer.get("error", {}).get("code") == -32900, answer
        await client.assert_still_serving()


async def _timed_fallback(method: str, params: object, notify: bool) -> str:
    # The usual way to bound a handler's work; its first line runs before any await.
    async with asyncio.timeout(5):
        await asyncio.sleep(0.05)
    return "done"


async def _expiring_fallback(method: str, params: object, notify: bool) -> str:
    try:
        async with asyncio.timeout(0.05):
            await asyncio.sleep(1)
    except TimeoutError:
        return "timed out"
    return "done"


@run_async
async def test_a_handler_whose_timeout_expires_does_not_end_the_connection() -> None:
    # Handlers' first step runs inside the reading task (idlc_runtime/rpc/eager.py), so
    # `asyncio.timeout` entered before the first await binds to the *reader*: over a
    # StreamReader (spawn's pipes, `Peer(reader, writer)`) its expiry cancels the reading
    # task, the connection is lost, and the handler itself is not interrupted (it gets
    # TimeoutError only when its sleep ends, answered -32603). docs/wire.md §8/§10 and
    # issue #9 ("no line kills a connection") make this a connection killed by a handler.
    async with raw_connection(SampleService(), PeerOptions(fallback=_expiring_fallback)) as (
        client,
        _,
    ):
        answer = await client.call("x:timed")
        assert answer.get("result") == "timed out", answer
        await client.assert_still_serving()


@run_async
async def test_a_handler_that_starts_with_asyncio_timeout_works_over_a_line_protocol() -> None:
    # Over a LineProtocol (serve_tcp, serve_stdio, memory_pair) there is no current task
    # at all: `asyncio.timeout` raises RuntimeError and every call is answered -32603.
    options = PeerOptions(fallback=_timed_fallback)
    async with memory_pair(SampleService(), None, options=options) as (a, b):
        assert await b.request("x:timed", None, str) == "done"
