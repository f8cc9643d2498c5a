"""An ACP client over streamable HTTP: `connect_http(url, client)` gives an `AgentConnection`.

The client's peer runs on a message channel (`idlc_runtime.transports.channel`) whose frames travel as
docs/acp-remote.md, "Streamable HTTP" says: each message it sends is one POST (the first,
`initialize`, answered in the POST's body with the connection's `Acp-Connection-Id`);
what the agent sends arrives on SSE streams, the connection's and one per session, opened
as sessions appear (an answer carrying a `sessionId`, a message naming one). Leaving the
block sends DELETE. Cookies persist in a `CookieJar` shared with httpx.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator, Mapping
from http.cookiejar import CookieJar
from typing import TYPE_CHECKING, Any, Final

import httpx
import msgspec

from idlc_acp.client import AgentConnection, client_options
from idlc_acp.web.connection import id_key, session_of
from idlc_runtime import ConnectionClosed, Peer, PeerOptions, UndecodableNotificationHook
from idlc_runtime.transports.channel import ChannelSource, ChannelWriter, Frame
from idlc_runtime.web.admission import Refused

if TYPE_CHECKING:
    from idlc_acp.roles import ClientImplementation

log = logging.getLogger("idlc_acp")

#: Statuses after which the connection is unusable (as the official TypeScript client has it).
CONNECTION_FAILURES: Final = frozenset({401, 403, 404, 410})
#: Messages from the SSE streams not yet taken by the peer; past this, streams are not read.
INBOUND_QUEUE: Final = 16


class _Message(msgspec.Struct):
    id: Any = None
    method: Any = None
    params: Any = None
    result: Any = None


_message = msgspec.json.Decoder(_Message)


class HttpChannel:
    """The client side of one streamable-HTTP connection, as a message channel."""

    def __init__(self, url: str, http: httpx.AsyncClient, max_message_size: int) -> None:
        self._url = url
        self._http = http
        self._max_message_size = max_message_size
        self._inbound: asyncio.Queue[str | BaseException | None] = asyncio.Queue(INBOUND_QUEUE)
        self.connection_id: str | None = None
        self._streams: dict[str | None, asyncio.Task[None]] = {}
        self._ready: dict[str | None, asyncio.Future[None]] = {}
        #: Agent request id (id_key) → the session stream it came on (its answer's session).
        self._answer_session: dict[str, str] = {}
        #: Our session/* requests not answered yet (id_key): the answers that may open streams.
        self._asked: dict[str, bool] = {}
        self._closed = False
        #: Why the server turned `initialize` away (401, 403, 503), if it did.
        self.refusal: Refused | None = None

    # ------------------------------------------------------------ channel

    async def receive(self) -> Frame | None:
        item = await self._inbound.get()
        if isinstance(item, BaseException):
            raise item
        return item

    async def send(self, text: str) -> None:
        if self._closed:
            raise ConnectionResetError("the connection is closed")
        try:
            await self._send(text)
        except Refused as refusal:
            # `connect_http` raises it where the user's `initialize` fails; the input just
            # ends, which fails that call.
            self.refusal = refusal
            await self._fail(None)
            raise
        except Exception as error:
            # The peer's calls waiting for answers learn it from the input's end.
            await self._fail(error)
            raise

    async def _send(self, text: str) -> None:
        message = _message.decode(text)
        if self.connection_id is None:
            await self._initialize(text, message)
            return
        session_id = session_of(message.params) if message.method is not None else None
        if message.method is not None and message.id is not None:
            key = id_key(message.id)
            if key is not None and str(message.method).startswith("session/"):
                # Its answer may name a new session (session/new, fork, resume …).
                self._asked[key] = True
        if message.method is None:
            key = id_key(message.id)
            session_id = self._answer_session.pop(key, None) if key is not None else None
        elif session_id is not None:
            try:
                await self._open_stream(session_id)
            except ConnectionResetError as error:
                # Its answers come on the connection's stream instead.
                log.info("no stream for session %s: %s", session_id, error)
        headers = {"Acp-Connection-Id": self.connection_id}
        if session_id is not None:
            headers["Acp-Session-Id"] = session_id
        response = await self._post(text, headers)
        if response.status_code == 202 or response.is_success:
            return
        problem = _problem("POST", response)
        if response.status_code in CONNECTION_FAILURES or message.method is None:
            await self._fail(ConnectionResetError(problem))
            return
        if message.id is not None:
            # Only this request fails; the connection goes on.
            await self._inbound.put(
                msgspec.json.encode(
                    {
                        "jsonrpc": "2.0",
                        "id": message.id,
                        "error": {"code": -32603, "message": problem},
                    }
                ).decode()
            )

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for task in self._streams.values():
            task.cancel()
        if self.connection_id is not None:
            with contextlib.suppress(httpx.HTTPError):
                await self._http.delete(
                    self._url, headers={"Acp-Connection-Id": self.connection_id}
                )
        with contextlib.suppress(asyncio.QueueFull):
            self._inbound.put_nowait(None)

    # ------------------------------------------------------------ steps

    async def _post(self, text: str, headers: dict[str, str]) -> httpx.Response:
        try:
            return await self._http.post(
                self._url,
                content=text.encode(),
                headers={"Content-Type": "application/json", **headers},
            )
        except httpx.HTTPError as error:
            await self._fail(ConnectionResetError(f"POST {self._url} failed: {error}"))
            raise ConnectionResetError(str(error)) from error

    async def _initialize(self, text: str, message: _Message) -> None:
        if message.method != "initialize":
            raise ConnectionResetError("the first message over HTTP must be initialize")
        response = await self._post(text, {})
        if response.status_code in (401, 403, 503):
            raise Refused(response.status_code, _problem("initialize", response))
        connection_id = response.headers.get("acp-connection-id")
        if response.status_code != 200 or connection_id is None:
            raise ConnectionResetError(_problem("initialize", response))
        if _is_error(response.content):
            # A refused initialize ends its connection on the server (docs/acp-remote.md):
            # its error is the answer, and the next initialize (a v2 client falling back
            # to v1, for one) opens a new connection.
            await self._inbound.put(response.text)
            return
        self.connection_id = connection_id
        self._open_stream(None)
        await self._ready[None]
        await self._inbound.put(response.text)

    def _open_stream(self, session_id: str | None) -> asyncio.Future[None]:
        """The SSE stream of `session_id` (None: the connection's); ready once it is open."""
        ready = self._ready.get(session_id)
        task = self._streams.get(session_id)
        if ready is not None and task is not None and not task.done():
            return ready
        ready = self._ready[session_id] = asyncio.get_running_loop().create_future()
        self._streams[session_id] = asyncio.get_running_loop().create_task(
            self._read_stream(session_id, ready), name="idlc-acp-sse"
        )
        return ready

    async def _read_stream(self, session_id: str | None, ready: asyncio.Future[None]) -> None:
        assert self.connection_id is not None
        headers = {"Accept": "text/event-stream", "Acp-Connection-Id": self.connection_id}
        if session_id is not None:
            headers["Acp-Session-Id"] = session_id
        try:
            async with self._http.stream("GET", self._url, headers=headers) as response:
                if response.status_code != 200:
                    await response.aread()
                    raise ConnectionResetError(_problem("GET", response))
                if not ready.done():
                    ready.set_result(None)
                data: list[str] = []
                size = 0
                async for line in _sse_lines(response, self._max_message_size):
                    if line.startswith("data:"):
                        value = line[5:].removeprefix(" ")
                        size += len(value)
                        if size > self._max_message_size:
                            raise ConnectionResetError("an SSE event is over the size limit")
                        data.append(value)
                    elif not line and data:
                        await self._take("\n".join(data), session_id)
                        data, size = [], 0
        except asyncio.CancelledError:
            raise
        except (httpx.HTTPError, ConnectionResetError) as error:
            if not ready.done():
                ready.set_exception(ConnectionResetError(str(error)))
            if session_id is None:
                await self._fail(ConnectionResetError(f"the connection's stream failed: {error}"))
            return
        if session_id is None:
            # The connection's stream ended: the server closed the connection.
            await self._fail(None)

    async def _take(self, text: str, stream_session: str | None) -> None:
        try:
            message = _message.decode(text)
        except msgspec.DecodeError:
            await self._inbound.put(text)  # the peer answers what is unreadable
            return
        if message.method is not None and message.id is not None and stream_session is not None:
            key = id_key(message.id)
            if key is not None:
                self._answer_session[key] = stream_session
        if message.method is None:
            key = id_key(message.id)
            asked = key is not None and self._asked.pop(key, False)
        if message.method is None and isinstance(message.result, dict):
            # A stream for a new session only when the answer is to a request of ours: an
            # agent's unsolicited "answers" must not make us open streams without end.
            new_session = message.result.get("sessionId")
            if asked and isinstance(new_session, str) and new_session not in self._streams:
                self._open_stream(new_session)
        await self._inbound.put(text)

    async def _fail(self, error: BaseException | None) -> None:
        if self._closed:
            return
        self._closed = True
        current = asyncio.current_task()
        for task in self._streams.values():
            if task is not current:
                task.cancel()
        # The connection is over: what the peer has not taken yet cannot be answered.
        while self._inbound.full():
            self._inbound.get_nowait()
        self._inbound.put_nowait(error)


async def _sse_lines(response: httpx.Response, max_message_size: int) -> AsyncIterator[str]:
    """The lines of an SSE body, each bounded before it is complete: a line longer than a
    message may be (with its `data: ` field name) fails the stream once that much has
    arrived, however long the rest would be."""
    limit = max_message_size + len("data: ") + 1
    pending = bytearray()
    async for chunk in response.aiter_bytes():
        pending += chunk
        while True:
            end = _line_end(pending)
            if end is None:
                break
            line, stop = end
            yield pending[:line].decode("utf-8", "replace")
            del pending[:stop]
        if len(pending) > limit:
            raise ConnectionResetError(f"an SSE line is over {limit} bytes")
    if pending:
        yield pending.decode("utf-8", "replace")


def _line_end(buffer: bytearray) -> tuple[int, int] | None:
    """(where the first line ends, where the next begins): SSE ends lines with CRLF, LF or CR."""
    newline = buffer.find(b"\n")
    carriage = buffer.find(b"\r")
    if carriage != -1 and (newline == -1 or carriage < newline):
        if carriage + 1 == len(buffer):
            return None  # a CR at the end: an LF may follow in the next chunk
        return carriage, carriage + (2 if buffer[carriage + 1 : carriage + 2] == b"\n" else 1)
    if newline != -1:
        return newline, newline + 1
    return None


class _Answer(msgspec.Struct):
    error: Any = None


def _is_error(body: bytes) -> bool:
    """Whether `body` is a JSON-RPC error response."""
    try:
        return msgspec.json.decode(body, type=_Answer).error is not None
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False


def _problem(what: str, response: httpx.Response) -> str:
    body = response.text.strip()[:500]
    try:
        detail = msgspec.json.decode(body)["error"]["message"]
    except Exception:
        detail = body
    return f"{what} answered {response.status_code}: {detail or response.reason_phrase}"


@contextlib.asynccontextmanager
async def connect_http(
    url: str,
    client: ClientImplementation,
    *,
    headers: Mapping[str, str] | None = None,
    cookies: CookieJar | None = None,
    options: PeerOptions | None = None,
    http2: bool = False,
    timeout: float = 10.0,
    on_undecodable_notification: UndecodableNotificationHook | None = None,
) -> AsyncIterator[AgentConnection]:
    """Serve `client` to the remote agent at `url` (`http://…/acp`) and yield its proxy.

    The first call must be `initialize` (an `AgentConnection` sends nothing before it).
    `headers` go with every request; `cookies` is the jar shared with a reconnect (affinity
    behind a load balancer). `http2=True` speaks HTTP/2: negotiated on https, by prior
    knowledge on plain http (hypercorn serves both); otherwise HTTP/1.1, which is what the
    official TypeScript client uses too. `timeout` bounds connecting and each POST, not the
    streams. Raises `idlc_runtime.web.Refused` when `initialize` is turned away.
    """
    jar = cookies if cookies is not None else CookieJar()
    full, controls = client_options(client, options)
    if on_undecodable_notification is not None:
        full = dataclasses.replace(full, on_undecodable_notification=on_undecodable_notification)
    async with httpx.AsyncClient(
        http1=not http2 or url.startswith("https://"),
        http2=http2,
        headers=dict(headers or {}),
        cookies=jar,
        timeout=httpx.Timeout(timeout, read=None),
        # Every session's stream holds a connection over HTTP/1.1.
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=8),
    ) as http:
        channel = HttpChannel(url, http, full.max_message_size)
        writer = ChannelWriter(channel.send, channel.close)
        source = ChannelSource(channel.receive, full.max_message_size, writer=writer)
        peer = Peer(source, writer, client, options=full)
        try:
            async with peer:
                try:
                    yield AgentConnection(peer, controls)
                except ConnectionClosed as closed:
                    if channel.refusal is not None:
                        raise channel.refusal from closed
                    raise
        finally:
            await channel.close()
