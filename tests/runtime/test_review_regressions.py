"""Review regressions (fail on purpose until fixed): where the runtime and docs/wire.md, the
normative spec, disagree."""

from __future__ import annotations

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
