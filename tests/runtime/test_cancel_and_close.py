"""Cancellation in both directions, and closing without hanging or leaving tasks behind."""

from __future__ import annotations

import asyncio
import json

import pytest

from idlc_runtime import ConnectionClosed, Peer, PeerOptions, memory_pair

from .sample_api import SampleProxy
from .support import SampleService, raw_connection, run_async, within


@run_async
async def test_cancelling_a_call_cancels_the_remote_handler() -> None:
    service = SampleService()
    async with memory_pair(None, service) as (client, _server):
        call = asyncio.create_task(SampleProxy(client).hold_read(gate_key="k"))
        await within(service.started["k"].wait())
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        # The handler saw the cancellation; its -32800 answer is dropped by the caller.
        await within(service.cancelled_event("k"))
        assert await within(SampleProxy(client).ping()) == "pong"


@run_async
async def test_an_incoming_cancel_answers_once_with_request_cancelled() -> None:
    service = SampleService()
    async with raw_connection(service) as (client, _):
        await client.send_json(
            {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "sample:hold-read:call",
                "params": {"gateKey": "k"},
            }
        )
        await within(service.started["k"].wait())
        await client.send_json(
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 9}}
        )
        answer = await client.receive()
        assert answer["id"] == 9 and answer["error"]["code"] == -32800
        assert "k" in service.cancelled
        # Cancelling again, or cancelling an unknown id, changes nothing and answers nothing.
        await client.send_json(
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 9}}
        )
        await client.send_json(
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "x"}}
        )
        await client.send_json({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {}})
        await client.assert_still_serving()


@run_async
async def test_a_cancel_after_the_answer_changes_nothing() -> None:
    async with raw_connection(SampleService()) as (client, _):
        answer = await client.call("sample:add:call", {"amount": 2}, id=1)
        assert answer["result"] == 2
        await client.send_json(
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 1}}
        )
        await client.assert_still_serving()


@run_async
async def test_pending_calls_fail_promptly_when_the_other_side_disconnects() -> None:
    service = SampleService()
    async with memory_pair(None, service) as (client, server):
        calls = [
            asyncio.create_task(SampleProxy(client).hold_read(gate_key=f"g{i}")) for i in range(3)
        ]
        for i in range(3):
            await within(service.started[f"g{i}"].wait())
        await server.close()
        for call in calls:
            # Failed by the close itself: a call left waiting would never end (within: a hang).
            with pytest.raises(ConnectionClosed):
                await within(call)
        # The server's handlers were cancelled, not left running.
        assert service.cancelled == {"g0", "g1", "g2"}
        await within(client.wait_closed())
        assert client.closed
        with pytest.raises(ConnectionClosed):
            await SampleProxy(client).ping()
        with pytest.raises(ConnectionClosed):
            await SampleProxy(client).event(text="late")


@run_async
async def test_a_socket_peer_that_vanishes_mid_request() -> None:
    async with raw_connection(SampleService()) as (raw, server):
        call = asyncio.create_task(server.request("sample:ping:get", None, str))
        request = await raw.receive()
        assert request["method"] == "sample:ping:get"
        raw.writer.close()
        with pytest.raises(ConnectionClosed):
            await within(call, 1.0)
        await within(server.wait_closed())


@run_async
async def test_closing_fails_calls_and_the_other_side_cancels_its_handlers() -> None:
    service = SampleService()
    # The server sees the end of its input: its handler gets `finish_on_eof` to finish,
    # then it is cancelled.
    options = PeerOptions(finish_on_eof=0.05)
    async with memory_pair(None, service, options=options) as (client, server):
        call = asyncio.create_task(SampleProxy(client).hold_write(gate_key="w"))
        await within(service.started["w"].wait())
        await within(client.close())
        await within(client.close())
        with pytest.raises(ConnectionClosed):
            await within(call)
        await within(server.wait_closed())
        assert "w" in service.cancelled


@run_async
async def test_a_handler_can_close_its_own_connection() -> None:
    class Closer(SampleService):
        async def ping(self) -> str:
            from idlc_runtime import current_peer

            await current_peer().close()
            return "unreachable"

    async with memory_pair(None, Closer()) as (client, server):
        with pytest.raises(ConnectionClosed):
            await within(SampleProxy(client).ping())
        await within(server.wait_closed())


@run_async
async def test_an_unstarted_peer_refuses_calls() -> None:
    reader = asyncio.StreamReader()

    class NullWriter:
        def write(self, data: bytes) -> None:
            raise AssertionError("nothing may be written")

        async def drain(self) -> None:
            return None

        def close(self) -> None:
            return None

        async def wait_closed(self) -> None:
            return None

    peer = Peer(reader, NullWriter())
    with pytest.raises(ConnectionClosed):
        await peer.request("sample:ping:get", None, str)
    await peer.close()


@run_async
async def test_a_cancel_read_together_with_its_request_still_cancels_it() -> None:
    """The request and its `$/cancel_request` arrive in one read: the handler has started
    (and paused) by the time the cancel is handled, and must still be cancelled."""
    service = SampleService()
    async with raw_connection(service) as (client, _):
        request = {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "sample:hold-read:call",
            "params": {"gateKey": "g"},
        }
        cancel = {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 5}}
        await client.send(
            json.dumps(request).encode() + b"\n" + json.dumps(cancel).encode() + b"\n"
        )
        answer = await client.receive()
        assert answer["id"] == 5 and answer["error"]["code"] == -32800
        assert "g" in service.cancelled
        await client.assert_still_serving()
