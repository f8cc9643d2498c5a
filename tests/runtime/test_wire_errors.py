"""Bad input over a real socket: exactly one answer each, and the connection goes on.

Every test ends with `assert_still_serving`, whose ping must be the very next answer: an
extra answer to the bad message would arrive before it and fail the test.
"""

from __future__ import annotations

from typing import Any

import pytest

from idlc_runtime import PeerOptions

from .sample_api import Sample
from .support import NamedItem, SampleService, raw_connection, run_async

PING = b'{"jsonrpc":"2.0","id":1,"method":"sample:ping:get"}'


@run_async
async def test_malformed_json_is_a_parse_error_with_the_id_it_shows() -> None:
    async with raw_connection(SampleService()) as (client, _):
        await client.send(b'{"jsonrpc": "2.0", "id": 1, "method": \n')
        answer = await client.receive()
        assert answer["id"] == 1 and answer["error"]["code"] == -32700
        await client.send(b'{"jsonrpc": "2.0", "method": \n')
        answer = await client.receive()
        assert answer["id"] is None and answer["error"]["code"] == -32700
        await client.assert_still_serving()


@run_async
async def test_blank_lines_are_ignored() -> None:
    async with raw_connection(SampleService()) as (client, _):
        await client.send(b"\n  \r\n\n")
        await client.assert_still_serving()


@pytest.mark.parametrize(
    ("message", "expected_id"),
    [
        (b"42", None),
        (b'"text"', None),
        (b'{"jsonrpc": "2.0", "id": 5}', 5),
        (b'{"jsonrpc": "2.0", "id": "abc", "params": {}}', "abc"),
        (b'{"jsonrpc": "1.0", "id": 6, "method": "sample:ping:get"}', 6),
        (b'{"id": 7, "method": "sample:ping:get"}', 7),
        (b'{"jsonrpc": "2.0", "id": 8, "method": 12}', 8),
        (b'{"jsonrpc": "2.0", "id": {"no": 1}, "method": "sample:ping:get"}', None),
        (b'{"jsonrpc": "2.0", "method": "sample:ping:get", "jsonrpc": 2}', None),
    ],
)
@run_async
async def test_invalid_requests_are_refused(message: bytes, expected_id: object) -> None:
    async with raw_connection(SampleService()) as (client, _):
        await client.send(message + b"\n")
        answer = await client.receive()
        assert answer["jsonrpc"] == "2.0"
        assert answer["id"] == expected_id
        assert answer["error"]["code"] == -32600
        await client.assert_still_serving()


@pytest.mark.parametrize(
    ("params", "path", "reason"),
    [
        ({"amount": "3"}, "$.amount", "Expected `int`, got `str`"),
        ({"amount": 2**32}, "$.amount", "Expected `int` <= 4294967295"),
        ({"amount": -1}, "$.amount", "Expected `int` >= 0"),
        ({"noteText": "x"}, "$", "Object missing required field `amount`"),
        ({"amount": 1, "noteText": 5}, "$.noteText", "Expected `str | null`, got `int`"),
        ([1], "$", "Expected `object`, got `array`"),
    ],
)
@run_async
async def test_invalid_params_name_the_path_and_the_reason(
    params: object, path: str, reason: str
) -> None:
    service = SampleService()
    async with raw_connection(service) as (client, _):
        answer = await client.call("sample:add:call", params, id=3)
        assert answer["id"] == 3
        assert answer["error"]["code"] == -32602
        assert answer["error"]["data"] == {"path": path, "reason": reason}
        assert service.total == 0
        await client.assert_still_serving()


@run_async
async def test_wrapped_input_paths_start_at_input() -> None:
    async with raw_connection(SampleService()) as (client, _):
        answer = await client.call("sample:echo:call", {"input": ["a", 1]})
        assert answer["error"]["data"] == {
            "path": "$.input[1]",
            "reason": "Expected `str`, got `int`",
        }
        answer = await client.call("sample:echo:call", {"input": ["a", "b"]})
        assert answer["result"] == ["b", "a"]
        await client.assert_still_serving()


@run_async
async def test_unit_params_may_be_absent_empty_or_null_but_not_an_array() -> None:
    async with raw_connection(SampleService()) as (client, _):
        for params in (None, {}, {"extra": 1}):
            answer = await client.call("sample:ping:get", params)
            assert answer["result"] == "pong"
        await client.send(b'{"jsonrpc":"2.0","id":4,"method":"sample:ping:get","params":null}\n')
        assert (await client.receive())["result"] == "pong"
        answer = await client.call("sample:ping:get", [1])
        assert answer["error"]["code"] == -32602
        await client.assert_still_serving()


@run_async
async def test_target_is_not_part_of_the_record() -> None:
    async with raw_connection(SampleService()) as (client, server):
        server.register("it", NamedItem("x"))
        answer = await client.call("item:rename:call", {"$target": "it", "name": "y"})
        assert answer["result"] is None
        answer = await client.call("item:name:get", {"$target": "it"})
        assert answer["result"] == "y"
        answer = await client.call("item:name:get", {"$target": 3})
        assert answer["error"]["code"] == -32602
        assert answer["error"]["data"]["path"] == "$.$target"
        # A "$target" inside a string value is no target.
        answer = await client.call("sample:add:call", {"amount": 1, "noteText": "$target"})
        assert answer["result"] == 1
        await client.assert_still_serving()


