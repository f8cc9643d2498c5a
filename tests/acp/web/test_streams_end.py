"""A stream that ends releases its connection at once, under hypercorn and uvicorn, with the
garbage collector off (issue 21 item 3): its mailbox is free for the next reader and the
connection counts as idle again, so its idle timeout can close it."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import time
from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest

from .support import run_async
from .test_binding import SERVERS, acp_under
from .test_endpoint import INITIALIZE, post

STREAMS = 40


@contextlib.contextmanager
def no_garbage_collection() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def until(condition: Callable[[], Awaitable[bool] | bool], seconds: float = 10.0) -> bool:
    """Whether `condition()` holds within `seconds` (checked as the loop turns)."""
    deadline = time.monotonic() + seconds
    while True:
        outcome = condition()
        if outcome if isinstance(outcome, bool) else await outcome:
            return True
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)


async def drop(port: int, head: str, *, wait_for_open: bool) -> bool:
    """Ask for a stream, then drop the TCP connection without a word: at once, or once its
    `: open` arrived. False if the stream was refused (its last reader not yet released)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head.encode("latin-1"))
        await writer.drain()
        if not wait_for_open:
            return True
        if (await reader.readline()).split()[1:2] != [b"200"]:
            return False
        while (line := await reader.readline()) and not line.startswith(b": open"):
            pass
        return True
    finally:
        writer.transport.abort()


@pytest.mark.parametrize("server_name", SERVERS)
@run_async
async def test_dropped_streams_release_their_connection(server_name: str) -> None:
    with no_garbage_collection():
        async with (
            acp_under(server_name, sse_ping_interval=None) as (url, port, app),
            httpx.AsyncClient() as http,
        ):
            opened = await post(http, url, INITIALIZE)
            connection_id = opened.headers["acp-connection-id"]
            connection = app.http_connections[connection_id]
            head = (
                f"GET /acp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                "Accept: text/event-stream\r\n"
                f"Acp-Connection-Id: {connection_id}\r\n"
                f"Acp-Connection-Secret: {opened.headers['acp-connection-secret']}\r\n\r\n"
            )
            headers = {
                "Accept": "text/event-stream",
                "Acp-Connection-Id": connection_id,
                "Acp-Connection-Secret": opened.headers["acp-connection-secret"],
            }

            async def reader_admitted() -> bool:
                async with http.stream("GET", url, headers=headers) as stream:
                    return stream.status_code == 200

            for number in range(STREAMS):
                opened_and_dropped = functools.partial(
                    drop, port, head, wait_for_open=number % 2 == 0
                )
                assert await until(opened_and_dropped), f"stream {number - 1} kept"
                # Released: a next reader of the same stream is soon not refused 409 (a
                # kept stream would refuse it until the garbage collector ran: never here).
                assert await until(reader_admitted), f"stream {number} kept"
            assert await until(lambda: connection.busy == 0), connection.busy
            assert connection_id in app.http_connections
