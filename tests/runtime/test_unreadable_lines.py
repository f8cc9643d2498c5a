"""Lines that do not decode: each gets its answer and the connection goes on (docs/wire.md §8).

msgspec reports a type mismatch before a syntax error further on (`[1, 2`), and numbers it
cannot hold (`1e400`) as validation errors; such lines used to escape the per-line path and
end the connection. The fuzz tests feed arbitrary bytes and JSON-ish token soups.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import idlc_runtime.rpc.inbound
from idlc_runtime import PeerOptions, ProtocolError, connect_fds
from idlc_runtime.codec.unreadable import Identity, identify, identify_line

from .sample_api import SampleProxy
from .support import SampleService, raw_connection, run_async, within
from .test_transports import SERVER_SCRIPT, _child_env

_FUZZ = settings(
    # A few seconds per test in CI; `IDLC_FUZZ_EXAMPLES=5000` for a longer hunt.
    max_examples=int(os.environ.get("IDLC_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

BIG_ID = "1" * 5000


@pytest.mark.parametrize(
    ("line", "expected_id"),
    [
        (b"[1, 2", None),
        (b"[", None),
        (b"1 x", None),
        (b'"a" b', None),
        (b"[] ]", None),
        (b"null,", None),
        (b'{"id":true,', None),
        (b"1e400", None),
        (b"[1e400]", None),
        (b'{"jsonrpc":"2.0","id":' + BIG_ID.encode() + b',"method":"sample:ping:get"}', None),
        (b'{"jsonrpc":"2.0","id":true,"method":"x","params":1e400}', None),
        (b'{"jsonrpc":"2.0","id":4,"method":"x","params":[1e400]} x', 4),
        # A lone surrogate is no text msgspec accepts: -32700, but with the id.
        (b'{"jsonrpc":"2.0","id":5,"method":"sample:echo:call","params":{"input":["\\ud800"]}}', 5),
        (b'{"jsonrpc":"2.0","params":{"input":["\\ud800"]},"method":"sample:echo:call","id":6}', 6),
    ],
)
@run_async
async def test_an_unreadable_line_is_answered_and_the_connection_goes_on(
    line: bytes, expected_id: object
) -> None:
    async with raw_connection(SampleService()) as (client, _):
        await client.send(line + b"\n")
        answer = await client.receive()
        if isinstance(answer, list):  # a readable array is a batch: its member is answered
            (answer,) = answer
        assert answer["jsonrpc"] == "2.0" and answer["id"] == expected_id
        assert answer["error"]["code"] in (-32700, -32600)
        await client.assert_still_serving()


@pytest.mark.parametrize(
    ("line", "code", "path"),
    [
        # Read as the field says: an integer type's range, or no number a double holds.
        (b'{"jsonrpc":"2.0","id":7,"method":"sample:add:call","params":{"amount":1e400}}',
         -32602, "$.amount"),
        (b'{"jsonrpc":"2.0","id":7,"method":"sample:add:call","params":{"amount":%d}}'
         % 2**64, -32602, "$.amount"),
        # Params nothing decodes are not looked into: the method is what is answered.
        (b'{"jsonrpc":"2.0","id":7,"method":"sample:nothing:call","params":{"x":1e400}}',
         -32601, None),
    ],
)  # fmt: skip
@run_async
async def test_a_number_out_of_range_in_params_is_the_fields_to_refuse(
    line: bytes, code: int, path: str | None
) -> None:
    """docs/wire.md §8 rule 1: inside params, a number no value can hold is refused by the
    field that holds it, at its path; the message itself was read."""
    async with raw_connection(SampleService()) as (client, _):
        await client.send(line + b"\n")
        answer = await client.receive()
        assert answer["id"] == 7 and answer["error"]["code"] == code, answer
        assert answer["error"].get("data", {}).get("path") == path
        await client.assert_still_serving()


@run_async
async def test_an_unreadable_line_over_stdio_leaves_calls_in_flight_answered() -> None:
    """Over stdio the bad line used to end the server process (exit 0) with a call pending."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        SERVER_SCRIPT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=_child_env(),
    )
    assert process.stdin is not None and process.stdout is not None
    hold = {"jsonrpc": "2.0", "id": 1, "method": "sample:delay:call", "params": {"ticks": 50}}
    process.stdin.write(json.dumps(hold).encode() + b"\n[1, 2\n")
    process.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"sample:ping:get"}\n')
    answers = [json.loads(await within(process.stdout.readline())) for _ in range(3)]
    process.stdin.close()
    await within(process.wait())
    by_id: dict[Any, Any] = {}
    for answer in answers:
        by_id.setdefault(answer["id"], answer)
    assert by_id[1]["result"] == 50 and by_id[2]["result"] == "pong"
    assert by_id[None]["error"]["code"] == -32700


@run_async
async def test_a_response_that_does_not_decode_fails_its_call() -> None:
    """A response is never answered; the call it answers learns instead."""
    to_server_read, to_server_write = os.pipe()
    to_client_read, to_client_write = os.pipe()
    async with connect_fds(to_client_read, to_server_write) as client:
        call = asyncio.ensure_future(SampleProxy(client).ping())
        request = await within(asyncio.to_thread(os.read, to_server_read, 4096))
        id = json.loads(request)["id"]
        os.write(to_client_write, b'{"jsonrpc":"2.0","id":%d,"result":"\\ud800"}\n' % id)
        with pytest.raises(ProtocolError, match="Unreadable response"):
            await within(call)
    for fd in (to_server_read, to_client_write):
        os.close(fd)


