"""Handling the other side's calls: find the object and member, invoke it, answer.

Each request's handler is a task of its own whose first step runs while its line is read
(see `eager`); notifications are handled in order on the ordered worker (`ordered`,
docs/wire.md §13), except those `concurrent_notifications` names, each a task of its own.
`handlers` holds the tasks still running after their first step (the ordered worker's
task, which lives as long as the connection, is the worker's own), `incoming` the requests being handled by id, so that `$/cancel_request` can reach them
(docs/wire.md §9).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import traceback
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import msgspec
from msgspec import Raw

from idlc_runtime.codec.decoders import decoder_for
from idlc_runtime.codec.hooks import OpenRecord
from idlc_runtime.codec.lenient import LenientDecoder
from idlc_runtime.errors import ErrorCode, RpcError, Unsupported
from idlc_runtime.rpc.dispatch import InputShape, MethodSpec, serving_tables
from idlc_runtime.rpc.eager import start_eagerly
from idlc_runtime.rpc.express import ExpressTable, express_table
from idlc_runtime.rpc.interceptors import CallInfo, Interceptor, Proceed, applies_to
from idlc_runtime.rpc.ordered import OrderedWorker
from idlc_runtime.rpc.outbox import Outbox
from idlc_runtime.rpc.replies import Replies
from idlc_runtime.rpc.wire import (
    RequestId,
    decode_any,
    decode_cancel,
    decode_target,
    encode_error,
    encode_result,
    validation_data,
)

log = logging.getLogger("idlc_runtime")

CANCEL_METHOD: Final = "$/cancel_request"
TOO_DEEP: Final = "JSON nested too deeply"
_EMPTY_OBJECT: Final = b"{}"

#: Answers a method the served object does not declare: `(method, params, notify)`, where
#: `params` is the plain JSON value (None when absent). Its result is sent back as is (for a
#: request); raising `Unsupported` keeps the usual -32601. Protocols with open-ended method
#: names use it, e.g. ACP's `_`-prefixed extension methods.
MethodFallback = Callable[[str, Any, bool], Awaitable[Any]]

#: Told of a notification whose params do not decode (docs/wire.md §4): `(method, params,
#: error)`, where `params` is the plain JSON value (None when absent) and `error` the -32602
#: a request would have been answered with. Without one, such a notification is logged at
#: WARNING; either way its handler does not run.
UndecodableNotificationHook = Callable[[str, Any, RpcError], None]

#: Called with the method of every incoming request before it is looked up or its params are
#: decoded (docs/wire.md §4); raising `RpcError` answers that error instead, so a protocol
#: that refuses everything until a handshake (ACP before `initialize`) answers every method
#: alike, known or not, decodable or not.
RequestAdmission = Callable[[str], None]


#: Decodes a method's params (`Raw`, or `b"{}"` for absent ones) into its input.
_Decode = Callable[[Raw | bytes], Any]


@dataclass(frozen=True, slots=True)
class _Served:
    implementation: object
    #: The members of every interface the object answers, by wire method, one table per
    #: kind: a request is looked up among requests only, a notification among
    #: notifications (docs/wire.md §4).
    requests: Mapping[str, MethodSpec]
    notifications: Mapping[str, MethodSpec]
    #: The wire methods of each kind the implementation answers itself; the others would
    #: only raise `Unsupported`, so they are answered -32601 before their params are even
    #: decoded.
    implemented_requests: frozenset[str]
    implemented_notifications: frozenset[str]
    #: The interceptors that wrap each method, outermost first (see `applies_to`).
    chains: Mapping[str, tuple[Interceptor, ...]]
    #: How the params of each method whose params are a record or a wrapped value decode
    #: (`decoder_for(spec.params_type).decode`), one table per kind as above.
    request_decoders: Mapping[str, _Decode]
    notification_decoders: Mapping[str, _Decode]


def _served(
    implementation: object, interceptors: tuple[Interceptor, ...], only_implemented: bool
) -> _Served:
    tables = serving_tables(implementation)
    requests, notifications = tables.requests, tables.notifications
    implemented_notifications = tables.implemented_notifications
    if only_implemented:
        # Members left to the skeleton's default are not served: the fallback gets them.
        requests = {wire: requests[wire] for wire in tables.implemented_requests}
        notifications = {wire: notifications[wire] for wire in implemented_notifications}
    chains = {wire: _chain(interceptors, wire) for wire in (*requests, *notifications)}
    if not only_implemented:
        # A notification left to the skeleton (whose default does nothing) still reaches
        # the interceptors that name it: they may act on it (idlc_acp's `TurnControl` ends
        # a turn on `session/cancel` whether or not the agent declares `cancel`). Only one
        # that nobody would see is dropped before its params are decoded.
        implemented_notifications = implemented_notifications | {
            wire for wire in notifications if chains[wire]
        }
    return _Served(
        implementation,
        requests,
        notifications,
        tables.implemented_requests,
        implemented_notifications,
        chains,
        _decoders(requests),
        _decoders(notifications),
    )


def _decoders(table: Mapping[str, MethodSpec]) -> dict[str, _Decode]:
    return {
        wire: decoder_for(spec.params_type).decode
        for wire, spec in table.items()
        if spec.shape is not InputShape.UNIT
    }


class _Direct(NamedTuple):
    """A notification of the root that the root's own member handles, in order, with no
    interceptor around it: nearly every notification. Found once, when the root is served,
    so that each such message is only decoded and handed to the ordered worker, without
    `_lookup` and `_invoke` (docs/benchmarks.md, "ACP SDK").

    `decode` turns the message's params into the member's input: msgspec's typed decode
    alone, even for a type with forward-compatible fields (`LenientDecoder.strict`); a
    message that fails it takes the general path, which decodes it leniently."""

    decode: _Decode
    invoke: Callable[[Any, Any], Awaitable[Any]]
    implementation: object


def _typed_decode(spec: MethodSpec) -> _Decode:
    """`_Direct.decode` of a member: its input's decoder (`_decoders`), without the
    lenient fallback."""
    if spec.shape is InputShape.UNIT:
        return _unit_params
    decoder = decoder_for(spec.params_type)
    return decoder.strict.decode if isinstance(decoder, LenientDecoder) else decoder.decode


def _direct_notifications(served: _Served, concurrent: frozenset[str]) -> dict[str, _Direct]:
    return {
        wire: _Direct(
            _typed_decode(spec),
            spec.invoke,
            served.implementation,
        )
        for wire, spec in served.notifications.items()
        if wire in served.implemented_notifications
        and wire not in concurrent
        and wire != CANCEL_METHOD
        and not served.chains[wire]
    }


def _unit_params(params: Raw | bytes) -> None:
    """A unit input's params: only checked to be an object (or null), as `_lookup` does."""
    decode_target(params)


