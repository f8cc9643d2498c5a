"""Remote ACP: one `/acp` endpoint, streamable HTTP and WebSocket (docs/acp-remote.md).

`create_asgi_app(agent_factory)` is an ASGI application (Starlette) serving a fresh agent,
`agent_factory()`, to each connection; with `v2_factory` (an `idlc_acp.AgentV2`'s) too, or
alone, each connection's first valid `initialize` chooses ACP v1 or the v2 draft, by
`idlc_acp.router`'s rules (`idlc_acp.web.agents`):

- `POST` sends one JSON-RPC message. `initialize` without `Acp-Connection-Id` opens a
  connection and answers 200 with the agent's answer as the body and the connection's id
  in `Acp-Connection-Id`; every other message answers 202 at once, and what the agent says
  back travels on the GET streams.
- `GET` with `Accept: text/event-stream` opens an SSE stream: connection-scoped with
  `Acp-Connection-Id` alone, session-scoped with `Acp-Session-Id` too.
- `DELETE` closes the connection; `GET` with `Upgrade: websocket` is a WebSocket, one
  message per text frame, on the runtime's channel (`idlc_runtime.transports.channel`).

Every request passes the runtime's admission (`idlc_runtime.web.admission`: browser origins
allow-listed, then the authentication hook) before anything else. Every refusal is an HTTP
status with a JSON-RPC error object as its body, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Collection
from typing import Any, Final

import msgspec
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from idlc_acp.web.agents import AgentFactories, AgentFactory, ConnectionAgents, Served
from idlc_acp.web.connection import AgentBehind, HttpConnection, session_of
from idlc_acp.web.mailbox import Mailbox
from idlc_runtime import PeerOptions
from idlc_runtime.transports.budget import InputBudget
from idlc_runtime.transports.endpoints import DEFAULT_MAX_BUFFERED_INPUT
from idlc_runtime.web.admission import Authenticate, Refused, admit, served_hosts, server_host
from idlc_runtime.web.server import refuse_websocket, websocket_channel

log = logging.getLogger("idlc_acp")

CONNECTION_HEADER: Final = "acp-connection-id"
SESSION_HEADER: Final = "acp-session-id"
#: The connection's secret, for clients that send it as a header rather than its cookie.
SECRET_HEADER: Final = "acp-connection-secret"
#: The cookie carrying a connection's secret is this prefix and the connection's id.
SECRET_COOKIE_PREFIX: Final = "acp-secret-"
#: The close code of a WebSocket whose agent could not be made (RFC 6455: internal error).
INTERNAL_ERROR: Final = 1011
#: Seconds a POST body may take to arrive whole (past it: 408).
DEFAULT_BODY_TIMEOUT: Final = 30.0
#: JSON-RPC error codes of the refusals (docs/wire.md §8).
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600

_decode = msgspec.json.decode


def _error(
    status: int, code: int, message: str, request_id: Any = None, **headers: str
) -> Response:
    """An HTTP refusal whose body is a JSON-RPC error response (clients show its message)."""
    return _error_with_data(status, code, message, None, request_id, headers)


def _error_with_data(
    status: int,
    code: int,
    message: str,
    data: dict[str, Any] | None,
    request_id: Any = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """`_error` with the error's `data` member."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body = msgspec.json.encode({"jsonrpc": "2.0", "id": request_id, "error": error})
    return Response(body, status, headers=headers or None, media_type="application/json")


