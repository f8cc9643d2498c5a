"""`serve_websocket` answers only to its own names, and refuses repeated `Origin`/`Host`
headers (docs/web.md, "Who gets in"): a page on a rebinding domain names that domain."""

from __future__ import annotations

import asyncio
import contextlib

from idlc_runtime.web import serve_websocket

from ..support import SampleService, run_async


async def upgrade_status(port: int, *headers: str) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        head = [
            "GET / HTTP/1.1",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version: 13",
            *headers,
        ]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        await writer.drain()
        return int((await reader.readline()).split()[1])
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


@run_async
async def test_host_and_repeated_headers() -> None:
    async with serve_websocket(SampleService, allowed_origins=["https://ok.example"]) as server:
        port = server.port
        host = f"Host: 127.0.0.1:{port}"
        assert await upgrade_status(port, host) == 101
        assert await upgrade_status(port, f"Host: localhost:{port}") == 101
        assert await upgrade_status(port, "Host: evil.example") == 421
        assert await upgrade_status(port, f"Host: evil.example:{port}") == 421
        twice = ["Origin: https://ok.example", "Origin: https://evil.example"]
        assert await upgrade_status(port, host, *twice) == 400
        assert await upgrade_status(port, host, host) == 400
    async with serve_websocket(SampleService, allowed_hosts=["svc.example"]) as server:
        assert await upgrade_status(server.port, "Host: svc.example") == 101
        assert await upgrade_status(server.port, f"Host: 127.0.0.1:{server.port}") == 421
