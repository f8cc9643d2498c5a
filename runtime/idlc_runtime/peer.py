"""One JSON-RPC 2.0 connection: it serves objects and calls the other side, both at once.

What it sends and accepts is specified in docs/wire.md.

Each line read is decoded and either resolves a pending call or starts the handler of an
incoming one; every message out is written straight to the transport by whoever produced it.
There is no queue between the wire and the handlers, and a handler that finishes without
waiting never even becomes a task (see `eager`).

Lines come either from a `LineProtocol`, which the transport feeds and which hands them over
as they arrive, in the event loop's callback (what the transports use: no task to wake per
read), or from an `asyncio.StreamReader` read by a task. Both keep the same bound on
handlers, size limit and end-of-input behaviour.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import re
import traceback
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, Protocol

import msgspec
from msgspec import UNSET, Raw

from idlc_runtime.codec import decoder_for
from idlc_runtime.dispatch import InputShape, MethodSpec, implemented_members, spec_of
from idlc_runtime.eager import start_eagerly
from idlc_runtime.errors import ConnectionClosed, ErrorCode, ProtocolError, RpcError, Unsupported
from idlc_runtime.framing import Line, LineProtocol, LineReader, Oversized
from idlc_runtime.interceptors import CallInfo, Interceptor, Proceed, applies_to
from idlc_runtime.unreadable import identify, identify_line
from idlc_runtime.wire import (
    JSONRPC,
    CancelParams,
    RequestId,
    decode_any,
    decode_batch,
    decode_cancel,
    decode_envelope,
    decode_error,
    decode_target,
    encode_error,
    encode_notification,
    encode_request,
    encode_result,
    validation_data,
    with_target,
)

log = logging.getLogger("idlc_runtime")

CANCEL_METHOD: Final = "$/cancel_request"
DEFAULT_MAX_MESSAGE_SIZE: Final = 50 * 1024 * 1024
DEFAULT_MAX_CONCURRENT_HANDLERS: Final = 1024
_EMPTY_OBJECT: Final = b"{}"

#: Answers a method the served object does not declare: `(method, params, notify)`, where
#: `params` is the plain JSON value (None when absent). Its result is sent back as is (for a
#: request); raising `Unsupported` keeps the usual -32601. Protocols with open-ended method
#: names use it, e.g. ACP's `_`-prefixed extension methods.
MethodFallback = Callable[[str, Any, bool], Awaitable[Any]]


class ByteWriter(Protocol):
    """The writing half of a transport; `asyncio.StreamWriter` is one."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...

    async def wait_closed(self) -> None: ...


@dataclass(frozen=True, slots=True)
class PeerOptions:
    #: The longest line accepted, in bytes; longer ones are refused and skipped.
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    #: Incoming requests and notifications handled at once; at the bound, reading pauses.
    #: Handlers that wait on calls to the other side hold their slot, so keep it well above
    #: the number of such calls that can be in flight together.
    max_concurrent_handlers: int = DEFAULT_MAX_CONCURRENT_HANDLERS
    #: Wrapped around every incoming call, the first being the outermost.
    interceptors: Sequence[Interceptor] = ()
    #: Send the exception and traceback of a failing handler in the -32603 error's data.
    debug: bool = False
    #: When the other side stops sending, handlers already running get this many seconds
    #: to finish and answer (it may still read: a half-closed socket, `server < file`)
    #: before they are cancelled. Their calls to the other side fail at once.
    finish_on_eof: float = 2.0
    #: How long closing waits for cancelled handlers that are slow to stop.
    close_timeout: float = 5.0
    #: Called for methods the served object does not declare (see `MethodFallback`);
    #: None answers them -32601 and ignores such notifications.
    fallback: MethodFallback | None = None
    #: Handle JSON-RPC batches (docs/wire.md §7); when False an array is answered with
    #: one -32600 (id null), as protocols without batches (ACP) expect.
    accept_batches: bool = True


_current_peer: contextvars.ContextVar[Peer] = contextvars.ContextVar("idlc_current_peer")


def current_peer() -> Peer:
    """The peer whose incoming call the current task is handling.

    Lets a handler call back the caller (`current_peer().notify(...)`, or a proxy built on
    it) without the peer appearing in generated signatures.
    """
    try:
        return _current_peer.get()
    except LookupError:
        raise RuntimeError("current_peer() is only available while handling a call") from None


