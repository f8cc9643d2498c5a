"""What the servers the project starts hold stays within their documented byte limits under
concurrent large input (issue 21 item 2), measured as the server process's peak resident
memory (VmHWM), over a baseline taken in the same run after a first small exchange:

- eight clients each sending a 49 MiB WebSocket frame at once, to `serve_websocket`
  (uvicorn) and to `serve_acp` (hypercorn): beyond the frame budget the connection holding
  the most is closed with 1009 and the documented reason, the others are answered;
- eight 49 MiB POSTs to `/acp` at once, from eight connections: bodies are read within the
  input budget;
- a connection's SSE stream that is never read while a hundred requests with 2 MiB ids
  arrive: what waits for the agent is bounded, the rest refused 503.

The servers (`server.py KIND budget`) run in subprocesses under an address-space limit,
with a 64 MiB frame budget and input budget (FRAME_BUDGET, MAX_BUFFERED_INPUT). Before these
bounds the frames took the servers to 1,227 MiB and 889 MiB (issue 21), the eight POSTs to
1,048 MiB (measured with this test), an unread stream 618 MiB (issue 21, with its POSTs one
after another); with them, about 150, 250, 280 and 200 MiB. Everything talks to 127.0.0.1,
the counts are fixed and each wait has a deadline.
"""

from __future__ import annotations

import asyncio
import json
import struct
from typing import Any

import httpx
import pytest

from idlc_acp.web.connection import INBOUND_BYTES, INBOUND_WAITING
from idlc_acp.web.mailbox import MAILBOX_BYTES
from idlc_runtime.rpc.peer import DEFAULT_MAX_MESSAGE_SIZE
from idlc_runtime.web.frame_budget import MESSAGE_TOO_BIG
from tests.web_hostile.server import FRAME_BUDGET, MAX_BUFFERED_INPUT
from tests.web_hostile.support import (
    open_websocket,
    peak_rss,
    read_frame,
    server_process,
    text_frame,
)

MiB = 1024 * 1024
CLIENTS = 8
LARGE = 49 * MiB
#: Each waiting step's deadline (generous: the machine is small and shared).
DEADLINE = 120.0
#: While a message is read and handed over, each of its bytes exists in a few forms at
#: once: the server library's buffer, the bytes (or text) it gives the application, the
#: runtime's UTF-8 line, the decoded JSON string. The bounds below allow four of each byte
#: held within the documented limits.
COPIES = 4


#: What the servers answer a request to a method they do not have (-32601), or, before
#: `initialize` (the ACP agent), any request but `initialize` (-32600).
REFUSED_CODES = {-32601, -32600}


def _pad_request(request_id: int, size: int) -> str:
    """A JSON-RPC request of about `size` bytes to a method no server has."""
    return json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": "x/none", "params": {"pad": "p" * size}}
    )


async def _send_frame(port: int, path: str, request_id: int) -> tuple[str, Any]:
    """One client sending one large frame, reading while it sends: ("answer", error code)
    or ("closed", (code, reason)) from the first frame the server sends back."""
    reader, writer = await open_websocket(port, path)
    try:
        writer.write(text_frame(_pad_request(request_id, LARGE).encode()))
        sending = asyncio.ensure_future(writer.drain())
        opcode, payload = await read_frame(reader)
        sending.cancel()
        if opcode == 0x1:
            return "answer", json.loads(payload)["error"]["code"]
        assert opcode == 0x8, (opcode, payload[:100])
        (code,) = struct.unpack("!H", payload[:2])
        return "closed", (code, payload[2:].decode())
    finally:
        writer.transport.abort()


async def _small_call(port: int, path: str) -> None:
    reader, writer = await open_websocket(port, path)
    try:
        writer.write(text_frame(_pad_request(0, 10).encode()))
        opcode, payload = await read_frame(reader)
        assert opcode == 0x1 and json.loads(payload)["error"]["code"] in REFUSED_CODES
    finally:
        writer.transport.abort()


@pytest.mark.parametrize(("kind", "path"), [("websocket", "/"), ("acp", "/acp")])
def test_concurrent_large_frames_stay_within_the_frame_budget(kind: str, path: str) -> None:
    with server_process(kind, "budget") as (port, pid):

        async def scenario() -> list[tuple[str, Any]]:
            await asyncio.wait_for(_small_call(port, path), DEADLINE)
            return await asyncio.wait_for(
                asyncio.gather(*(_send_frame(port, path, number) for number in range(CLIENTS))),
                DEADLINE,
            )

        baseline = peak_rss(pid)
        outcomes = asyncio.run(scenario())
        grown = peak_rss(pid) - baseline
        # And a well-behaved client is served after.
        asyncio.run(asyncio.wait_for(_small_call(port, path), DEADLINE))
    answered = [value for outcome, value in outcomes if outcome == "answer"]
    refused = [value for outcome, value in outcomes if outcome == "closed"]
    assert answered and all(code in REFUSED_CODES for code in answered), outcomes
    # The budget holds under two frames: most are refused, each with the documented reason.
    assert refused, outcomes
    for code, reason in refused:
        assert code == MESSAGE_TOO_BIG
        assert reason.startswith("server frame budget exhausted: ")
        assert reason.endswith(f"bytes held, budget {FRAME_BUDGET}")
    # Frames in assembly within the frame budget, one 256 KiB read per connection past
    # it; the one complete message the budget lets through, handed to its peer.
    bound = COPIES * (FRAME_BUDGET + DEFAULT_MAX_MESSAGE_SIZE) + CLIENTS * 256 * 1024
    print(f"{kind}: grew {grown / MiB:.0f} MiB, bound {bound / MiB:.0f} MiB; {outcomes}")
    assert grown <= bound, (grown / MiB, bound / MiB)