def _chain(interceptors: tuple[Interceptor, ...], method: str) -> tuple[Interceptor, ...]:
    return tuple(interceptor for interceptor in interceptors if applies_to(interceptor, method))


class Handling:
    """Serves a root object and keyed objects to the other side's requests and
    notifications, and answers them through `replies`."""

    def __init__(
        self,
        replies: Replies,
        outbox: Outbox,
        *,
        interceptors: tuple[Interceptor, ...],
        fallback: MethodFallback | None,
        debug: bool,
        fallback_for_unimplemented: bool = False,
        on_undecodable_notification: UndecodableNotificationHook | None = None,
        admit_request: RequestAdmission | None = None,
        concurrent_notifications: Collection[str] = (),
    ) -> None:
        self._loop = asyncio.get_running_loop()
        self._replies = replies
        self._outbox = outbox
        self._interceptors = interceptors
        self._fallback = fallback
        self._only_implemented = fallback is not None and fallback_for_unimplemented
        self._debug = debug
        self._on_undecodable_notification = on_undecodable_notification
        self._admit_request = admit_request
        self._root: _Served | None = None
        #: The root's notifications that take the direct path (`_Direct`), by wire method.
        self._direct: dict[str, _Direct] = {}
        #: Those of them the express path takes (`rpc/express.py`).
        self.express: ExpressTable | None = None
        self._objects: dict[str, _Served] = {}
        #: The other side's calls being handled, by id, so they can be cancelled.
        self._incoming: dict[RequestId | None, asyncio.Task[None]] = {}
        #: Every handler's task still running after its first step (requests, and the
        #: notifications `concurrent_notifications` names), by a token its coroutine uses to
        #: remove itself.
        self.handlers: dict[int, asyncio.Task[None]] = {}
        self._next_token = 0
        #: Set once closing has begun: a cancelled handler then stops without answering.
        self.closed = False
        #: Called whenever a handler ends (the intake may take more lines then).
        self.on_handler_done: Callable[[], None] = _nothing
        #: Notifications are handled in order on this worker (docs/wire.md §13), except
        #: those of the methods in `concurrent_notifications`, each a task of its own.
        self.ordered = ordered = OrderedWorker(self._loop, outbox)
        ordered.on_handler_done = self._queued_notification_done
        ordered.on_worker = self._on_worker
        self._concurrent_notifications = frozenset(concurrent_notifications)

    # ---------------------------------------------------------------- what is served

    def serve_root(self, root: object | None) -> None:
        self._root = served = (
            _served(root, self._interceptors, self._only_implemented) if root is not None else None
        )
        if served is None:
            self._direct, self.express = {}, None
            return
        self._direct = _direct_notifications(served, self._concurrent_notifications)
        self.express = express_table(served.notifications, self._direct, served.implementation)

    def register(self, key: str, implementation: object) -> None:
        if key in self._objects:
            raise ValueError(f"an object is already registered under {key!r}")
        self._objects[key] = _served(implementation, self._interceptors, self._only_implemented)

    def unregister(self, key: str) -> None:
        self._objects.pop(key, None)

    def __len__(self) -> int:
        """The handlers counted against the bound: those running after their first step
        (the ordered worker as one while it carries a handler on), and the notifications
        waiting for the ordered worker."""
        ordered = self.ordered
        return len(self.handlers) + (ordered.running is not None) + ordered.waiting

    def _queued_notification_done(self) -> None:
        self.on_handler_done()

    def _on_worker(self, busy: bool) -> None:
        if not busy:
            self.on_handler_done()

    def unfinished(self) -> list[asyncio.Future[None]]:
        """What is still running after its first step: the handlers' tasks, and the ordered
        worker's queue until it is empty (its task lives as long as the connection)."""
        running: list[asyncio.Future[None]] = list(self.handlers.values())
        if self.ordered.running is not None:
            running.append(self.ordered.running)
        return running

    def cancel_all(self) -> list[asyncio.Task[None]]:
        """Cancel every running handler and stop the ordered worker; the tasks, to wait for."""
        handlers = list(self.handlers.values())
        for task in handlers:
            task.cancel()
        worker = self.ordered.close()
        if worker is not None:
            handlers.append(worker)
        return handlers

    # ---------------------------------------------------------------- incoming messages

    def on_request(self, id: RequestId | None, method: str, params: Raw, targeted: bool) -> None:
        if id in self._incoming:
            self.send_error(
                id, ErrorCode.INVALID_REQUEST, f"Invalid request: id {id!r} is already in use"
            )
            return
        try:
            if self._admit_request is not None:
                self._admit_request(method)
            served, spec, decoded, target = self._lookup(method, params, targeted)
        except RpcError as error:
            self._replies.write(self._encode_rpc_error(id, error))
            return
        self._next_token += 1
        token = self._next_token
        task = start_eagerly(
            self._loop, self._answer(token, id, served, spec, decoded, target), self._outbox
        )
        if task is not None:
            self._incoming[id] = task
            self.handlers[token] = task

    def on_notification(self, method: str, params: Raw, targeted: bool) -> None:
        direct = None if targeted else self._direct.get(method)
        if direct is not None:
            try:
                decoded = direct.decode(params if params else _EMPTY_OBJECT)
            except _UNDECODABLE:
                pass  # the path below decodes them again: leniently, or to say why not
            else:
                self.ordered.notification(method, direct.invoke, direct.implementation, decoded)
                return
        if method == CANCEL_METHOD:
            self._on_cancel(params)
            return
        try:
            served, spec, decoded, target = self._lookup(method, params, targeted, True)
        except RpcError as error:
            if error.code == ErrorCode.INVALID_PARAMS:
                self._undecodable_notification(method, params, error)
                return
            level = logging.DEBUG if error.code == ErrorCode.METHOD_NOT_FOUND else logging.WARNING
            log.log(level, "ignored notification %s: %s", method, error)
            return
        invoke = self._intercepted(served, spec, target)
        if method not in self._concurrent_notifications:
            self.ordered.notification(method, invoke, served.implementation, decoded)
            return
        self._next_token += 1
        token = self._next_token
        task = start_eagerly(
            self._loop,
            self._consume(token, method, invoke, served.implementation, decoded),
            self._outbox,
        )
        if task is not None:
            self.handlers[token] = task

    def _undecodable_notification(self, method: str, params: Raw, error: RpcError) -> None:
        hook = self._on_undecodable_notification
        if hook is None:
            log.warning("ignored notification %s: %s", method, error)
            return
        try:
            value = decode_any(params) if params else None
        except (msgspec.DecodeError, RecursionError):
            value = None  # read once already, so only nesting too deep for a second read
        try:
            hook(method, value, error)
        except Exception:
            log.exception("the undecodable-notification hook failed on %s", method)

    def send_error(
        self, id: RequestId | None, code: int, message: str, data: object = None
    ) -> None:
        self._replies.write(encode_error(id, code, message, data))

    # ---------------------------------------------------------------- lookup

    def _lookup(
        self, method: str, params: Raw, targeted: bool, notify: bool = False
    ) -> tuple[_Served, MethodSpec, Any, str | None]:
        """Find the object and member a call is for and decode its params, or raise RpcError.

        A try/except around it all rather than a context manager or a helper: it costs
        nothing on the path every call takes."""
        try:
            target = decode_target(params) if targeted and params else None
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
            if notify:
                spec = served.notifications.get(method)
                implemented = served.implemented_notifications
                decoders = served.notification_decoders
            else:
                spec = served.requests.get(method)
                implemented = served.implemented_requests
                decoders = served.request_decoders
            if spec is not None and method not in implemented:
                raise Unsupported(method, f"Method not found: {method}")
            if spec is None:
                fallback = self._fallback
                if fallback is None or method == CANCEL_METHOD:
                    raise Unsupported(method, f"Method not found: {method}")
                value = decode_any(params) if params else None
                return served, _fallback_spec(method, fallback, notify), value, target
            decode = decoders.get(method)
            if decode is None:  # a unit input
                if params and not targeted:
                    decode_target(params)  # only checks that params is an object (or null)
                return served, spec, None, target
            decoded = decode(params if params else _EMPTY_OBJECT)
            if targeted and isinstance(decoded, OpenRecord):
                # `$target` addressed this call (docs/wire.md §5): not the record's member.
                decoded.extra.pop("$target", None)
            return served, spec, decoded, target
        except _UNDECODABLE as error:
            raise _invalid_params(error) from None

    def _on_cancel(self, params: Raw) -> None:
        try:
            request_id = decode_cancel(params if params else _EMPTY_OBJECT).request_id
        except msgspec.ValidationError as error:
            log.warning("ignored %s: %s", CANCEL_METHOD, error)
            return
        except RecursionError:
            log.warning("ignored %s: %s", CANCEL_METHOD, TOO_DEEP)
            return
        task = self._incoming.get(request_id)
        if task is not None:
            task.cancel()

    # ---------------------------------------------------------------- invoking

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
        batch = self._replies.batch
        if batch is not None:
            batch.expect()
        try:
            try:
                result = await self._invoke(served, spec, params, target, False)
                message = encode_result(id, result)
            except asyncio.CancelledError:
                if self.closed:
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
            outbox = self._outbox
            if batch is None:
                flushed = outbox.send(message)
            else:
                batch.answer(message)
                flushed = outbox.flushed()
            if not flushed:
                await outbox.drain()
        except ConnectionError as error:
            log.debug("could not answer %s: %r", spec.wire, error)
        finally:
            self._incoming.pop(id, None)
            self._handler_done(token)

    def _intercepted(
        self, served: _Served, spec: MethodSpec, target: str | None
    ) -> Callable[[Any, Any], Awaitable[Any]]:
        """How a notification found by `_lookup` is invoked: through its interceptors."""

        def invoke(implementation: object, params: Any) -> Any:
            return self._invoke(served, spec, params, target, True)

        return invoke

    async def _consume(
        self,
        token: int,
        wire: str,
        invoke: Callable[[Any, Any], Awaitable[Any]],
        implementation: object,
        params: Any,
    ) -> None:
        try:
            await self._notified(wire, invoke, implementation, params)
        finally:
            self._handler_done(token)

    async def _notified(
        self,
        wire: str,
        invoke: Callable[[Any, Any], Awaitable[Any]],
        implementation: object,
        params: Any,
    ) -> None:
        """Handle a notification: `await invoke(implementation, params)`; what its handler
        raises is logged, never raised, so the next one (on the ordered worker) runs all the
        same."""
        try:
            await invoke(implementation, params)
        except asyncio.CancelledError:
            if self.closed:
                raise
        except RpcError as error:
            log.debug("notification %s answered an error: %s", wire, error)
        except Exception:
            log.exception("notification handler %s failed", wire)

    def _handler_done(self, token: int) -> None:
        # A handler that finished in its first step never held a slot; it ran while lines
        # were being taken, so there is nothing held back for it to release.
        if self.handlers.pop(token, None) is not None:
            self.on_handler_done()

    # ---------------------------------------------------------------- error answers

    def _encode_rpc_error(self, id: RequestId | None, error: RpcError) -> bytes:
        try:
            return encode_error(id, error.code, error.message, error.data)
        except (TypeError, msgspec.EncodeError):
            log.error("the data of %r cannot be encoded; it is left out", error)
            return encode_error(id, error.code, error.message)

    def _internal_error(self, id: RequestId | None, method: str, error: Exception) -> bytes:
        log.error("handler of %s failed", method, exc_info=error)
        if not self._debug:
            return encode_error(id, ErrorCode.INTERNAL_ERROR, "Internal error")
        detail = "".join(traceback.format_exception(error))
        return encode_error(
            id,
            ErrorCode.INTERNAL_ERROR,
            f"Internal error: {type(error).__name__}: {error}",
            {"traceback": detail},
        )


def _nothing() -> None:
    return None


#: What decoding params may raise: a `ValidationError` (a `DecodeError` too), a
#: `DecodeError`, or a `RecursionError` for JSON nested deeper than the decoder goes.
_UNDECODABLE: Final = (msgspec.DecodeError, RecursionError)


def _invalid_params(error: BaseException) -> RpcError:
    """The -32602 for params that do not decode (with the JSON path when msgspec gives one)."""
    if isinstance(error, msgspec.ValidationError):
        return RpcError(
            ErrorCode.INVALID_PARAMS, f"Invalid params: {error}", validation_data(error)
        )
    if isinstance(error, RecursionError):
        return RpcError(ErrorCode.INVALID_PARAMS, f"Invalid params: {TOO_DEEP}")
    return RpcError(ErrorCode.INVALID_PARAMS, f"Invalid params: {error}")


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
