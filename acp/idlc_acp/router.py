"""One agent process serving ACP v1 and v2 on one connection, routed by `initialize`.

`ProtocolRouter(v1_agent, v2=v2_agent)` does what the TypeScript SDK's
`AgentProtocolRouter` (2.4.0, `protocol-router.js`) does, on the runtime's line sources:
it reads the connection's lines itself until a valid `initialize` arrives. Before that,
notifications and responses are ignored, other requests get -32600 ("first ACP request must
be initialize"), a JSON array one -32600 with id null, and an `initialize` that fails
(params not an object, no valid `protocolVersion`, an unsupported version, params that do
not decode) an error response; none of these close the connection. The errors are the
TypeScript router's, to the letter (its `RequestError.invalidRequest(data)` puts the reason
in `data`, its message being "Invalid request"). The first valid
`initialize` selects the highest configured version at or below the one asked for (a
v1-only router keeps the legacy fallback to v1 for any version); then a `Peer` serving the
selected version's agent, with that version's options (`agent_options`,
`agent_options_v2`), gets that `initialize` and every later line: it handles any repeated
`initialize` itself, and the connection is never routed again.

Only the first `initialize`'s params are rewritten, and only when the version asked for is
not the one selected: its `protocolVersion` becomes the selected one; a v2-shaped request
sent to a v1-only router becomes a v1 one (`clientCapabilities` from `capabilities`, as the
TypeScript router maps them); a v2 request for a newer version whose `info` is missing or
malformed gets `{"name": "unknown", "version": "unknown"}`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any

import msgspec

from idlc_acp.agent import agent_options
from idlc_acp.protocol import InitializeRequest as InitializeRequestV1
from idlc_acp.roles import AgentImplementation
from idlc_acp.v2 import InitializeRequest as InitializeRequestV2
from idlc_acp.v2_agent import (
    agent_options_v2,
    as_v2_params,
    requested_version,
    valid_implementation,
)
from idlc_runtime import ByteWriter, Peer, PeerOptions, UndecodableNotificationHook
from idlc_runtime.codec.decoders import decoder_for
from idlc_runtime.codec.unreadable import identify, identify_line
from idlc_runtime.transports.contract import LineSink, LineSource
from idlc_runtime.transports.framing import Line, Oversized

PROTOCOL_V1 = 1
PROTOCOL_V2 = 2
_encoder = msgspec.json.Encoder()


class ProtocolRouter:
    """Serves `v1` and/or `v2` (an `idlc_acp.Agent` and an `idlc_acp.AgentV2`), one
    connection at a time chosen by its first valid `initialize`.

    `options` are the peer options of both versions (each gets its own gate, turn control
    and extension fallback over them); `v2_options`, when given, those of v2."""

    def __init__(
        self,
        v1: AgentImplementation | None = None,
        *,
        v2: object | None = None,
        options: PeerOptions | None = None,
        v2_options: PeerOptions | None = None,
    ) -> None:
        if v1 is None and v2 is None:
            raise ValueError("a protocol router serves at least one version")
        self.v1 = v1
        self.v2 = v2
        self._v1_options = agent_options(v1, options) if v1 is not None else None
        self._v2_options = (
            agent_options_v2(v2, v2_options if v2_options is not None else options)
            if v2 is not None
            else None
        )
        base = options if options is not None else PeerOptions()
        self._max_message_size = base.max_message_size

    @property
    def versions(self) -> tuple[int, ...]:
        """The protocol versions configured, lowest first."""
        return tuple(
            version
            for version, agent in ((PROTOCOL_V1, self.v1), (PROTOCOL_V2, self.v2))
            if agent is not None
        )

    def select(self, requested: int) -> int | None:
        """The version a client asking for `requested` gets; None when there is none."""
        if self.v1 is not None and self.v2 is None:
            return PROTOCOL_V1
        if self.v2 is not None and requested >= PROTOCOL_V2:
            return PROTOCOL_V2
        if self.v1 is not None and requested >= PROTOCOL_V1:
            return PROTOCOL_V1
        return None

    def with_undecodable_notification_hook(
        self, hook: UndecodableNotificationHook
    ) -> ProtocolRouter:
        """This router, each version telling `hook` of undecodable notifications."""
        if self._v1_options is not None:
            self._v1_options = dataclasses.replace(
                self._v1_options, on_undecodable_notification=hook
            )
        if self._v2_options is not None:
            self._v2_options = dataclasses.replace(
                self._v2_options, on_undecodable_notification=hook
            )
        return self

    def connect(self, source: LineSource, writer: ByteWriter) -> RoutedConnection:
        """Start routing the connection reading `source` and writing `writer` (taking
        ownership of both): its handle, which remote transports keep as they keep a
        `Peer` (`idlc_acp.web`)."""
        loop = asyncio.get_running_loop()
        routing = _Routing(self, source, writer, loop.create_future())
        source.attach(routing)
        return RoutedConnection(routing, source, writer)

    async def serve(self, source: LineSource, writer: ByteWriter) -> Peer | None:
        """Route and serve the connection reading `source` and writing `writer` until it
        ends; the peer of the selected version (closed by then), or None when the client
        left before a valid `initialize`. Takes ownership of both."""
        connection = self.connect(source, writer)
        try:
            return await connection.wait_closed()
        finally:
            # Cancelled (or failed) while it runs: nothing of the connection stays open.
            await connection.close()

    async def serve_stdio(self) -> None:
        """Serve this process's stdin and stdout until stdin ends."""
        from idlc_runtime import stdio_transport

        async with stdio_transport(self._max_message_size) as (source, writer):
            await self.serve(source, writer)

    # ---------------------------------------------------------------- the first initialize

    def route(self, message: Any) -> tuple[int, Any] | tuple[None, Any]:
        """What a message before initialization does: `(version, initialize)` for a valid
        `initialize` (the message to hand the selected agent), else `(None, error)` with
        the error response to write (None: nothing to answer)."""
        if isinstance(message, list):
            return None, _error(None, -32600, "Invalid request: JSON-RPC batches are not supported")
        if not isinstance(message, dict):
            return None, _first_message_error()
        method = message.get("method")
        has_id = "id" in message
        if isinstance(method, str) and not has_id:
            return None, None  # a notification: ignored
        if method is None and has_id and ("result" in message or "error" in message):
            return None, None  # a response: nothing is waiting for one
        id = message.get("id")
        if not isinstance(method, str) or not _is_id(id):
            return None, _first_message_error()
        if message.get("jsonrpc") != "2.0":
            return None, _error(id, -32600, 'Invalid request: "jsonrpc" must be "2.0"')
        if method != "initialize":
            return None, _error(
                id, -32600, "Invalid request", "first ACP request must be initialize"
            )
        params = message.get("params")
        requested = requested_version(params)
        if requested is None:
            return None, _error(
                id,
                -32602,
                "Invalid params",
                "initialize.protocolVersion must be a valid ACP protocol version",
            )
        assert isinstance(params, dict)
        selected = self.select(requested)
        if selected is None:
            data = {"requested": requested, "supported": list(self.versions)}
            return None, _error(id, -32022, "Unsupported protocol version", data)
        if selected == PROTOCOL_V2 and (id is None or isinstance(id, float)):
            return None, _error(
                None, -32600, "Invalid request: ACP v2 request IDs must be strings or integers"
            )
        try:
            rewritten = _initialize_params(params, requested, selected)
        except (msgspec.ValidationError, msgspec.DecodeError) as error:
            return None, _error(id, -32602, "Invalid params", f"invalid initialize params: {error}")
        return selected, {**message, "params": rewritten}

    def _connect(self, version: int, source: LineSource, writer: ByteWriter) -> Peer:
        agent, options = (
            (self.v2, self._v2_options) if version == PROTOCOL_V2 else (self.v1, self._v1_options)
        )
        peer = Peer(source, writer, agent, options=options)
        peer.start()
        return peer


