"""JSON-RPC 2.0 batches (docs/wire.md §7): each member handled as if sent alone, the
answers of its requests sent back as one array."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from idlc_runtime import PeerOptions

from .support import SampleService, raw_connection, run_async, within


def _call(id: object, method: str, params: object = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def _by_id(answers: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    by_id = {answer["id"]: answer for answer in answers}
    assert len(by_id) == len(answers), answers
    return by_id


@run_async
async def test_a_batch_gets_one_array_with_the_answers_of_its_requests() -> None:
    service = SampleService()
    async with raw_connection(service) as (client, _):
        await client.send_json(
            [
                _call(1, "sample:ping:get"),
                _call("two", "sample:add:call", {"amount": 2}),
                {"jsonrpc": "2.0", "method": "sample:event:notify", "params": {"text": "n"}},
                _call(3, "sample:echo:call", {"input": ["a", "b"]}),
                _call(4, "sample:add:call", {"amount": "x"}),
                _call(5, "no:such:method"),
            ]
        )
        answers = await client.receive()
        assert isinstance(answers, list) and len(answers) == 5
        by_id = _by_id(answers)
        assert by_id[1]["result"] == "pong"
        assert by_id["two"]["result"] == 2
        assert by_id[3]["result"] == ["b", "a"]
        assert by_id[4]["error"]["code"] == -32602
        assert by_id[5]["error"]["code"] == -32601
        assert service.events == ["n"]
        await client.assert_still_serving()


@run_async
async def test_the_array_waits_for_members_whose_handlers_wait() -> None:
    service = SampleService()
    async with raw_connection(service) as (client, _):
        await client.send_json(
            [
                _call("held", "sample:hold-read:call", {"gateKey": "g"}),
                _call("quick", "sample:ping:get"),
            ]
        )
        await within(service.started["g"].wait())
        # Other lines are served meanwhile, and answered on their own.
        await client.assert_still_serving()
        service.gates["g"].set()
        answers = await client.receive()
        assert _by_id(answers) == {
            "held": {"jsonrpc": "2.0", "id": "held", "result": "g"},
            "quick": {"jsonrpc": "2.0", "id": "quick", "result": "pong"},
        }
        await client.assert_still_serving()


@run_async
async def test_a_batch_member_can_be_cancelled() -> None:
    service = SampleService()
    async with raw_connection(service) as (client, _):
        await client.send_json([_call(7, "sample:hold-read:call", {"gateKey": "c"})])
        await within(service.started["c"].wait())
        await client.send_json(
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 7}}
        )
        answers = await client.receive()
        assert [answer["error"]["code"] for answer in answers] == [-32800]
        await client.assert_still_serving()


@run_async
async def test_invalid_members_are_answered_one_by_one() -> None:
    async with raw_connection(SampleService()) as (client, _):
        await client.send(b"[1, 2, 3]\n")
        answers = await client.receive()
        assert [(a["id"], a["error"]["code"]) for a in answers] == [(None, -32600)] * 3
        # A nested array is an invalid member, not a batch in the batch; a reused id is
        # refused like on its own.
        await client.send_json(
            [
                [_call(1, "sample:ping:get")],
                {"foo": "boo"},
                _call(8, "sample:delay:call", {"ticks": 3}),
                _call(8, "sample:ping:get"),
            ]
        )
        answers = await client.receive()
        assert len(answers) == 4
        codes = sorted((str(a["id"]), str(a.get("error", {}).get("code"))) for a in answers)
        assert codes == [("8", "-32600"), ("8", "None"), ("None", "-32600"), ("None", "-32600")]
        await client.assert_still_serving()


@run_async
async def test_an_empty_batch_gets_one_error_and_a_batch_of_notifications_none() -> None:
    service = SampleService()
    async with raw_connection(service) as (client, _):
        await client.send(b" [ ]\n")
        assert await client.receive() == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32600, "message": "Invalid request: empty batch"},
        }
        notify = {"jsonrpc": "2.0", "method": "sample:event:notify", "params": {"text": "1"}}
        await client.send_json([notify, notify])
        # The ping's answer is the very next line: the notifications got none.
        await client.assert_still_serving()
        assert service.events == ["1", "1"]


@run_async
async def test_a_batch_that_does_not_parse_gets_one_parse_error() -> None:
    async with raw_connection(SampleService()) as (client, _):
        await client.send(b'[{"jsonrpc":"2.0","id":1,"method":"sample:ping:get"},\n')
        answer = await client.receive()
        assert answer["id"] is None and answer["error"]["code"] == -32700
        await client.assert_still_serving()


@run_async
async def test_a_protocol_can_refuse_batches() -> None:
    service = SampleService()
    options = PeerOptions(accept_batches=False)
    async with raw_connection(service, options) as (client, _):
        await client.send_json(
            [{"jsonrpc": "2.0", "method": "sample:event:notify", "params": {"text": "x"}}]
        )
        assert await client.receive() == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": "Invalid request: JSON-RPC batches are not supported",
            },
        }
        await client.assert_still_serving()
        assert service.events == []


@run_async
async def test_a_batch_of_responses_answers_our_calls() -> None:
    async with raw_connection(SampleService()) as (client, server):
        calls = [
            asyncio.ensure_future(server.request("x:one", None, str)),
            asyncio.ensure_future(server.request("x:two", None, int)),
        ]
        requests = [json.loads(await within(client.reader.readline())) for _ in calls]
        await client.send_json(
            [
                {"jsonrpc": "2.0", "id": requests[1]["id"], "result": 2},
                {"jsonrpc": "2.0", "id": requests[0]["id"], "result": "one"},
            ]
        )
        assert await within(asyncio.gather(*calls)) == ["one", 2]
        await client.assert_still_serving()


@run_async
async def test_the_members_of_a_batch_respect_the_handler_bound() -> None:
    # Five held members through a bound of two: never more than two run; as each ends the
    # next member starts; the answers still come back as one array once all are in.
    service = SampleService()
    keys = ["m1", "m2", "m3", "m4", "m5"]
    options = PeerOptions(max_concurrent_handlers=2)
    async with raw_connection(service, options) as (client, _):
        await client.send_json(
            [_call(key, "sample:hold-read:call", {"gateKey": key}) for key in keys]
        )
        for released, key in enumerate(keys):
            await within(service.started[key].wait())
            running = [k for k in keys if k in service.started and service.started[k].is_set()]
            assert len(running) - released <= 2, running
            service.gates[key].set()
        answers = await client.receive()
        assert _by_id(answers) == {
            key: {"jsonrpc": "2.0", "id": key, "result": key} for key in keys
        }
        await client.assert_still_serving()