@run_async
async def test_unknown_methods_and_targets() -> None:
    async with raw_connection(SampleService()) as (client, _):
        answer = await client.call("no:such:method", {}, id="m")
        assert answer["id"] == "m" and answer["error"]["code"] == -32601
        answer = await client.call("item:name:get", {"$target": "ghost"}, id=9)
        assert answer["id"] == 9 and answer["error"]["code"] == -32900
        # Unknown notifications are ignored without an answer.
        await client.send(b'{"jsonrpc":"2.0","method":"no:such:notification","params":{}}\n')
        await client.send(b'{"jsonrpc":"2.0","method":"sample:event:notify","params":{"x":1}}\n')
        await client.assert_still_serving()


@run_async
async def test_handler_exceptions_send_no_traceback() -> None:
    async with raw_connection(SampleService()) as (client, _):
        await client.send(b'{"jsonrpc":"2.0","id":1,"method":"sample:fail:call"}\n')
        answer = await client.receive()
        assert answer == {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": -32603, "message": "Internal error"},
        }
        await client.assert_still_serving()


@run_async
async def test_oversized_messages_are_refused_and_skipped() -> None:
    options = PeerOptions(max_message_size=4096)
    async with raw_connection(SampleService(), options) as (client, _):
        padding = "x" * 100_000
        big = f'{{"jsonrpc":"2.0","id":77,"method":"sample:echo:call","params":{{"input":["{padding}"]}}}}'
        await client.send(big.encode() + b"\n")
        answer = await client.receive()
        assert answer["id"] == 77 and answer["error"]["code"] == -32600
        assert answer["error"]["data"] == {"size": len(big), "limit": 4096}
        # Without a visible id (a notification, or a request whose id is hidden in the
        # middle) the answer has id null: the other side still learns (docs/wire.md §8).
        notification = (
            f'{{"jsonrpc":"2.0","method":"sample:event:notify","params":{{"text":"{padding}"}}}}'
        )
        await client.send(notification.encode() + b"\n")
        answer = await client.receive()
        assert answer["id"] is None and answer["error"]["code"] == -32600
        # A line just under the limit is served, also when it arrives with the next ones.
        fits = '{"jsonrpc":"2.0","id":78,"method":"sample:echo:call","params":{"input":["%s"]}}'
        fits = fits % ("y" * (4096 - len(fits) + 2))
        assert len(fits) == 4096
        await client.send(fits.encode() + b"\n" + PING + b"\n")
        assert (await client.receive())["id"] == 78
        assert (await client.receive())["id"] == 1
        await client.assert_still_serving()


@run_async
async def test_a_truncated_last_line_gets_a_parse_error_before_closing() -> None:
    async with raw_connection(SampleService()) as (client, server):
        await client.send(PING + b"\n")
        assert (await client.receive())["result"] == "pong"
        await client.send(b'{"jsonrpc":"2.0","id":2,"meth')
        client.writer.write_eof()
        answer = await client.receive()
        assert answer["id"] == 2 and answer["error"]["code"] == -32700
        await server.wait_closed()
        assert await client.reader.read() == b""


@run_async
async def test_a_reused_id_is_refused_while_the_first_is_running() -> None:
    service = SampleService()
    async with raw_connection(service) as (client, _):
        hold = (
            b'{"jsonrpc":"2.0","id":5,"method":"sample:hold-read:call","params":{"gateKey":"k"}}\n'
        )
        await client.send(hold)
        await service.started["k"].wait()
        await client.send(hold)
        answer = await client.receive()
        assert answer["id"] == 5 and answer["error"]["code"] == -32600
        service.gates["k"].set()
        assert await client.receive() == {"jsonrpc": "2.0", "id": 5, "result": "k"}
        await client.assert_still_serving()


@run_async
async def test_a_member_the_implementation_leaves_out_is_unsupported_whatever_its_params() -> None:
    """-32601, not -32602: the member would only raise `Unsupported`, so its params are
    not even decoded."""

    class OnlyAdd(Sample):
        async def add(self, *, amount: int, note_text: str | None = None) -> int:
            return amount

        async def ping(self) -> str:
            return "pong"

    async with raw_connection(OnlyAdd()) as (client, _):
        answer = await client.call("sample:echo:call", {"input": 42}, id="x")
        assert answer["id"] == "x" and answer["error"]["code"] == -32601
        await client.assert_still_serving()


