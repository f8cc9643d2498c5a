"""Closing and flow-control edges found in review, over real socket pairs."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from idlc_runtime import Peer, PeerOptions
from idlc_runtime.transports.framing import LineProtocol, TransportWriter

from .support import SampleService, run_async


def _request(id: int, method: str, params: object) -> bytes:
    return (
        json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode()
        + b"\n"
    )


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
        # close() gives up on the unread answer after close_timeout; a close waiting for the
        # reader instead would never return: only that hang reaches 20 times close_timeout.
        await asyncio.wait_for(peer.close(), 20 * options.close_timeout)
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


@run_async
async def test_a_handler_cancelled_before_its_first_step_cancels_what_it_awaits() -> None:
    """A handler started inline that waits on a child task, then is cancelled in the same
    loop turn: the child must be cancelled too, not left running detached."""
    from idlc_runtime.rpc.eager import start_eagerly

    child_finished = asyncio.Event()

    async def child() -> None:
        await asyncio.sleep(0.2)
        child_finished.set()

    spawned: list[asyncio.Task[None]] = []

    async def handler() -> None:
        task = asyncio.ensure_future(child())
        spawned.append(task)
        await task

    continuation = start_eagerly(asyncio.get_running_loop(), handler())
    assert continuation is not None
    continuation.cancel()  # before the task's first step
    try:
        await continuation
    except asyncio.CancelledError:
        pass
    await asyncio.sleep(0.3)
    assert spawned[0].cancelled()
    assert not child_finished.is_set()


def _raising_root() -> object:
    raise RuntimeError("no root for this connection")


def _root_of_no_interface() -> object:
    return object()  # implements no generated interface: serving it fails


@pytest.mark.parametrize("no_root", [_raising_root, _root_of_no_interface])
@run_async
async def test_a_failing_root_factory_closes_that_connection(no_root: object) -> None:
    from idlc_runtime import serve_tcp

    async with serve_tcp(no_root, "127.0.0.1", 0) as server:  # type: ignore[arg-type]
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(_request(1, "sample:ping:get", {}))
        try:
            await writer.drain()
        except ConnectionError:
            pass
        try:
            data = await asyncio.wait_for(reader.read(), 5)
        except ConnectionError:
            data = b""
        assert data == b""  # closed, with no answer, instead of left hanging
        writer.close()


def test_an_interceptor_methods_string_is_refused() -> None:
    from idlc_runtime.rpc.interceptors import applies_to

    class Narrow:
        methods = "session/prompt"

        async def __call__(self, call: object, proceed: object) -> object:
            raise AssertionError("never called")

    try:
        applies_to(Narrow(), "prompt")  # type: ignore[arg-type]
    except TypeError as error:
        assert "collection of method names" in str(error)
    else:
        raise AssertionError("a string `methods` must be refused, not matched by substring")
