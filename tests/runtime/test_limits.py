"""Bounded concurrency with backpressure, and the message size limit on answers."""

from __future__ import annotations

import asyncio
import os

import pytest

from idlc_runtime import PeerOptions, ProtocolError, connect_fds, memory_pair

from .sample_api import SampleProxy
from .support import SampleService, raw_connection, run_async, within


@run_async
async def test_reading_pauses_while_the_handler_bound_is_reached() -> None:
    service = SampleService()
    options = PeerOptions(max_concurrent_handlers=2)
    async with raw_connection(service, options) as (client, _server):
        for key in ("a", "b", "c"):
            await client.send_json(
                {
                    "jsonrpc": "2.0",
                    "id": key,
                    "method": "sample:hold-read:call",
                    "params": {"gateKey": key},
                }
            )
        await within(service.started["a"].wait())
        await within(service.started["b"].wait())
        await client.send_json({"jsonrpc": "2.0", "id": "p", "method": "sample:ping:get"})
        # Two handlers hold both slots: neither the third call nor the ping is taken up.
        # (Something that must *not* happen can only be observed for a while.)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(asyncio.shield(service.started["c"].wait()), 0.2)
        service.gates["a"].set()
        assert await client.receive() == {"jsonrpc": "2.0", "id": "a", "result": "a"}
        await within(service.started["c"].wait())
        service.gates["b"].set()
        service.gates["c"].set()
        answers = {(await client.receive())["id"] for _ in range(3)}
        assert answers == {"b", "c", "p"}
        await client.assert_still_serving()


@run_async
async def test_a_thousand_calls_through_a_small_bound_all_complete() -> None:
    options = PeerOptions(max_concurrent_handlers=8)
    async with memory_pair(None, SampleService(), options=options) as (client, _server):
        proxy = SampleProxy(client)
        results = await within(asyncio.gather(*(proxy.delay(ticks=i % 7) for i in range(1000))))
        assert results == [i % 7 for i in range(1000)]


@run_async
async def test_an_oversized_answer_fails_the_call_and_the_connection_goes_on() -> None:
    to_server_read, to_server_write = os.pipe()
    to_client_read, to_client_write = os.pipe()
    strict = PeerOptions(max_message_size=1000)
    async with connect_fds(to_server_read, to_client_write, SampleService()):
        async with connect_fds(to_client_read, to_server_write, options=strict) as client:
            proxy = SampleProxy(client)
            assert await within(proxy.echo(["x" * 900])) == ["x" * 900]
            with pytest.raises(ProtocolError) as too_large:
                await within(proxy.echo(["y" * 990]))
            assert "exceeds the limit" in too_large.value.message
            answer = '{"jsonrpc":"2.0","id":2,"result":["%s"]}' % ("y" * 990)
            assert too_large.value.data == {"size": len(answer), "limit": 1000}
            assert await within(proxy.ping()) == "pong"