class AcpServer:
    """The ASGI application of `create_asgi_app`; `connections` tells what is open."""

    def __init__(
        self,
        agent_factory: AgentFactory | None,
        *,
        v2_factory: AgentFactory | None = None,
        path: str = "/acp",
        options: PeerOptions | None = None,
        allowed_origins: Collection[str] = (),
        authenticate: Authenticate | None = None,
        max_connections: int | None = None,
        idle_timeout: float | None = 300.0,
        sse_ping_interval: float | None = 15.0,
        max_buffered_input: int = DEFAULT_MAX_BUFFERED_INPUT,
        allowed_hosts: Collection[str] | None = None,
        body_timeout: float | None = DEFAULT_BODY_TIMEOUT,
    ) -> None:
        if max_connections is not None and max_connections <= 0:
            raise ValueError(f"max_connections must be positive, not {max_connections}")
        self._factories = AgentFactories(agent_factory, v2_factory)
        self._options = options
        self._max_message_size = (options or PeerOptions()).max_message_size
        self._allowed_origins = frozenset(allowed_origins)
        self._authenticate = authenticate
        self._allowed_hosts = None if allowed_hosts is None else tuple(allowed_hosts)
        self._path = path
        self._body_timeout = body_timeout
        self._max_connections = max_connections
        self._idle_timeout = idle_timeout
        self._ping = sse_ping_interval
        self.input_budget = InputBudget(max_buffered_input)
        #: Streamable-HTTP connections by `Acp-Connection-Id`.
        self.http_connections: dict[str, HttpConnection] = {}
        #: WebSocket connections open now (each a `Peer`, or a `RoutedConnection` when
        #: v2 is served).
        self.websockets: set[Served] = set()
        #: WebSockets admitted and not yet ended (counted before they are accepted).
        self._websockets_admitted = 0
        #: Set once the ASGI server has started the application (its lifespan).
        self.started = asyncio.Event()
        self._app = Starlette(
            routes=[
                Route(path, self._http, methods=["GET", "POST", "DELETE"]),
                WebSocketRoute(path, self._websocket),
            ],
            lifespan=self._lifespan,
        )

    @property
    def connections(self) -> int:
        """Connections open now, over both transports."""
        return len(self.http_connections) + self._websockets_admitted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.started.set()
        yield
        await self.close_all()

    async def close_all(self) -> None:
        """Close every connection (the ASGI server's shutdown does it too)."""
        await asyncio.gather(
            *(connection.close() for connection in list(self.http_connections.values())),
            *(served.close() for served in list(self.websockets)),
        )

    def _make_agents(self) -> ConnectionAgents:
        return self._factories.make(self._options)

    def _full(self) -> None:
        if self._max_connections is not None and self.connections >= self._max_connections:
            raise Refused(503, "too many connections", {"Retry-After": "1"})

    # ------------------------------------------------------------------ HTTP

    async def _admit(self, headers: Any, scope: Scope) -> None:
        hosts = served_hosts(self._allowed_hosts, server_host(scope))
        await admit(headers, self._allowed_origins, self._authenticate, hosts)

    async def _http(self, request: Request) -> Response:
        try:
            await self._admit(request.headers, request.scope)
        except Refused as refusal:
            log.info("ACP HTTP request refused (%d): %s", refusal.status, refusal.reason)
            return _error(refusal.status, INVALID_REQUEST, refusal.reason, **refusal.headers)
        if request.method == "POST":
            return await self._post(request)
        connection_id = request.headers.get(CONNECTION_HEADER)
        if connection_id is None:
            return _error(400, INVALID_REQUEST, "the Acp-Connection-Id header is missing")
        connection = self._connection_of(request, connection_id)
        if isinstance(connection, Response):
            return connection
        if request.method == "DELETE":
            await connection.close()
            response = Response(status_code=202)
            # The secret is of no use any more: the client's jar can forget it.
            response.delete_cookie(SECRET_COOKIE_PREFIX + connection.id, path=self._path)
            return response
        return self._stream(request, connection)

    def _connection_of(
        self, request: Request, connection_id: str, request_id: Any = None
    ) -> HttpConnection | Response:
        """The open connection `connection_id`, if this request comes from its client (it
        carries the connection's secret); else the refusal to answer."""
        connection = self.http_connections.get(connection_id)
        if connection is None or connection.closed:
            return _error(404, INVALID_REQUEST, f"no connection {connection_id!r}", request_id)
        given = request.headers.get(SECRET_HEADER) or request.cookies.get(
            SECRET_COOKIE_PREFIX + connection_id
        )
        if given is None or not hmac.compare_digest(given.encode(), connection.secret.encode()):
            log.info("ACP HTTP request for connection %s without its secret", connection_id)
            return _error(
                403,
                INVALID_REQUEST,
                f"connection {connection_id!r} belongs to another client: this request does "
                "not carry its secret (the cookie or Acp-Connection-Secret header set by the "
                "answer to initialize)",
                request_id,
            )
        return connection

    async def _post(self, request: Request) -> Response:
        media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media_type != "application/json":
            return _error(415, INVALID_REQUEST, "the body must be application/json")
        # The connection is checked before the body is read: a request for a connection
        # it may not use costs no memory.
        connection_id = request.headers.get(CONNECTION_HEADER)
        connection: HttpConnection | None = None
        if connection_id is not None:
            found = self._connection_of(request, connection_id)
            if isinstance(found, Response):
                return found
            connection = found
        # The body counts in the server's input budget from its first byte until the agent's
        # reader has taken it (or it is refused): bodies read together wait while the
        # budget is spent, and so do bodies queued for agents that are behind.
        held = _HeldBody(self.input_budget)
        try:
            return await self._read_and_deliver(request, connection, held)
        finally:
            held.release()

    async def _read_and_deliver(
        self, request: Request, connection: HttpConnection | None, held: _HeldBody
    ) -> Response:
        try:
            # A body trickled a byte at a time must not hold its connection for ever.
            async with asyncio.timeout(self._body_timeout):
                body = await self._read_body(request, held)
        except ClientDisconnect:
            return Response(status_code=400)
        except TimeoutError:
            return _error(
                408,
                INVALID_REQUEST,
                f"the body did not arrive within {self._body_timeout} s",
                Connection="close",
            )
        if isinstance(body, int):
            limit = self._max_message_size
            # The data of an oversized message on every transport (docs/wire.md §8).
            return _error_with_data(
                413,
                INVALID_REQUEST,
                f"the body is over {limit} bytes",
                {"size": body, "limit": limit},
                headers={"Connection": "close"},
            )
        held.settle(len(body))
        try:
            message = _head_of(body)
        except msgspec.ValidationError:
            try:
                # Not an object: is it JSON at all? (checked, not built)
                _raw_json.decode(body)
            except msgspec.DecodeError as error:
                return _error(400, PARSE_ERROR, f"Parse error: {error}")
            if body.lstrip()[:1] == b"[":
                return _error(501, INVALID_REQUEST, "ACP has no batch requests")
            return _error(400, INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message")
        except msgspec.DecodeError as error:
            return _error(400, PARSE_ERROR, f"Parse error: {error}")
        if message.get("jsonrpc") != "2.0":
            return _error(400, INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message")
        text = body.decode("utf-8", "surrogateescape")
        del body  # while it waits for its agent, the text is the one copy held
        if connection is None:
            return await self._open(request, text, message)
        if connection.closed:
            return _error(
                404, INVALID_REQUEST, f"no connection {connection.id!r}", message.get("id")
            )
        session_id = request.headers.get(SESSION_HEADER)
        in_params = session_of(message.get("params"))
        if session_id is not None and in_params is not None and session_id != in_params:
            return _error(
                400,
                INVALID_REQUEST,
                f"Acp-Session-Id {session_id!r} is not the message's sessionId {in_params!r}",
                message.get("id"),
            )
        connection.busy += 1
        try:
            await connection.deliver(text, message, session_id)
        except ConnectionResetError as error:
            return _error(404, INVALID_REQUEST, str(error), message.get("id"))
        except AgentBehind as error:
            return _error(
                503, INVALID_REQUEST, str(error), message.get("id"), **{"Retry-After": "1"}
            )
        finally:
            connection.busy -= 1
            connection.touch()
        return Response(status_code=202)

    async def _read_body(self, request: Request, held: _HeldBody) -> bytearray | int:
        """The body, or once it is over the message size limit the size known then (the
        declared length, or what was read), the rest not read.
        Reading waits while the server's input budget is spent (backpressure)."""
        limit = self._max_message_size
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            return int(declared)
        # One buffer grown in place, not a list of the server's chunks joined at the end:
        # no second copy while joining, and a large buffer is its own mapping, returned to
        # the system when freed (thousands of 64 KiB chunks fragment the heap instead).
        body = bytearray()
        async for chunk in request.stream():
            if len(body) + len(chunk) > limit:
                return len(body) + len(chunk)
            body += chunk
            await held.hold(len(body))
        return body

    async def _open(self, request: Request, text: str, message: dict[str, Any]) -> Response:
        """`initialize` without a connection: open one, answer 200 with the agent's answer."""
        request_id = message.get("id")
        if message.get("method") != "initialize" or "id" not in message:
            return _error(
                400,
                INVALID_REQUEST,
                "the Acp-Connection-Id header is missing: a connection starts with initialize",
                request_id,
            )
        try:
            self._full()
        except Refused as refusal:
            return _error(
                refusal.status, INVALID_REQUEST, refusal.reason, request_id, **refusal.headers
            )
        connection_id = str(uuid.uuid4())
        try:
            agents = self._make_agents()
        except Exception:
            log.exception("the agent factory failed")
            return _error(500, -32603, "Internal error: the agent could not be made", request_id)
        connection = HttpConnection(
            connection_id,
            secrets.token_urlsafe(32),
            agents,
            options=self._options,
            budget=self.input_budget,
            idle_timeout=self._idle_timeout,
            on_closed=self._forget,
        )
        self.http_connections[connection_id] = connection
        connection.busy += 1
        try:
            answer = await connection.initialize(text, request_id)
        except ConnectionResetError as error:
            return _error(500, -32603, f"Internal error: {error}", request_id)
        finally:
            connection.busy -= 1
            connection.touch()
        if "error" in _decode(answer):
            # A refused initialize leaves nothing to continue: the connection ends now
            # rather than at its idle timeout. The client still gets the agent's answer.
            await connection.close()
        response = Response(
            answer,
            200,
            headers={"Acp-Connection-Id": connection_id},
            media_type="application/json",
        )
        if not connection.closed:
            # Every later request of this connection must carry it: the connection id alone
            # (in logs, behind a proxy shared by several clients) does not let anyone in.
            response.headers["Acp-Connection-Secret"] = connection.secret
            response.set_cookie(
                SECRET_COOKIE_PREFIX + connection_id,
                connection.secret,
                path=self._path,
                httponly=True,
                samesite="strict",
                secure=request.url.scheme == "https",
            )
        return response

    def _forget(self, connection: HttpConnection) -> None:
        if self.http_connections.get(connection.id) is connection:
            del self.http_connections[connection.id]

    def _stream(self, request: Request, connection: HttpConnection) -> Response:
        """A GET: the connection's SSE stream, or a session's with `Acp-Session-Id`."""
        if "text/event-stream" not in request.headers.get("accept", ""):
            return _error(406, INVALID_REQUEST, "a GET stream must accept text/event-stream")
        session_id = request.headers.get(SESSION_HEADER)
        box = connection.main if session_id is None else connection.session_mailbox(session_id)
        if box.attached:
            scope = "the connection" if session_id is None else f"session {session_id!r}"
            return _error(409, INVALID_REQUEST, f"{scope} already has a stream")
        box.attached = True
        connection.busy += 1
        return _EventStream(
            self._events(box),
            release=lambda: connection.detach(session_id, box),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _events(self, box: Mailbox) -> AsyncGenerator[str, None]:
        """The SSE events of one stream: each message is one `data:` line (JSON has none)."""
        # A comment at once: the client knows the stream is open before any message.
        yield ": open\n\n"
        while True:
            if self._ping is None:
                text = await box.get()
            else:
                try:
                    text = await asyncio.wait_for(box.get(), self._ping)
                except TimeoutError:
                    # Keeps proxies from closing a quiet stream (docs/acp-remote.md).
                    yield ": ping\n\n"
                    continue
            if text is None:
                return
            yield f"data: {text}\n\n"

    # ------------------------------------------------------------------ WebSocket

    async def _websocket(self, websocket: WebSocket) -> None:
        try:
            await self._admit(websocket.headers, websocket.scope)
            self._full()
        except Refused as refusal:
            log.info("ACP WebSocket refused (%d): %s", refusal.status, refusal.reason)
            await refuse_websocket(websocket, refusal)
            return
        try:
            agents = self._make_agents()
        except Exception:
            log.exception("the agent factory failed; WebSocket refused")
            await refuse_websocket(websocket, Refused(500, "the agent could not be made"))
            return
        # Counted before accepting, so that upgrades arriving together respect the bound.
        self._websockets_admitted += 1
        try:
            await websocket.accept(headers=[(b"acp-connection-id", str(uuid.uuid4()).encode())])
            source, writer = websocket_channel(websocket, self._max_message_size, self.input_budget)
            served = agents.start(source, writer)
            self.websockets.add(served)
            try:
                await served.wait_closed()
            finally:
                self.websockets.discard(served)
                await served.close()
        finally:
            self._websockets_admitted -= 1


class _Head(msgspec.Struct):
    """What routing a POST needs of its message; `params` is left undecoded (a slice of
    the body), so that a large message is not held as objects besides its text."""

    jsonrpc: Any = None
    id: Any = msgspec.UNSET
    method: Any = msgspec.UNSET
    params: msgspec.Raw = msgspec.Raw()


class _SessionParams(msgspec.Struct):
    sessionId: Any = None  # noqa: N815 - the JSON member's name


_head_decoder = msgspec.json.Decoder(_Head)
_raw_json = msgspec.json.Decoder(msgspec.Raw)
_session_decoder = msgspec.json.Decoder(_SessionParams)


def _head_of(body: bytes | bytearray) -> dict[str, Any]:
    """The message's `jsonrpc`, `id` and `method` members (those it has), and its
    `params.sessionId` as `params` (an object) when it has a string one. Raises
    `msgspec.ValidationError` for JSON that is not an object, `msgspec.DecodeError` for a
    body that is not JSON."""
    head = _head_decoder.decode(body)
    message: dict[str, Any] = {"jsonrpc": head.jsonrpc}
    if head.id is not msgspec.UNSET:
        message["id"] = head.id
    if head.method is not msgspec.UNSET:
        message["method"] = head.method
    # (A Raw value starts at its first byte: no copy of a large params to look at it.)
    if bytes(memoryview(head.params)[:1]) == b"{":
        session = _session_decoder.decode(head.params).sessionId
        if isinstance(session, str):
            message["params"] = {"sessionId": session}
    return message


class _HeldBody:
    """A POST body being read, counted in the server's `InputBudget` with the
    frames its connections hold back: bodies arriving together wait (are not read further)
    while the budget is spent, rather than each taking up to `max_message_size`."""

    def __init__(self, budget: InputBudget) -> None:
        self._budget = budget
        self._go = asyncio.Event()
        self._go.set()

    def budget_pause(self) -> None:
        self._go.clear()

    def budget_resume(self) -> None:
        self._go.set()

    async def hold(self, size: int) -> None:
        """The body read so far is `size` bytes; wait while the budget says so."""
        self._budget.update(self, size, completed=False)
        await self._go.wait()

    def settle(self, size: int) -> None:
        """The body is read whole (`size` bytes): it counts until released, reading no more."""
        self._budget.settle(self, size)

    def release(self) -> None:
        self._budget.release(self)


class _EventStream(StreamingResponse):
    """An SSE response that releases its stream when it ends, however it ends.

    The stream is sent, and the client's disconnect watched, by this response itself, under
    every ASGI server alike: a client that goes away ends the sending at once, and then the
    events generator is closed and the stream released (`release`) here, not in the
    generator's `finally`: a generator left suspended at a `yield` (a disconnect while a
    chunk was being sent) would run that only when garbage collected.

    A stream lasts as long as its connection, so an ASGI server shutting down finds it still
    open: uvicorn waits `--timeout-graceful-shutdown` seconds, then cancels the task sending
    it (docs/acp-remote.md, "uvicorn"). That is the stream's end, not a failure to report.
    """

    body_iterator: AsyncGenerator[str, None]

    def __init__(
        self,
        content: AsyncGenerator[str, None],
        *,
        release: Callable[[], None],
        media_type: str,
        headers: dict[str, str],
    ) -> None:
        super().__init__(content, media_type=media_type, headers=headers)
        self._release: Callable[[], None] | None = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        sending = asyncio.ensure_future(self.stream_response(send))
        watching = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait([sending, watching], return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
            sending.cancel()
            await asyncio.wait([sending])
            # End the response properly: the client sees the stream close, not a reset.
            with contextlib.suppress(Exception):
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            for task in (sending, watching):
                task.cancel()
            await asyncio.wait([sending, watching])
            for task in (sending, watching):
                if not task.cancelled() and task.exception() is not None:
                    # A send to a client that has gone: the stream's end, nothing more.
                    log.debug("SSE stream ended: %r", task.exception())
            with contextlib.suppress(Exception):
                await self.body_iterator.aclose()
            release, self._release = self._release, None
            if release is not None:
                release()


async def _disconnected(receive: Receive) -> None:
    """Return once the client of an HTTP request has gone (ASGI `http.disconnect`)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def create_asgi_app(
    agent_factory: AgentFactory | None,
    *,
    v2_factory: AgentFactory | None = None,
    path: str = "/acp",
    options: PeerOptions | None = None,
    allowed_origins: Collection[str] = (),
    authenticate: Authenticate | None = None,
    max_connections: int | None = None,
    idle_timeout: float | None = 300.0,
    sse_ping_interval: float | None = 15.0,
    max_buffered_input: int = DEFAULT_MAX_BUFFERED_INPUT,
    allowed_hosts: Collection[str] | None = None,
    body_timeout: float | None = DEFAULT_BODY_TIMEOUT,
) -> AcpServer:
    """An ASGI application serving `agent_factory()` (one agent per connection) at `path`,
    over streamable HTTP and WebSocket (docs/acp-remote.md).

    With `v2_factory` (making an `idlc_acp.AgentV2`), each connection serves ACP v1 and
    the v2 draft, its first valid `initialize` choosing as `idlc_acp.router` does on
    stdio; `agent_factory` may then be None for v2 alone. Every limit below applies to
    either version alike.

    `allowed_origins` lists the browser origins admitted (requests without `Origin` come
    from programs and pass); `authenticate` sees every request's headers first (e.g.
    `idlc_runtime.web.bearer_token_from_env("ACP_TOKEN")`). `max_connections` bounds the
    connections open at once, over both transports (past it: 503); `idle_timeout` closes
    a streamable-HTTP connection that has had no request and no open stream for that many
    seconds; `options.max_message_size` bounds a POST body (past it: 413) and a frame.
    `allowed_hosts` are the `Host` names served (default: the loopback names when reached on
    a loopback address; `"*"` any). Each streamable-HTTP connection has a secret, set as an
    HttpOnly cookie (and the `Acp-Connection-Secret` header) by the answer to `initialize`,
    which every later request of the connection must carry. A POST body that has not
    arrived whole within `body_timeout` seconds is refused 408.
    """
    return AcpServer(
        agent_factory,
        v2_factory=v2_factory,
        path=path,
        options=options,
        allowed_origins=allowed_origins,
        authenticate=authenticate,
        max_connections=max_connections,
        idle_timeout=idle_timeout,
        sse_ping_interval=sse_ping_interval,
        max_buffered_input=max_buffered_input,
        allowed_hosts=allowed_hosts,
        body_timeout=body_timeout,
    )