async def _open_connection(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    """initialize: the headers every later request of that connection carries."""
    body = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}
    opened = await http.post(url, json=body)
    assert opened.status_code == 200, opened.text
    return {
        "Acp-Connection-Id": opened.headers["acp-connection-id"],
        "Acp-Connection-Secret": opened.headers["acp-connection-secret"],
    }


def test_concurrent_large_posts_stay_within_the_input_budget() -> None:
    with server_process("acp", "budget") as (port, pid):
        url = f"http://127.0.0.1:{port}/acp"

        async def scenario() -> list[int]:
            limits = httpx.Limits(max_connections=2 * CLIENTS)
            async with httpx.AsyncClient(timeout=DEADLINE, limits=limits) as http:
                scopes = [await _open_connection(http, url) for _ in range(CLIENTS)]
                note = json.dumps(
                    {"jsonrpc": "2.0", "method": "x/none", "params": {"pad": "p" * LARGE}}
                )
                headers = {"Content-Type": "application/json"}
                answers = await asyncio.gather(
                    *(http.post(url, content=note, headers={**headers, **s}) for s in scopes)
                )
                return [answer.status_code for answer in answers]

        baseline = peak_rss(pid)
        statuses = asyncio.run(asyncio.wait_for(scenario(), DEADLINE))
        grown = peak_rss(pid) - baseline
    assert statuses == [202] * CLIENTS, statuses
    # Bodies being read within the input budget and the one it lets through, one read
    # each; the one being decoded and handed to its agent.
    bound = COPIES * (MAX_BUFFERED_INPUT + 2 * DEFAULT_MAX_MESSAGE_SIZE) + CLIENTS * 256 * 1024
    print(f"POSTs: grew {grown / MiB:.0f} MiB, bound {bound / MiB:.0f} MiB")
    assert grown <= bound, (grown / MiB, bound / MiB)


def test_an_unread_stream_holds_its_agent_back_within_bounds() -> None:
    requests = 100
    size = 2 * MiB
    with server_process("acp", "budget") as (port, pid):
        url = f"http://127.0.0.1:{port}/acp"

        async def scenario() -> list[int]:
            limits = httpx.Limits(max_connections=requests + 4)
            async with httpx.AsyncClient(timeout=DEADLINE, limits=limits) as http:
                scope = await _open_connection(http, url)
                # The connection's stream, opened and never read.
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                head = [
                    f"GET /acp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n",
                    "Accept: text/event-stream\r\n",
                    *(f"{name}: {value}\r\n" for name, value in scope.items()),
                    "\r\n",
                ]
                writer.write("".join(head).encode())
                await writer.drain()
                headers = {"Content-Type": "application/json", **scope}
                # Requests whose ids are 2 MiB: each answer carries its id back.
                posts = [
                    asyncio.ensure_future(
                        http.post(
                            url,
                            content=json.dumps(
                                {"jsonrpc": "2.0", "id": f"{n}-" + "i" * size, "method": "x/none"}
                            ),
                            headers=headers,
                        )
                    )
                    for n in range(requests)
                ]
                # Those that wait for the agent are bounded (INBOUND_BYTES queued, and
                # INBOUND_WAITING waiting for room, each with one larger message; a few in
                # the agent's hands): every other one is answered (202 taken, 503 refused)
                # without the stream being read.
                waiting_at_most = (INBOUND_BYTES + INBOUND_WAITING) // size + 2 + 4
                while sum(post.done() for post in posts) < requests - waiting_at_most:
                    await asyncio.wait(posts, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
                statuses = [post.result().status_code for post in posts if post.done()]
                for post in posts:
                    post.cancel()
                writer.transport.abort()
                return statuses

        baseline = peak_rss(pid)
        statuses = asyncio.run(asyncio.wait_for(scenario(), DEADLINE))
        grown = peak_rss(pid) - baseline
    assert set(statuses) <= {202, 503}, statuses
    assert 503 in statuses, statuses
    # The stream's mailbox, the connection's inbound queue and what waits for it, each with
    # the one larger message they let through; bodies being read within the input budget.
    held = MAILBOX_BYTES + INBOUND_BYTES + INBOUND_WAITING + 3 * size
    bound = COPIES * (held + MAX_BUFFERED_INPUT + size)
    print(f"unread stream: grew {grown / MiB:.0f} MiB, bound {bound / MiB:.0f} MiB; {statuses}")
    assert grown <= bound, (grown / MiB, bound / MiB)