@run_async
async def test_deeply_nested_json_is_refused_and_the_connection_goes_on() -> None:
    deep_array = b"[" * 100_000 + b"]" * 100_000
    deep_object = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
    async with raw_connection(SampleService()) as (client, _):
        await client.send(deep_array + b"\n")
        answer = await client.receive()
        assert answer["id"] is None and answer["error"]["code"] in (-32700, -32600)
        await client.send(deep_object + b"\n")
        answer = await client.receive()
        assert answer["id"] is None and answer["error"]["code"] in (-32700, -32600)
        params = b'{"input":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        await client.send(
            b'{"jsonrpc":"2.0","id":3,"method":"sample:echo:call","params":' + params + b"}\n"
        )
        answer = await client.receive()
        assert answer["id"] in (3, None) and answer["error"]["code"] in (-32700, -32600, -32602)
        await client.assert_still_serving()


@run_async
async def test_json_nested_near_the_decoder_limit_never_closes_the_connection() -> None:
    """Around the depth where decoding the envelope starts to fail, the later decodes
    (target, cancel, error response) fail first; each must answer or be ignored, never
    end the connection. (Past the envelope's own limit a line is answered as unparseable,
    whatever it was meant to be, so the answers are not counted here.)"""
    async with raw_connection(SampleService()) as (client, _):
        for depth in range(700, 1300):
            nested = b"[" * depth + b"]" * depth
            await client.send(
                b'{"jsonrpc":"2.0","id":1,"method":"sample:ping:get",'
                b'"params":{"$target":"x","d":' + nested + b"}}\n"
            )
            await client.send(
                b'{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1,"d":'
                + nested
                + b"}}\n"
            )
            await client.send(
                b'{"jsonrpc":"2.0","id":99,"error":{"code":1,"message":"m","data":'
                + nested
                + b"}}\n"
            )
        await client.send(b'{"jsonrpc":"2.0","id":"last","method":"sample:ping:get"}\n')
        while True:
            answer = await client.receive()  # fails if the connection ended
            if answer.get("id") == "last":
                assert answer["result"] == "pong"
                break
            assert "error" in answer


@pytest.mark.parametrize(
    ("template", "expected_id"),
    [
        ('{{"jsonrpc":"2.0","method":"sample:echo:call","params":{{"input":["{}"]}},"id":79}}', 79),
        (
            '{{"params":{{"input":["{}"]}},"id":"late","jsonrpc":"2.0","method":"sample:echo:call"}}',
            "late",
        ),
        ('{{"jsonrpc":"2.0","id":80,"params":{{"input":["{}"]}},"method":"sample:echo:call"}}', 80),
        # An id nested in the params is not the message's.
        (
            '{{"jsonrpc":"2.0","method":"sample:echo:call","params":{{"input":["{}"],"id":81}}}}',
            None,
        ),
    ],
)
@run_async
async def test_an_oversized_request_is_answered_with_the_id_at_either_end(
    template: str, expected_id: object
) -> None:
    """The caller always learns: the id is looked for at both ends (docs/wire.md §8)."""
    options = PeerOptions(max_message_size=4096)
    async with raw_connection(SampleService(), options) as (client, _):
        big = template.format("x" * 100_000)
        await client.send(big.encode() + b"\n")
        answer = await client.receive()
        assert answer["id"] == expected_id and answer["error"]["code"] == -32600
        assert answer["error"]["data"] == {"size": len(big), "limit": 4096}
        await client.assert_still_serving()


@run_async
async def test_an_oversized_response_with_its_id_last_fails_the_call() -> None:
    import asyncio

    from idlc_runtime import ProtocolError

    options = PeerOptions(max_message_size=4096)
    async with raw_connection(SampleService(), options) as (client, server):
        call = asyncio.ensure_future(server.request("x:big", None, str))
        request = await client.receive()
        big = '{"jsonrpc":"2.0","result":"' + "r" * 10_000 + f'","id":{request["id"]}}}'
        await client.send(big.encode() + b"\n")
        try:
            await asyncio.wait_for(call, 5)
        except ProtocolError as error:
            assert "Response too large" in error.message
        else:
            raise AssertionError("the oversized response must fail the call")
        await client.assert_still_serving()


@run_async
async def test_without_routing_target_is_an_ordinary_member() -> None:
    """`PeerOptions(route_targets=False)` (a protocol without keyed objects, such as ACP):
    `$target` routes nowhere and is never refused; it stays in the params a fallback sees."""
    seen: list[Any] = []

    async def fallback(method: str, params: Any, notify: bool) -> Any:
        seen.append(params)
        return params

    options = PeerOptions(route_targets=False, fallback=fallback)
    async with raw_connection(SampleService(), options) as (client, server):
        server.register("it", NamedItem("x"))
        for target in ("it", "ghost", 3, None, "\\u0024"):
            answer = await client.call("sample:echo:call", {"$target": target, "input": ["a", "b"]})
            assert answer["result"] == ["b", "a"], answer
        params = {"$target": "it", "n": [1]}
        answer = await client.call("_ext/echo", params)
        assert answer["result"] == params and seen == [params]
        escaped = b'{"jsonrpc":"2.0","id":7,"method":"_ext/echo","params":{"\\u0024target":5}}\n'
        await client.send(escaped)
        assert (await client.receive())["result"] == {"$target": 5}
        await client.assert_still_serving()
