"""One JSON-RPC 2.0 connection: it serves objects and calls the other side, both at once.

What it sends and accepts is specified in docs/wire.md.

The peer joins parts that each have one job:

- `intake.Intake` takes lines from the transport (a `LineProtocol`, or a `StreamReader`
  read by a task) within the bound on handlers, pausing the transport when it must;
- `inbound.Inbound` tells what each line is and answers what is wrong with it;
- `handling.Handling` serves the other side's calls: lookup, invoke, answer;
- `calls.PendingCalls` holds our calls until their response comes, delivered after the
  notifications before it (`ordered.OrderedWorker`, which runs notifications in order);
- `outbox.Outbox` writes: every message goes straight to the transport, written by
  whoever produced it. Each request's handler is a task of its own whose first step runs
  as its line is read (see `eager`); notifications wait their turn on the ordered worker.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final

import msgspec

from idlc_runtime.codec.decoders import decoder_for
from idlc_runtime.errors import ConnectionClosed, ErrorCode, ProtocolError, RpcError, Unsupported
from idlc_runtime.rpc.calls import PendingCalls
from idlc_runtime.rpc.express import Express
from idlc_runtime.rpc.handling import (
    CANCEL_METHOD,
    TOO_DEEP,
    Handling,
    MethodFallback,
    RequestAdmission,
    UndecodableNotificationHook,
)
from idlc_runtime.rpc.inbound import Inbound
from idlc_runtime.rpc.intake import Intake, StreamSource
from idlc_runtime.rpc.interceptors import Interceptor
from idlc_runtime.rpc.outbox import Outbox
from idlc_runtime.rpc.replies import Replies
from idlc_runtime.rpc.wire import (
    JSONRPC,
    NEWLINE,
    CancelParams,
    NotificationOut,
    encode_message,
    encode_notification,
    encode_request,
    validation_data,
    with_target,
)
from idlc_runtime.transports.contract import ByteWriter, LineSource

__all__ = [
    "CANCEL_METHOD",
    "DEFAULT_MAX_CONCURRENT_HANDLERS",
    "DEFAULT_MAX_MESSAGE_SIZE",
    "ByteWriter",
    "MethodFallback",
    "RequestAdmission",
    "UndecodableNotificationHook",
    "Peer",
    "PeerOptions",
    "current_peer",
]

log = logging.getLogger("idlc_runtime")

DEFAULT_MAX_MESSAGE_SIZE: Final = 50 * 1024 * 1024
DEFAULT_MAX_CONCURRENT_HANDLERS: Final = 1024


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
    #: Hand `fallback` also the members the served object declares but does not implement
    #: (they would answer -32601): a proxy forwards what it does not handle itself.
    fallback_for_unimplemented: bool = False
    #: Handle JSON-RPC batches (docs/wire.md §7); when False an array is answered with
    #: one -32600 (id null), as protocols without batches (ACP) expect.
    accept_batches: bool = True
    #: Read `$target` to route calls to objects registered under keys (docs/wire.md §5);
    #: when False params belong to the method alone and a `$target` member is passed on
    #: like any other, as protocols without keyed objects (ACP) expect.
    route_targets: bool = True
    #: Told of every notification whose params do not decode (docs/wire.md §4), with the
    #: method, the params as plain JSON and the error; None logs them at WARNING.
    on_undecodable_notification: UndecodableNotificationHook | None = None
    #: Called with the method of every incoming request before anything else (see
    #: `RequestAdmission`); raising `RpcError` answers it with that error.
    admit_request: RequestAdmission | None = None
    #: The notifications (wire method names) whose handlers run each as a task of its own,
    #: concurrently with others and not holding later ones; all others are handled in
    #: order, one at a time, and answers wait for them (docs/wire.md §13).
    concurrent_notifications: frozenset[str] = frozenset()


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


class Peer:
    """A JSON-RPC endpoint over a byte stream with one JSON message per line.

    Serves `root` (calls without `$target`) and objects registered under keys; sends calls
    with `request` and `notify`. Use it as an async context manager, or call `start()` and
    later `close()`; `wait_closed()` returns once the other side has gone.

    `reader` is an `asyncio.StreamReader`, or a `LineSource` that delivers lines as they come
    (a `LineProtocol` attached to the transport, or a `channel.ChannelSource` reading one
    message per frame); the peer owns that source and closes it. A source's limit on a line
    should be the options' `max_message_size`.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader | LineSource,
        writer: ByteWriter,
        root: object | None = None,
        *,
        options: PeerOptions | None = None,
    ) -> None:
        self._options = options = options if options is not None else PeerOptions()
        self._loop = asyncio.get_running_loop()
        self._outbox = outbox = Outbox(writer)
        replies = Replies(outbox)
        self._handling = handling = Handling(
            replies,
            outbox,
            interceptors=tuple(options.interceptors),
            fallback=options.fallback,
            fallback_for_unimplemented=options.fallback_for_unimplemented,
            debug=options.debug,
            on_undecodable_notification=options.on_undecodable_notification,
            admit_request=options.admit_request,
            concurrent_notifications=options.concurrent_notifications,
        )
        self._calls = PendingCalls(handling.ordered)
        handling.serve_root(root)
        inbound = Inbound(
            handling,
            self._calls,
            replies,
            max_message_size=options.max_message_size,
            accept_batches=options.accept_batches,
            route_targets=options.route_targets,
            max_concurrent_handlers=options.max_concurrent_handlers,
        )
        source: LineSource = (
            StreamSource(reader, options.max_message_size)
            if isinstance(reader, asyncio.StreamReader)
            else reader
        )
        express = Express(
            handling,
            bound=options.max_concurrent_handlers,
            route_targets=options.route_targets,
            on_failed_line=inbound.on_failed_line,
        )
        self._intake = intake = Intake(
            source, inbound.take, handling, options.max_concurrent_handlers, outbox, express
        )
        handling.on_handler_done = intake.handler_finished
        #: Set once nothing more will be read: calls to the other side cannot be answered.
        self._input_ended = False
        #: Set once closing has begun: handlers are being cancelled, nothing is written.
        self._closed = False
        #: While reading or letting handlers finish, `close()` interrupts the run task.
        self._interruptible = False
        #: Set by `close()`: a run task that has not begun yet goes straight to shutting
        #: down instead of reading (docs/wire.md §10).
        self._close_requested = False
        self._task: asyncio.Task[None] | None = None
        #: What `notify` returns once the transport has taken the message: done already.
        self._sent: asyncio.Future[None] = self._loop.create_future()
        self._sent.set_result(None)

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> None:
        """Start reading and serving; calls can be sent only after this."""
        if self._task is None:
            # Lines are handled, and handler tasks created, in this context: there,
            # `current_peer()` is this peer.
            context = contextvars.copy_context()
            context.run(_current_peer.set, self)
            self._intake.start(context)
            self._task = self._loop.create_task(self._run(), name="idlc-peer")

    async def close(self) -> None:
        """Fail pending calls, cancel running handlers, close the transport; idempotent."""
        if self._task is None:
            self._closed = True
            self._intake.close()
            self._outbox.close()
            await self._intake.wait_closed()
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
        self._handling.register(key, implementation)

    def unregister(self, key: str) -> None:
        """Stop serving the object under `key`; calls to it then get -32900. No-op if absent."""
        self._handling.unregister(key)

    def serve_root(self, root: object | None) -> None:
        """Serve `root` to calls without `$target` from now on, in place of the root given
        to the constructor (None: none). For a root made once the peer exists (a server's
        root factory that takes the connection's peer), or chosen by the first exchange (a
        client that learns from `initialize` which protocol version the other side speaks).
        Calls already being handled finish on the root they found."""
        self._handling.serve_root(root)

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
        calls = self._calls
        id, future = calls.open()
        message = encode_request(
            id, method, params if target is None else with_target(params, target)
        )
        outbox = self._outbox
        try:
            if not outbox.send(message):
                await outbox.drain()
            raw = await future
        except asyncio.CancelledError:
            if calls.forget(id) and not self._input_ended:
                outbox.write(encode_notification(CANCEL_METHOD, CancelParams(id)))
            raise
        except ConnectionClosed:
            raise
        except ConnectionError as error:
            calls.forget(id)
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
            raise ProtocolError(f"Invalid result for {method}: {TOO_DEEP}") from None

    def notify(
        self, method: str, params: object | None, *, target: str | None = None
    ) -> Awaitable[None]:
        """Send a notification: no answer comes back, not even an error. Await what it
        returns: it waits while the transport's buffer is full.

        It is written when called; a closed connection raises `ConnectionClosed` then. A
        function rather than a coroutine: when the transport has taken the message, which
        is nearly always, what it returns is a future already done, so a notification costs
        no coroutine (docs/benchmarks.md, "ACP SDK")."""
        if self._closed or self._task is None:
            raise ConnectionClosed("the connection is closed" if self._task else "not started")
        # `encode_notification` written out: this is the path of every notification sent.
        message = encode_message(
            NotificationOut(
                JSONRPC, method, params if target is None else with_target(params, target)
            )
        )
        if self._outbox.send(message + NEWLINE):
            return self._sent
        return self._drain_after(method)

    async def _drain_after(self, method: str) -> None:
        try:
            await self._outbox.drain()
        except ConnectionClosed:
            raise
        except ConnectionError as error:
            raise ConnectionClosed(f"the connection closed during {method}") from error

    # ---------------------------------------------------------------- running

    async def _run(self) -> None:
        _current_peer.set(self)
        if self._close_requested:
            # Closed before this task ever ran (a block with no await in it): nothing to
            # read or wait for.
            await self._shut_down()
            return
        self._interruptible = True
        try:
            intake = self._intake
            await intake.done
            if intake.error is not None:
                raise intake.error
            self._end_input()
            unfinished = self._handling.unfinished()
            if unfinished:
                await asyncio.wait(unfinished, timeout=self._options.finish_on_eof)
        except asyncio.CancelledError:
            pass
        except (ConnectionError, OSError) as error:
            log.debug("connection lost: %r", error)
        except Exception:
            log.exception("the connection failed")
        finally:
            self._interruptible = False
            await self._shut_down()

    # ---------------------------------------------------------------- closing

    def _end_input(self) -> None:
        """Nothing more will be read: fail every call still waiting for an answer."""
        self._input_ended = True
        self._intake.stop()
        self._calls.fail_all()

    async def _shut_down(self) -> None:
        self._end_input()
        self._closed = True
        self._handling.closed = True
        self._outbox.closed = True
        handlers = self._handling.cancel_all()
        if handlers:
            _, stuck = await asyncio.wait(handlers, timeout=self._options.close_timeout)
            for task in stuck:
                log.warning("handler %r ignored its cancellation; left running", task)
        self._outbox.close()
        self._intake.close()
        try:
            # A transport closes once its buffer is written out; a peer that stopped
            # reading would keep it open for ever, so give it `close_timeout`, then abort.
            await asyncio.wait_for(self._outbox.wait_closed(), self._options.close_timeout)
        except TimeoutError:
            log.warning("the other side did not take the last %s; connection aborted", "writes")
            self._outbox.abort()
        except (ConnectionError, OSError) as error:
            log.debug("closing the transport: %r", error)