@run_async
async def test_a_failure_while_handling_a_line_is_answered_not_fatal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever goes wrong inside the per-line path (a bug) is answered -32603 with the id
    the line shows; the connection goes on."""
    real = idlc_runtime.rpc.inbound.decode_envelope

    def broken(line: bytes) -> Any:
        if b"boom" in line:
            raise KeyError("a bug")
        return real(line)

    monkeypatch.setattr(idlc_runtime.rpc.inbound, "decode_envelope", broken)
    async with raw_connection(SampleService()) as (client, _):
        await client.send(b'{"jsonrpc":"2.0","id":"boom","method":"sample:ping:get"}\n')
        answer = await client.receive()
        assert answer["id"] == "boom" and answer["error"]["code"] == -32603
        await client.assert_still_serving()


# ------------------------------------------------------------------ fuzzing

_TOKENS = [
    "{", "}", "[", "]", ",", ":", " ", "\n", '"', "\\", "\\u", "d800", "\\ud800",
    '"jsonrpc"', '"2.0"', '"id"', '"method"', '"params"', '"result"', '"error"',
    '"sample:ping:get"', '"sample:add:call"', '"amount"', '"$target"', '"$/cancel_request"',
    '"requestId"', "0", "1", "-1", "1e400", "-1e400", "1.5", BIG_ID, "true", "false", "null",
    "nul", "tru", '"x', "\x00", "\xff", "é",
]  # fmt: skip


async def _still_serving_after(data: bytes) -> None:
    async with raw_connection(SampleService(), PeerOptions(max_message_size=4096)) as (client, _):
        await client.send(data + b"\n")
        await client.send(b'{"jsonrpc":"2.0","id":"last","method":"sample:ping:get"}\n')
        while True:
            answer = await client.receive()  # fails if the connection ended
            members = answer if isinstance(answer, list) else [answer]
            for member in members:
                assert member["jsonrpc"] == "2.0" and ("error" in member or "result" in member)
            if isinstance(answer, dict) and answer["id"] == "last":
                assert answer["result"] == "pong"
                return


@_FUZZ
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_end_the_connection(data: bytes) -> None:
    asyncio.run(asyncio.wait_for(_still_serving_after(data), 20))


@_FUZZ
@given(st.lists(st.sampled_from(_TOKENS), max_size=40))
def test_json_token_soups_never_end_the_connection(tokens: list[str]) -> None:
    data = "".join(tokens).encode("utf-8", "surrogatepass")
    asyncio.run(asyncio.wait_for(_still_serving_after(data), 20))


@_FUZZ
@given(st.binary(max_size=2000), st.binary(max_size=2000))
def test_identify_never_raises(head: bytes, tail: bytes) -> None:
    identity = identify(head, tail)
    assert identity.id is None or isinstance(identity.id, (int, str))


def test_identify_finds_the_id_at_either_end_and_only_at_the_top_level() -> None:
    assert identify_line(b'{"jsonrpc":"2.0","id":3,"method":"m","params":{').id == 3
    assert identify_line(b'{"method":"m","params":{"a":[1]},"id":"x"}').id == "x"
    assert identify_line(b'{"method":"m","params":{"id":7}}').id is None
    assert identify_line(b'{"method":"m","params":{"a":"\\",\\"id\\":8}"}}').id is None
    assert identify_line(b'{"id":1.5,"method":"m"}').id is None
    assert identify_line(b'{"id":true,"method":"m"}').id is None
    response = identify_line(b'{"jsonrpc":"2.0","id":9,"result":{"big":')
    assert response.id == 9 and response.response
    assert not identify_line(b'{"jsonrpc":"2.0","id":9,"method":"m","result":1}').response
    # A key whose value runs past the head still counts: this is a response.
    assert identify(b'{"jsonrpc":"2.0","result":"rrrr', b'rrrr","id":3}') == Identity(3, True)


@run_async
async def test_a_failure_while_handling_a_batch_member_spares_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = idlc_runtime.rpc.inbound.decode_envelope

    def broken(line: bytes) -> Any:
        if b"boom" in line:
            raise KeyError("a bug")
        return real(line)

    monkeypatch.setattr(idlc_runtime.rpc.inbound, "decode_envelope", broken)
    async with raw_connection(SampleService()) as (client, _):
        await client.send(
            b'[{"jsonrpc":"2.0","id":"boom","method":"sample:ping:get"},'
            b'{"jsonrpc":"2.0","id":"fine","method":"sample:ping:get"}]\n'
        )
        answers = {answer["id"]: answer for answer in await client.receive()}
        assert answers["boom"]["error"]["code"] == -32603
        assert answers["fine"]["result"] == "pong"
        await client.assert_still_serving()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
_ID = st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.text(max_size=30)


@_FUZZ
@given(_ID, _JSON, st.booleans())
def test_identify_finds_an_id_written_first_or_last(
    id: int | str, params: object, last: bool
) -> None:
    message: dict[str, object] = {"jsonrpc": "2.0", "method": "m", "params": params}
    if last:
        message["id"] = id
    else:
        message = {"id": id, **message}
    line = json.dumps(message, ensure_ascii=False).encode()
    # Only the ends are looked at, as for an oversized line.
    assert identify(line[:256], line[-256:]).id == id or len(json.dumps(id).encode()) > 200
