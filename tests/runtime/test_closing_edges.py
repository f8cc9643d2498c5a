"""Closing and flow-control edges found in review, over real socket pairs."""

from __future__ import annotations

import asyncio
import json
import socket
import time

from idlc.runtime import Peer, PeerOptions
from idlc.runtime.framing import LineProtocol, TransportWriter

from .support import SampleService, run_async


def _request(id: int, method: str, params: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode() + b"\n"


async def _protocol_peer(root: object, options: PeerOptions) -> tuple[Peer, asyncio.StreamWriter]:
    ours, theirs = socket.socketpair()
    _, writer = await asyncio.open_connection(sock=ours)
    protocol = LineProtocol(options.max_message_size)
    await asyncio.get_running_loop().create_connection(lambda: protocol, sock=theirs)
    peer = Peer(protocol, TransportWriter(protocol), root, options=options)
    peer.start()
    return peer, writer


async def _stream_peer(root: object, options: PeerOptions) -> tuple[Peer, asyncio.StreamWriter]:
    ours, theirs = socket.socketpair()
    _, writer = await asyncio.open_connection(sock=ours)
    reader, their_writer = await asyncio.open_connection(sock=theirs)
    peer = Peer(reader, their_writer, root, options=options)
    peer.start()
    return peer, writer


@run_async
async def test_close_returns_when_the_other_side_stops_reading() -> None:
    """A peer that never reads its answers must not make `close()` wait for ever."""
    options = PeerOptions(close_timeout=0.5)
    for make in (_protocol_peer, _stream_peer):
        peer, writer = await make(SampleService(), options)
        writer.write(_request(1, "sample:echo:call", {"input": ["x" * 1000] * 3000}))
        await writer.drain()
        await asyncio.sleep(0.2)  # the ~3 MB answer fills the socket buffers
        started = time.monotonic()
        await asyncio.wait_for(peer.close(), 10)
        assert time.monotonic() - started < 5, make.__name__
        writer.close()


@run_async
async def test_one_cancelled_writer_does_not_cancel_the_others() -> None:
    """Tasks waiting for the transport to take more each have their own waiter."""
    ours, theirs = socket.socketpair()
    protocol = LineProtocol(1 << 20)
    await asyncio.get_running_loop().create_connection(lambda: protocol, sock=theirs)
    protocol.pause_writing()
    first = asyncio.ensure_future(protocol.writable())
    second = asyncio.ensure_future(protocol.writable())
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.sleep(0)
    assert not second.done()
    protocol.resume_writing()
    await asyncio.wait_for(second, 1)
    protocol.close()
    ours.close()