@dataclass(frozen=True, slots=True)
class _Served:
    implementation: object
    methods: Mapping[str, MethodSpec]
    #: The wire methods the implementation answers itself; the others would only raise
    #: `Unsupported`, so they are answered -32601 before their params are even decoded.
    implemented: frozenset[str]
    #: The interceptors that wrap each method, outermost first (see `applies_to`).
    chains: Mapping[str, tuple[Interceptor, ...]]


def _served(implementation: object, interceptors: tuple[Interceptor, ...]) -> _Served:
    methods = spec_of(implementation).methods
    return _Served(
        implementation,
        methods,
        implemented_members(implementation),
        {wire: _chain(interceptors, wire) for wire in methods},
    )


def _chain(interceptors: tuple[Interceptor, ...], method: str) -> tuple[Interceptor, ...]:
    return tuple(interceptor for interceptor in interceptors if applies_to(interceptor, method))


class Peer:
    """A JSON-RPC endpoint over a byte stream with one JSON message per line.

    Serves `root` (calls without `$target`) and objects registered under keys; sends calls
    with `request` and `notify`. Use it as an async context manager, or call `start()` and
    later `close()`; `wait_closed()` returns once the other side has gone.

    `reader` is an `asyncio.StreamReader`, or a `LineProtocol` attached to the transport
    (lines are then handled as the transport delivers them; the peer owns that transport and
    closes it). The protocol's `max_line` should be the options' `max_message_size`.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader | LineProtocol,
        writer: ByteWriter,
        root: object | None = None,
        *,
        options: PeerOptions | None = None,
    ) -> None:
        self._options = options if options is not None else PeerOptions()
        self._loop = asyncio.get_running_loop()
        self._writer = writer
        #: Where bytes go: the transport itself when the writer is an asyncio StreamWriter
        #: (or our own `TransportWriter`), whose `write` only forwards to it.
        transport = getattr(writer, "transport", None)
        self._transport: asyncio.WriteTransport | None = (
            transport if isinstance(transport, asyncio.WriteTransport) else None
        )
        self._send: Callable[[bytes], object] = (
            self._transport.write if self._transport is not None else writer.write
        )
        self._interceptors = tuple(self._options.interceptors)
        self._root = _served(root, self._interceptors) if root is not None else None
        self._objects: dict[str, _Served] = {}
        #: Our calls awaiting their response, by id.
        self._pending: dict[RequestId, asyncio.Future[Raw]] = {}
        #: The other side's calls being handled, by id, so they can be cancelled.
        self._incoming: dict[RequestId | None, asyncio.Task[None]] = {}
        #: Every handler that had to wait and so became a task, notifications included,
        #: by a token its coroutine uses to remove itself.
        self._handlers: dict[int, asyncio.Task[None]] = {}
        self._next_token = 0
        self._slot_freed: asyncio.Future[None] | None = None
        self._next_id = 0
        #: Set once nothing more will be read: calls to the other side cannot be answered.
        self._input_ended = False
        #: Set once closing has begun: handlers are being cancelled, nothing is written.
        self._closed = False
        #: While reading or letting handlers finish, `close()` interrupts the run task.
        self._interruptible = False
        #: Set by `close()`: a run task that has not begun yet goes straight to shutting
        #: down instead of reading (docs/wire.md §10).
        self._close_requested = False
        #: The batch whose members are being handled: their answers are collected there.
        self._batch: _Batch | None = None
        self._task: asyncio.Task[None] | None = None
        # Reading from a StreamReader, in the run task:
        self._lines: LineReader | None = None
        # Reading through a LineProtocol, in its callbacks:
        self._protocol: LineProtocol | None = None
        #: Lines received but not yet handled: before `start()`, at the handler bound, or
        #: while waiting for the writer to drain. Reading is paused while there are any.
        self._backlog: deque[Line] = deque()
        #: The end of input the protocol reported, held until the backlog is handled.
        self._end_reported: tuple[BaseException | None] | None = None
        #: Set once the protocol's input has ended and been handled; `_input_error` says
        #: why if it failed.
        self._input_done: asyncio.Future[None] = self._loop.create_future()
        self._input_error: BaseException | None = None
        #: The context lines are handled in: `current_peer()` is this peer there.
        self._context: contextvars.Context | None = None
        self._resume_scheduled = False
        self._draining: asyncio.Task[None] | None = None
        if isinstance(reader, LineProtocol):
            self._protocol = reader
            reader.attach(self)
        else:
            self._lines = LineReader(reader, self._options.max_message_size)

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> None:
        """Start reading and serving; calls can be sent only after this."""
        if self._task is None:
            if self._protocol is not None:
                self._context = contextvars.copy_context()
                self._context.run(_current_peer.set, self)
                # Lines that came before now are handled in a callback of their own, as
                # they would have been had they come later.
                self._schedule_resume()
            self._task = self._loop.create_task(self._run(), name="idlc-peer")

    async def close(self) -> None:
        """Fail pending calls, cancel running handlers, close the transport; idempotent."""
        if self._task is None:
            self._closed = True
            self._writer.close()
            return
        self._close_requested = True
        if self._interruptible:
            self._task.cancel()
        await asyncio.wait([self._task])

    async def wait_closed(self) -> None:
        """Return once the connection has ended and everything it ran has stopped."""
        if self._task is None:
            raise RuntimeError("the peer was never started")
        await asyncio.wait([self._task])

    @property
    def closed(self) -> bool:
        return self._closed

    async def __aenter__(self) -> Peer:
        self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # ---------------------------------------------------------------- serving

    def register(self, key: str, implementation: object) -> None:
        """Serve `implementation` to calls whose params carry `"$target": key`."""
        if key in self._objects:
            raise ValueError(f"an object is already registered under {key!r}")
        self._objects[key] = _served(implementation, self._interceptors)

    def unregister(self, key: str) -> None:
        """Stop serving the object under `key`; calls to it then get -32900. No-op if absent."""
        self._objects.pop(key, None)

    # ---------------------------------------------------------------- writing

    def _flushed(self) -> bool:
        """True when `drain()` would return at once: everything written has gone out.

        Checked before each drain so that the usual case (the transport took the whole
        message) costs no coroutine. Only known for an asyncio transport; an empty buffer
        means its protocol is not paused, and a closing one still goes through `drain()`,
        which raises the connection's error.
        """
        transport = self._transport
        return (
            transport is not None
            and not transport.is_closing()
            and not transport.get_write_buffer_size()
        )

    # ---------------------------------------------------------------- calling

    async def request(
        self, method: str, params: object | None, result_type: Any, *, target: str | None = None
    ) -> Any:
        """Call `method` on the other side and decode its result into `result_type`.

        Raises `RpcError` (`Unsupported` for -32601) for an error response, `ProtocolError`
        for a result that does not decode, `ConnectionClosed` if the connection ends first.
        Cancelling the awaiting task sends `$/cancel_request`.
        """
        if self._input_ended or self._task is None:
            raise ConnectionClosed("the connection is closed" if self._task else "not started")
        self._next_id += 1
        id = self._next_id
        message = encode_request(
            id, method, params if target is None else with_target(params, target)
        )
        future: asyncio.Future[Raw] = self._loop.create_future()
        self._pending[id] = future
        try:
            self._send(message)
            if not self._flushed():
                await self._writer.drain()
            raw = await future
        except asyncio.CancelledError:
            if self._pending.pop(id, None) is not None and not self._input_ended:
                self._send(encode_notification(CANCEL_METHOD, CancelParams(id)))
            raise
        except ConnectionClosed:
            raise
        except ConnectionError as error:
            self._pending.pop(id, None)
            if future.done() and not future.cancelled():
                future.exception()  # retrieved here: the caller gets the one below
            raise ConnectionClosed(f"the connection closed during {method}") from error
        except RpcError as error:
            if type(error) is RpcError and error.code == ErrorCode.METHOD_NOT_FOUND:
                raise Unsupported(method, error.message, error.data) from None
            raise
        try:
            return decoder_for(result_type).decode(raw)
        except msgspec.ValidationError as error:
            raise ProtocolError(
                f"Invalid result for {method}: {error}", validation_data(error)
            ) from None
        except RecursionError:
            raise ProtocolError(f"Invalid result for {method}: {_TOO_DEEP}") from None

    async def notify(
        self, method: str, params: object | None, *, target: str | None = None
    ) -> None:
        """Send a notification: no answer comes back, not even an error."""
        if self._closed or self._task is None:
            raise ConnectionClosed("the connection is closed" if self._task else "not started")
        self._send(
            encode_notification(method, params if target is None else with_target(params, target))
        )
        if self._flushed():
            return
        try:
            await self._writer.drain()
        except ConnectionClosed:
            raise
        except ConnectionError as error:
            raise ConnectionClosed(f"the connection closed during {method}") from error

    # ---------------------------------------------------------------- reading

    async def _run(self) -> None:
        # Handler tasks are created from this task, so they all inherit this value.
        _current_peer.set(self)
        if self._close_requested:
            # Closed before this task ever ran (a block with no await in it): nothing to
            # read or wait for.
            await self._shut_down()
            return
        self._interruptible = True
        try:
            if self._lines is not None:
                await self._read_loop()
            else:
                await self._input_done
                if self._input_error is not None:
                    raise self._input_error
            self._end_input()
            if self._handlers:
                await asyncio.wait(
                    list(self._handlers.values()), timeout=self._options.finish_on_eof
                )
        except asyncio.CancelledError:
            pass
        except (ConnectionError, OSError) as error:
            log.debug("connection lost: %r", error)
        except Exception:
            log.exception("the connection failed")
        finally:
            self._interruptible = False
            await self._shut_down()

    async def _read_loop(self) -> None:
        assert self._lines is not None
        read_lines = self._lines.read_lines
        take = self._take
        bound = self._options.max_concurrent_handlers
        handlers = self._handlers
        lines: list[bytes | Oversized] = []
        next_line = 0
        while True:
            if next_line == len(lines):
                # Error answers are written without waiting; respect the writer's limit
                # before taking in more.
                if not self._flushed():
                    await self._writer.drain()
                lines = await read_lines()
                next_line = 0
                if not lines:
                    return
            if len(handlers) >= bound:
                # Backpressure: what is not read stays in the transport, which stops reading
                # from the other side once its buffer is full.
                self._slot_freed = self._loop.create_future()
                await self._slot_freed
                self._slot_freed = None
                continue
            line = lines[next_line]
            next_line += 1
            take(line)

    # ------------------------------------------- reading through a LineProtocol

    def lines_received(self, lines: list[Line]) -> None:
        """Handle lines as the protocol delivers them (`LineSink`)."""
        context = self._context
        if context is None or self._backlog or self._draining is not None:
            # Not started, or paused: keep them in order behind the others.
            self._backlog.extend(lines)
            self._pause_reading()
            return
        if not self._input_ended:
            context.run(self._handle_lines, lines)

    def input_ended(self, error: BaseException | None) -> None:
        """The protocol's input has ended, with the transport's error if it failed."""
        if error is not None or not (self._backlog or self._draining is not None):
            # A failed connection ends at once, as a StreamReader read would raise.
            self._finish_input(error)
        else:
            self._end_reported = (error,)

    def _finish_input(self, error: BaseException | None) -> None:
        done = self._input_done
        if not done.done():
            self._input_error = error
            done.set_result(None)

    def _handle_lines(self, lines: list[Line]) -> None:
        bound = self._options.max_concurrent_handlers
        handlers = self._handlers
        take = self._take
        try:
            for index, line in enumerate(lines):
                if len(handlers) >= bound:
                    # Backpressure: what is not read stays in the transport, which stops
                    # reading from the other side once its buffer is full.
                    self._backlog.extend(lines[index:])
                    self._pause_reading()
                    return
                take(line)
                if self._input_ended:
                    return
            self._wait_for_writer()
        except Exception as error:
            # Reported by the run task, which then closes the connection.
            self._finish_input(error)

    def _wait_for_writer(self) -> None:
        """Error answers are written without waiting; respect the writer's limit before
        taking in more. Pauses reading while the writer may be paused."""
        transport = self._transport
        if transport is None:
            return  # our writers without a transport never make anyone wait
        if not transport.is_closing():
            low, _ = transport.get_write_buffer_limits()
            if transport.get_write_buffer_size() <= low:
                return  # its protocol cannot be paused
        self._pause_reading()
        self._draining = self._loop.create_task(self._drain_then_resume(), context=self._context)

    async def _drain_then_resume(self) -> None:
        try:
            await self._writer.drain()
        except (ConnectionError, OSError) as error:
            self._finish_input(error)
            return
        finally:
            self._draining = None
        self._resume()

    def _pause_reading(self) -> None:
        assert self._protocol is not None
        self._protocol.pause_reading()

    def _schedule_resume(self) -> None:
        if not self._resume_scheduled:
            self._resume_scheduled = True
            self._loop.call_soon(self._resume, context=self._context)

    def _resume(self) -> None:
        """Handle the backlog as far as the bound allows; then read again."""
        self._resume_scheduled = False
        if self._draining is not None or self._input_ended:
            return
        if self._backlog:
            # What the bound leaves unhandled goes back into the (then empty) backlog.
            lines = list(self._backlog)
            self._backlog.clear()
            self._handle_lines(lines)
            if self._backlog or self._draining is not None or self._input_done.done():
                return
        if self._end_reported is not None:
            self._finish_input(self._end_reported[0])
            return
        assert self._protocol is not None
        self._protocol.resume_reading()

    def _take(self, line: Line) -> None:
        """Handle one line. Nothing in a line ends the connection (docs/wire.md §8): every
        way it can be wrong is answered where it is found, and anything else that goes
        wrong here (a bug) is logged and answered -32603 rather than let through."""
        try:
            if type(line) is bytes:
                self._on_line(line)
            else:
                assert isinstance(line, Oversized)
                self._on_oversized(line)
        except OSError:
            raise  # writing failed: the transport is gone, which does end the connection
        except Exception as error:
            self._batch = None
            self._on_failed_line(line, error)

    def _on_failed_line(self, line: Line, error: Exception) -> None:
        log.error("handling a line failed", exc_info=error)
        try:
            if isinstance(line, Oversized):
                identity = identify(line.prefix, line.suffix)
            else:
                identity = identify_line(line)
            if not identity.response:
                self._send_error(identity.id, ErrorCode.INTERNAL_ERROR, "Internal error")
        except OSError:
            raise
        except Exception:
            log.exception("answering a line that failed failed too")

    def _on_line(self, line: bytes) -> None:
        if _OPENS_ARRAY.match(line) is not None:
            self._on_batch(line)
        else:
            self._on_message(line)

    def _on_batch(self, line: bytes) -> None:
        """An array: each member handled as if sent alone, the answers sent as one array
        (docs/wire.md §7)."""
        try:
            members = decode_batch(line)
        except (msgspec.MsgspecError, RecursionError) as error:
            reason = _TOO_DEEP if isinstance(error, RecursionError) else str(error)
            self._send_error(None, ErrorCode.PARSE_ERROR, f"Parse error: {reason}")
            return
        if not self._options.accept_batches:
            # The words of the official ACP TypeScript SDK, which refuses batches too.
            text = "Invalid request: JSON-RPC batches are not supported"
            self._send_error(None, ErrorCode.INVALID_REQUEST, text)
            return
        if not members:
            self._send_error(None, ErrorCode.INVALID_REQUEST, "Invalid request: empty batch")
            return
        batch = _Batch(self._write_out)
        self._batch = batch
        try:
            for member in members:
                message = bytes(member)
                try:
                    self._on_message(message)
                except OSError:
                    raise
                except Exception as error:
                    # As for a line (see `_take`): the other members still get answers.
                    self._on_failed_line(message, error)
        finally:
            self._batch = None
        batch.seal()

    def _on_message(self, line: bytes) -> None:
        try:
            message = decode_envelope(line)
        except msgspec.ValidationError as error:
            self._on_invalid(line, error)
            return
        except msgspec.DecodeError as error:
            if line.strip():
                self._on_unreadable(line, f"Parse error: {error}")
            return
        except RecursionError:
            # Valid JSON perhaps, but nested deeper than the decoder goes: never a reason
            # to drop the connection.
            self._on_unreadable(line, f"Parse error: {_TOO_DEEP}")
            return
        method = message.method
        id = message.id
        if method is not UNSET:
            if message.jsonrpc != JSONRPC:
                self._send_error(
                    None if id is UNSET else id,
                    ErrorCode.INVALID_REQUEST,
                    'Invalid request: "jsonrpc" must be "2.0"',
                )
            elif id is UNSET:
                self._on_notification(method, message.params, b"$target" in line)
            else:
                self._on_request(id, method, message.params, b"$target" in line)
        elif id is not UNSET and (message.result or message.error):
            self._on_response(id, message.result, message.error)
        else:
            self._send_error(
                None if id is UNSET else id,
                ErrorCode.INVALID_REQUEST,
                'Invalid request: "method" is missing',
            )

    def _on_invalid(self, line: bytes, error: msgspec.ValidationError) -> None:
        """Not a JSON-RPC message: answer with whatever id can be found."""
        try:
            value = decode_any(line)
        except (msgspec.MsgspecError, RecursionError) as problem:
            # msgspec saw the wrong type before the line's syntax error or a number it
            # cannot hold: the line is no readable JSON after all.
            reason = _TOO_DEEP if isinstance(problem, RecursionError) else str(problem)
            self._on_unreadable(line, f"Parse error: {reason}")
            return
        id: RequestId | None = None
        if isinstance(value, dict):
            found = value.get("id")
            if isinstance(found, (int, str)) and not isinstance(found, bool):
                id = found
            if "method" not in value and ("result" in value or "error" in value):
                # A response we cannot read: never answer a response, fail its call instead.
                self._fail_call(
                    id,
                    ProtocolError(f"Malformed response: {error}", validation_data(error)),
                    f"dropped a malformed response: {error}",
                )
                return
        self._send_error(id, ErrorCode.INVALID_REQUEST, f"Invalid request: {error}")

    def _on_unreadable(self, line: bytes, text: str) -> None:
        """A line that does not decode: -32700, with the id its ends show (docs/wire.md §8)."""
        identity = identify_line(line)
        if identity.response:
            self._fail_call(
                identity.id,
                ProtocolError(f"Unreadable response: {text}"),
                f"dropped: {text}",
            )
        else:
            self._send_error(identity.id, ErrorCode.PARSE_ERROR, text)

    def _on_oversized(self, line: Oversized) -> None:
        limit = self._options.max_message_size
        text = f"Message of {line.size} bytes exceeds the limit of {limit} bytes"
        data = {"size": line.size, "limit": limit}
        identity = identify(line.prefix, line.suffix)
        if identity.response:
            self._fail_call(
                identity.id,
                ProtocolError(f"Response too large: {text}", data),
                f"{text}; dropped",
            )
        else:
            self._send_error(identity.id, ErrorCode.INVALID_REQUEST, text, data)

    def _fail_call(self, id: RequestId | None, error: ProtocolError, otherwise: str) -> None:
        """A response that cannot be read fails the call it answers (never answered itself)."""
        future = self._pending.pop(id, None) if id is not None else None
        if future is not None and not future.done():
            future.set_exception(error)
        else:
            log.warning("%s (no pending call has id %r)", otherwise, id)

    def _on_response(self, id: RequestId | None, result: Raw, error: Raw) -> None:
        future = self._pending.pop(id, None) if id is not None else None
        if future is None or future.done():
            # Usually the answer to a call we cancelled meanwhile.
            log.debug("response to no pending request (id %r)", id)
            return
        if error:
            future.set_exception(_remote_error(error))
        else:
            future.set_result(result)

    # ---------------------------------------------------------------- handling

    def _lookup(
        self, method: str, params: Raw, targeted: bool, notify: bool = False
    ) -> tuple[_Served, MethodSpec, Any, str | None]:
        """Find the object and member a call is for and decode its params, or raise RpcError."""
        target = None
        if targeted and params:
            with _invalid_params:
                target = decode_target(params)
        if target is None:
            served = self._root
            if served is None:
                raise Unsupported(method, f"Method not found: {method}")
        else:
            served = self._objects.get(target)
            if served is None:
                raise RpcError(
                    ErrorCode.UNKNOWN_TARGET, f"Unknown target: {target}", {"target": target}
                )
        spec = served.methods.get(method)
        if spec is not None and method not in served.implemented:
            raise Unsupported(method, f"Method not found: {method}")
        if spec is None:
            fallback = self._options.fallback
            if fallback is None or method == CANCEL_METHOD:
                raise Unsupported(method, f"Method not found: {method}")
            with _invalid_params:
                value = decode_any(params) if params else None
            return served, _fallback_spec(method, fallback, notify), value, target
        with _invalid_params:
            if spec.shape is InputShape.UNIT:
                if params and not targeted:
                    decode_target(params)  # only checks that params is an object (or null)
                decoded = None
            else:
                decoded = decoder_for(spec.params_type).decode(params if params else _EMPTY_OBJECT)
        return served, spec, decoded, target

    def _on_request(self, id: RequestId | None, method: str, params: Raw, targeted: bool) -> None:
        if id in self._incoming:
            self._send_error(
                id, ErrorCode.INVALID_REQUEST, f"Invalid request: id {id!r} is already in use"
            )
            return
        try:
            served, spec, decoded, target = self._lookup(method, params, targeted)
        except RpcError as error:
            self._write(self._encode_rpc_error(id, error))
            return
        self._next_token += 1
        token = self._next_token
        task = start_eagerly(self._loop, self._answer(token, id, served, spec, decoded, target))
        if task is not None:
            self._incoming[id] = task
            self._handlers[token] = task

    def _on_notification(self, method: str, params: Raw, targeted: bool) -> None:
        if method == CANCEL_METHOD:
            self._on_cancel(params)
            return
        try:
            served, spec, decoded, target = self._lookup(method, params, targeted, True)
        except RpcError as error:
            level = logging.DEBUG if error.code == ErrorCode.METHOD_NOT_FOUND else logging.WARNING
            log.log(level, "ignored notification %s: %s", method, error)
            return
        self._next_token += 1
        token = self._next_token
        task = start_eagerly(self._loop, self._consume(token, served, spec, decoded, target))
        if task is not None:
            self._handlers[token] = task

    def _on_cancel(self, params: Raw) -> None:
        try:
            request_id = decode_cancel(params if params else _EMPTY_OBJECT).request_id
        except msgspec.ValidationError as error:
            log.warning("ignored %s: %s", CANCEL_METHOD, error)
            return
        except RecursionError:
            log.warning("ignored %s: %s", CANCEL_METHOD, _TOO_DEEP)
            return
        task = self._incoming.get(request_id)
        if task is not None:
            task.cancel()

    def _invoke(
        self, served: _Served, spec: MethodSpec, params: Any, target: str | None, notify: bool
    ) -> Any:
        implementation = served.implementation
        interceptors = served.chains.get(spec.wire)
        if interceptors is None:  # a method handed to the fallback
            interceptors = _chain(self._interceptors, spec.wire)
        if not interceptors:
            return spec.invoke(implementation, params)
        call = CallInfo(
            spec.wire, spec.member, target, spec.execution, notify, implementation, params
        )
        proceed: Proceed = functools.partial(spec.invoke, implementation, params)
        for interceptor in reversed(interceptors):
            proceed = functools.partial(interceptor, call, proceed)
        return proceed()

    async def _answer(
        self,
        token: int,
        id: RequestId | None,
        served: _Served,
        spec: MethodSpec,
        params: Any,
        target: str | None,
    ) -> None:
        # Runs up to its first await while its line is handled: a batch member is known.
        batch = self._batch
        if batch is not None:
            batch.expect()
        try:
            try:
                result = await self._invoke(served, spec, params, target, False)
                message = encode_result(id, result)
            except asyncio.CancelledError:
                if self._closed:
                    raise
                # Cancelled by `$/cancel_request`: this task goes on to answer.
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    task.uncancel()
                message = encode_error(id, ErrorCode.REQUEST_CANCELLED, "Request cancelled")
            except RpcError as error:
                message = self._encode_rpc_error(id, error)
            except Exception as error:
                message = self._internal_error(id, spec.wire, error)
            # No await between leaving `_incoming` and writing: a late cancel cannot slip in
            # and cause a second answer.
            self._incoming.pop(id, None)
            if batch is None:
                self._send(message)
            else:
                batch.answer(message)
            if not self._flushed():
                await self._writer.drain()
        except ConnectionError as error:
            log.debug("could not answer %s: %r", spec.wire, error)
        finally:
            self._incoming.pop(id, None)
            self._handler_done(token)

    async def _consume(
        self, token: int, served: _Served, spec: MethodSpec, params: Any, target: str | None
    ) -> None:
        try:
            await self._invoke(served, spec, params, target, True)
        except asyncio.CancelledError:
            if self._closed:
                raise
        except RpcError as error:
            log.debug("notification %s answered an error: %s", spec.wire, error)
        except Exception:
            log.exception("notification handler %s failed", spec.wire)
        finally:
            self._handler_done(token)

    def _handler_done(self, token: int) -> None:
        self._handlers.pop(token, None)
        waiter = self._slot_freed
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        if self._backlog and self._context is not None:
            self._schedule_resume()

    # ---------------------------------------------------------------- writing errors

    def _write(self, message: bytes) -> None:
        batch = self._batch
        if batch is not None:
            batch.add(message)
        else:
            self._write_out(message)

    def _write_out(self, message: bytes) -> None:
        if not self._closed:
            self._send(message)

    def _send_error(
        self, id: RequestId | None, code: int, message: str, data: object = None
    ) -> None:
        self._write(encode_error(id, code, message, data))

    def _encode_rpc_error(self, id: RequestId | None, error: RpcError) -> bytes:
        try:
            return encode_error(id, error.code, error.message, error.data)
        except (TypeError, msgspec.EncodeError):
            log.error("the data of %r cannot be encoded; it is left out", error)
            return encode_error(id, error.code, error.message)

    def _internal_error(self, id: RequestId | None, method: str, error: Exception) -> bytes:
        log.error("handler of %s failed", method, exc_info=error)
        if not self._options.debug:
            return encode_error(id, ErrorCode.INTERNAL_ERROR, "Internal error")
        detail = "".join(traceback.format_exception(error))
        return encode_error(
            id,
            ErrorCode.INTERNAL_ERROR,
            f"Internal error: {type(error).__name__}: {error}",
            {"traceback": detail},
        )

    # ---------------------------------------------------------------- closing

    def _end_input(self) -> None:
        """Nothing more will be read: fail every call still waiting for an answer."""
        self._input_ended = True
        for id, future in self._pending.items():
            if not future.done():
                future.set_exception(
                    ConnectionClosed(f"the connection closed before request {id} was answered")
                )
        self._pending.clear()

    async def _shut_down(self) -> None:
        self._end_input()
        self._closed = True
        handlers = list(self._handlers.values())
        for task in handlers:
            task.cancel()
        if handlers:
            _, stuck = await asyncio.wait(handlers, timeout=self._options.close_timeout)
            for task in stuck:
                log.warning("handler %r ignored its cancellation; left running", task)
        if self._draining is not None:
            self._draining.cancel()
        self._writer.close()
        if self._protocol is not None:
            self._backlog.clear()
            self._protocol.close()
        try:
            # A transport closes once its buffer is written out; a peer that stopped
            # reading would keep it open for ever, so give it `close_timeout`, then abort.
            await asyncio.wait_for(self._writer.wait_closed(), self._options.close_timeout)
        except TimeoutError:
            log.warning("the other side did not take the last %s; connection aborted", "writes")
            self._abort_transport()
        except (ConnectionError, OSError) as error:
            log.debug("closing the transport: %r", error)

    def _abort_transport(self) -> None:
        transport = self._transport or getattr(self._writer, "transport", None)
        abort = getattr(transport, "abort", None)
        if abort is not None:
            abort()


_TOO_DEEP = "JSON nested too deeply"
#: A line whose first character (after JSON whitespace) opens an array: a batch.
_OPENS_ARRAY: Final = re.compile(rb"[ \t\r\n]*\[")


class _Batch:
    """The answers to one batch, sent as one array once the last is in (docs/wire.md §7).

    Members answered while the batch is read (errors, handlers that finish at once) are
    added as they come; a handler that has to wait is expected, and answers later.
    """

    def __init__(self, write: Callable[[bytes], None]) -> None:
        self._write = write
        self._answers: list[bytes] = []
        self._expected = 0
        self._sealed = False

    def add(self, message: bytes) -> None:
        self._answers.append(message)

    def expect(self) -> None:
        self._expected += 1

    def answer(self, message: bytes) -> None:
        """The answer of a handler that `expect()` announced."""
        self._answers.append(message)
        self._expected -= 1
        self._send_when_complete()

    def seal(self) -> None:
        """Every member has been read: send once the expected answers are in."""
        self._sealed = True
        self._send_when_complete()

    def _send_when_complete(self) -> None:
        if not self._sealed or self._expected or not self._answers:
            return  # a batch of notifications only gets no answer at all
        # Each message is one encoded object followed by its newline.
        body = b",".join(message[:-1] for message in self._answers)
        self._answers = []
        self._write(b"[" + body + b"]\n")


class _InvalidParams:
    """`with _invalid_params:` turns params that do not decode into -32602 (with the JSON
    path when msgspec gives one). A plain object, not a generator: it is on every call."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: object
    ) -> None:
        if error is None:
            return
        if isinstance(error, msgspec.ValidationError):
            raise RpcError(
                ErrorCode.INVALID_PARAMS, f"Invalid params: {error}", validation_data(error)
            ) from None
        if isinstance(error, msgspec.DecodeError):
            raise RpcError(ErrorCode.INVALID_PARAMS, f"Invalid params: {error}") from None
        if isinstance(error, RecursionError):
            raise RpcError(ErrorCode.INVALID_PARAMS, f"Invalid params: {_TOO_DEEP}") from None


_invalid_params: Final = _InvalidParams()


def _fallback_spec(method: str, fallback: MethodFallback, notify: bool) -> MethodSpec:
    """A one-off table entry that hands an undeclared method to `PeerOptions.fallback`."""

    def invoke(implementation: object, params: Any) -> Awaitable[Any]:
        return fallback(method, params, notify)

    return MethodSpec(
        wire=method,
        member="",
        shape=InputShape.RECORD,
        params_type=None,
        result_type=None,
        invoke=invoke,
        execution=None,
        notify=notify,
        required=False,
    )


def _remote_error(raw: Raw) -> RpcError:
    try:
        error = decode_error(raw)
    except msgspec.ValidationError as problem:
        return ProtocolError(f"Malformed error response: {problem}", validation_data(problem))
    except RecursionError:
        return ProtocolError(f"Malformed error response: {_TOO_DEEP}")
    return RpcError(error.code, error.message, error.data)