def _is_id(value: object) -> bool:
    return value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool))


def _error(id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": id, "error": error}


def _first_message_error() -> dict[str, Any]:
    return _error(
        None, -32600, "Invalid request", "first ACP message must be an initialize request"
    )


def _initialize_params(params: dict[str, Any], requested: int, selected: int) -> dict[str, Any]:
    """The params the selected agent gets, checked to decode as its `InitializeRequest`."""
    if selected == PROTOCOL_V1:
        if requested < PROTOCOL_V2:
            rewritten = {**params, "protocolVersion": PROTOCOL_V1}
        else:
            rewritten = _v2_initialize_to_v1(params)
        decoder_for(InitializeRequestV1).decode(_encoder.encode(rewritten))
        return rewritten
    rewritten = as_v2_params(params, requested)
    decoder_for(InitializeRequestV2).decode(_encoder.encode(rewritten))
    return rewritten


def _v2_initialize_to_v1(params: dict[str, Any]) -> dict[str, Any]:
    """A v2-shaped `initialize` as v1 says it, as the TypeScript router maps it."""
    capabilities = params.get("capabilities")
    capabilities = capabilities if isinstance(capabilities, dict) else {}
    auth = capabilities.get("auth")
    auth = auth if isinstance(auth, dict) else {}
    v1_auth: dict[str, Any] = {"terminal": auth.get("terminal") is not None}
    if auth.get("_meta") is not None:
        v1_auth["_meta"] = auth["_meta"]
    v1_capabilities: dict[str, Any] = {
        "fs": {"readTextFile": False, "writeTextFile": False},
        "terminal": False,
        "auth": v1_auth,
    }
    for key in ("elicitation", "_meta"):
        if capabilities.get(key) is not None:
            v1_capabilities[key] = capabilities[key]
    result: dict[str, Any] = {"protocolVersion": PROTOCOL_V1, "clientCapabilities": v1_capabilities}
    if valid_implementation(params.get("info")):
        result["clientInfo"] = params["info"]
    if params.get("_meta") is not None:
        result["_meta"] = params["_meta"]
    return result


class RoutedConnection:
    """One connection of a `ProtocolRouter`, from before its first valid `initialize`
    until it ends: `close()` ends it at any stage (before routing, the source and the
    writer are closed; after, the selected version's peer), `wait_closed()` returns once
    it has ended."""

    def __init__(self, routing: _Routing, source: LineSource, writer: ByteWriter) -> None:
        self._routing = routing
        self._source = source
        self._writer = writer
        self._task = asyncio.get_running_loop().create_task(
            self._serve(), name="idlc-acp-routed-connection"
        )

    @property
    def peer(self) -> Peer | None:
        """The selected version's peer, once the first valid `initialize` has come."""
        routed = self._routing.routed
        if routed.done() and not routed.cancelled() and routed.exception() is None:
            return routed.result()
        return None

    @property
    def closed(self) -> bool:
        return self._task.done()

    async def wait_closed(self) -> Peer | None:
        """Return once the connection has ended: its peer (closed), or None when it ended
        before a valid `initialize`. Raises what stopped the peer from starting."""
        return await asyncio.shield(self._task)

    async def close(self) -> None:
        """End the connection, routed or not, and wait until it has."""
        peer = self.peer
        if peer is not None:
            await peer.close()
        elif not self._routing.routed.done():
            # Nothing routed it: the lines still to come are not read any more.
            self._routing.routed.set_result(None)
        await asyncio.wait([self._task])

    async def _serve(self) -> Peer | None:
        try:
            peer = await self._routing.routed
        except BaseException:
            self._source.close()
            self._writer.close()
            raise
        if peer is None:
            self._source.close()
            self._writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await self._writer.wait_closed()
            return None
        try:
            await peer.wait_closed()
        finally:
            await peer.close()
        return peer


class _Handoff:
    """The line source of the selected version's peer: the `initialize`, then the lines
    after it, then whatever the connection's own source delivers."""

    def __init__(self, source: LineSource, pending: list[Line]) -> None:
        self._source = source
        self._pending = pending
        self._sink: LineSink | None = None
        self._ended = False
        self._error: BaseException | None = None

    def attach(self, sink: LineSink) -> None:
        self._sink = sink
        pending, self._pending = self._pending, []
        if pending:
            sink.lines_received(pending)
        if self._ended:
            sink.input_ended(self._error)

    def lines_received(self, lines: list[Line]) -> None:
        if self._sink is None:
            self._pending.extend(lines)
        else:
            self._sink.lines_received(lines)

    def input_ended(self, error: BaseException | None) -> None:
        if self._sink is None:
            self._ended, self._error = True, error
        else:
            self._sink.input_ended(error)

    def pause_reading(self) -> None:
        self._source.pause_reading()

    def resume_reading(self) -> None:
        self._source.resume_reading()

    def close(self) -> None:
        self._source.close()


class _Routing:
    """The sink of a connection's source until its first valid `initialize`."""

    def __init__(
        self,
        router: ProtocolRouter,
        source: LineSource,
        writer: ByteWriter,
        routed: asyncio.Future[Peer | None],
    ) -> None:
        self._router = router
        self._source = source
        self._writer = writer
        self.routed = routed
        self._handoff: _Handoff | None = None

    def lines_received(self, lines: list[Line]) -> None:
        if self._handoff is not None:
            self._handoff.lines_received(lines)
            return
        if self.routed.done():
            return  # closed before any initialize: nothing reads on
        for index, line in enumerate(lines):
            initialize = self._take(line)
            if initialize is None:
                continue
            version, message = initialize
            self._handoff = handoff = _Handoff(
                self._source, [_encoder.encode(message), *lines[index + 1 :]]
            )
            try:
                peer = self._router._connect(version, handoff, self._writer)
            except BaseException as error:
                if not self.routed.done():
                    self.routed.set_exception(error)
                return
            if not self.routed.done():
                self.routed.set_result(peer)
            return

    def input_ended(self, error: BaseException | None) -> None:
        if self._handoff is not None:
            self._handoff.input_ended(error)
        elif not self.routed.done():
            self.routed.set_result(None)

    def _take(self, line: Line) -> tuple[int, Any] | None:
        # What is wrong with the line itself is answered as the runtime answers it: the id
        # its ends show (docs/wire.md §8), nothing for a response.
        if isinstance(line, Oversized):
            identity = identify(line.prefix, line.suffix)
            if not identity.response:
                limit = self._router._max_message_size
                text = f"Message of {line.size} bytes exceeds the limit of {limit} bytes"
                data = {"size": line.size, "limit": limit}
                self._write(_error(identity.id, -32600, text, data))
            return None
        if not line.strip():
            return None
        try:
            message = msgspec.json.decode(line)
        except (msgspec.DecodeError, RecursionError) as error:
            identity = identify_line(line)
            if not identity.response:
                reason = "JSON nested too deeply" if isinstance(error, RecursionError) else error
                self._write(_error(identity.id, -32700, f"Parse error: {reason}"))
            return None
        version, result = self._router.route(message)
        if version is None:
            if result is not None:
                self._write(result)
            return None
        return version, result

    def _write(self, message: dict[str, Any]) -> None:
        try:
            self._writer.write(_encoder.encode(message) + b"\n")
        except (ConnectionError, OSError):
            pass
