"""Reading through `LineProtocol`: lines handled as the transport delivers them.

The transports read this way; `Peer(StreamReader, writer)` reads from a task. These tests
drive the protocol path over a socket pair, where reading can be seen to pause.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator

import pytest

from idlc_runtime import Peer, PeerOptions
from idlc_runtime.transports.framing import LineProtocol, LineSplitter, Oversized, TransportWriter

from .support import RawClient, SampleService, run_async, within


@contextlib.asynccontextmanager
async def protocol_connection(
    root: object, options: PeerOptions | None = None, *, start: bool = True
) -> AsyncIterator[tuple[RawClient, Peer, LineProtocol]]:
    """A `Peer` reading through a `LineProtocol` on one end of a socket pair."""
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=ours, limit=2**20)
    max_line = (options or PeerOptions()).max_message_size
    protocol = LineProtocol(max_line)
    await asyncio.get_running_loop().create_connection(lambda: protocol, sock=theirs)
    peer = Peer(protocol, TransportWriter(protocol), root, options=options)
    try:
        if start:
            peer.start()
        yield RawClient(reader, writer), peer, protocol
    finally:
        await peer.close()
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def _reading(protocol: LineProtocol) -> bool:
    transport = protocol.transport
    assert isinstance(transport, asyncio.ReadTransport)
    return transport.is_reading()


def _hold(key: str) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": key,
        "method": "sample:hold-read:call",
        "params": {"gateKey": key},
    }
    return json.dumps(message).encode() + b"\n"


@run_async
async def test_reading_pauses_at_the_handler_bound_and_resumes_when_a_slot_frees() -> None:
    service = SampleService()
    async with protocol_connection(service, PeerOptions(max_concurrent_handlers=2)) as (
        client,
        _peer,
        protocol,
    ):
        await client.send(_hold("a") + _hold("b") + _hold("c"))
        await within(service.started["a"].wait())
        await within(service.started["b"].wait())
        assert not _reading(protocol), "the transport still reads at the bound"
        await client.send_json({"jsonrpc": "2.0", "id": "p", "method": "sample:ping:get"})
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(asyncio.shield(service.started["c"].wait()), 0.2)
        assert not _reading(protocol)
        service.gates["a"].set()
        assert await client.receive() == {"jsonrpc": "2.0", "id": "a", "result": "a"}
        await within(service.started["c"].wait())
        service.gates["b"].set()
        service.gates["c"].set()
        answers = [(await client.receive())["id"] for _ in range(3)]
        # c and the ping were taken up in the order they came.
        assert sorted(answers) == ["b", "c", "p"]
        assert _reading(protocol)
        await client.assert_still_serving()


@run_async
async def test_many_messages_in_one_chunk_are_all_answered_in_order() -> None:
    async with protocol_connection(SampleService()) as (client, _peer, _protocol):
        burst = b"".join(
            json.dumps(
                {"jsonrpc": "2.0", "id": i, "method": "sample:add:call", "params": {"amount": i}}
            ).encode()
            + b"\n"
            for i in range(200)
        )
        await client.send(burst)
        answers = [await client.receive() for _ in range(200)]
        assert [answer["id"] for answer in answers] == list(range(200))
        assert answers[-1]["result"] == sum(range(200))


@run_async
async def test_a_message_split_across_chunks_is_put_back_together() -> None:
    async with protocol_connection(SampleService()) as (client, _peer, _protocol):
        line = b'{"jsonrpc": "2.0", "id": 1, "method": "sample:ping:get"}\n'
        for index in range(0, len(line), 7):
            await client.send(line[index : index + 7])
            await asyncio.sleep(0.01)
        assert await client.receive() == {"jsonrpc": "2.0", "id": 1, "result": "pong"}


@run_async
async def test_eof_mid_line_answers_what_came_and_gives_the_rest_its_parse_error() -> None:
    async with protocol_connection(SampleService()) as (client, peer, _protocol):
        await client.send(b'{"jsonrpc": "2.0", "id": 1, "method": "sample:ping:get"}\n{"jsonr')
        client.writer.write_eof()
        assert await client.receive() == {"jsonrpc": "2.0", "id": 1, "result": "pong"}
        error = await client.receive()
        assert error["id"] is None
        assert error["error"]["code"] == -32700
        await within(peer.wait_closed())


@run_async
async def test_lines_that_arrive_before_start_are_handled_once_it_starts() -> None:
    async with protocol_connection(SampleService(), start=False) as (client, peer, protocol):
        await client.send_json({"jsonrpc": "2.0", "id": 1, "method": "sample:ping:get"})
        await asyncio.sleep(0.05)
        assert not _reading(protocol), "lines were taken in with no one to handle them"
        peer.start()
        assert await client.receive() == {"jsonrpc": "2.0", "id": 1, "result": "pong"}
        await client.assert_still_serving()


@run_async
async def test_an_oversized_line_is_skipped_through_the_protocol_and_the_next_is_read() -> None:
    options = PeerOptions(max_message_size=200)
    async with protocol_connection(SampleService(), options) as (client, _peer, _protocol):
        big = {"jsonrpc": "2.0", "id": 7, "method": "sample:echo:call", "params": ["x" * 500]}
        await client.send(json.dumps(big).encode()[:150])
        await asyncio.sleep(0.01)
        await client.send(json.dumps(big).encode()[150:] + b"\n")
        error = await client.receive()
        assert error["id"] == 7
        assert error["error"]["code"] == -32600
        assert error["error"]["data"]["limit"] == 200
        await client.assert_still_serving()


@run_async
async def test_the_other_side_closing_ends_the_peer_and_closes_its_transport() -> None:
    async with protocol_connection(SampleService()) as (client, peer, protocol):
        client.writer.close()
        await within(peer.wait_closed())
        assert protocol.transport.is_closing()


def test_the_splitter_keeps_partial_lines_and_skips_long_ones() -> None:
    splitter = LineSplitter(max_line=10)
    assert splitter.feed(b"ab") == []
    assert splitter.feed(b"c\nde\nf") == [b"abc", b"de"]
    assert splitter.feed(b"0123456789ABC") == []  # too long already: skipped as it comes
    assert splitter.feed(b"DEF\ngh\n") == [
        Oversized(17, b"f0123456789ABC", b"f0123456789ABCDEF"),
        b"gh",
    ]
    assert splitter.feed(b"tail") == []
    assert splitter.finish() == [b"tail"]
    assert splitter.finish() == []
