"""Our calls to the other side that await their response, by id (docs/wire.md §3)."""

from __future__ import annotations

import asyncio
import logging

import msgspec
from msgspec import Raw

from idlc_runtime.errors import ConnectionClosed, ProtocolError, RpcError
from idlc_runtime.rpc.handling import TOO_DEEP
from idlc_runtime.rpc.ordered import IN_ORDER, OrderedWorker
from idlc_runtime.rpc.wire import RequestId, decode_error, validation_data

log = logging.getLogger("idlc_runtime")


class PendingCalls:
    """Numbers our requests and resolves each with the response that carries its id, once
    the notifications that arrived before that response have been handled (`ordered`)."""

    def __init__(self, ordered: OrderedWorker) -> None:
        self._loop = asyncio.get_running_loop()
        self._ordered = ordered
        #: The calls made by a notification handler on the ordered worker (or a task it
        #: started): their answers never wait for the worker, which waits for them.
        self._in_order: set[RequestId] = set()
        self._pending: dict[RequestId, asyncio.Future[Raw]] = {}
        self._next_id = 0

    def open(self) -> tuple[int, asyncio.Future[Raw]]:
        """A new id and the future its response resolves."""
        self._next_id += 1
        id = self._next_id
        future: asyncio.Future[Raw] = self._loop.create_future()
        self._pending[id] = future
        if IN_ORDER.get():
            self._in_order.add(id)
        return id, future

    def forget(self, id: RequestId) -> bool:
        """Stop waiting for `id`; True if it was still awaited."""
        self._in_order.discard(id)
        return self._pending.pop(id, None) is not None

    def on_response(self, id: RequestId | None, result: Raw, error: Raw) -> None:
        future = self._pending.pop(id, None) if id is not None else None
        if future is None or future.done():
            # Usually the answer to a call we cancelled meanwhile.
            log.debug("response to no pending request (id %r)", id)
            return
        if error:
            self._deliver(id, future, None, error)
        else:
            self._deliver(id, future, result, None)

    def fail(self, id: RequestId | None, error: ProtocolError, otherwise: str) -> None:
        """A response that cannot be read fails the call it answers (never answered itself)."""
        future = self._pending.pop(id, None) if id is not None else None
        if future is not None and not future.done():
            self._deliver(id, future, None, error)
        else:
            log.warning("%s (no pending call has id %r)", otherwise, id)

    def _deliver(
        self,
        id: RequestId | None,
        future: asyncio.Future[Raw],
        result: Raw | None,
        error: Raw | ProtocolError | None,
    ) -> None:
        """Resolve `future` after the notifications that arrived before its answer, or at
        once if its caller is one of them (docs/wire.md §13)."""
        in_order = self._in_order
        if in_order and id in in_order:
            in_order.discard(id)
            _resolve(future, result, error)
        elif not self._ordered.busy:
            _resolve(future, result, error)  # the common case: nothing to wait for
        else:
            self._ordered.after_preceding(lambda: _resolve(future, result, error))

    def fail_all(self) -> None:
        """Nothing more will be read: every call still waiting fails (answers that arrived
        and wait behind notifications are delivered first)."""
        self._ordered.flush_answers()
        for id, future in self._pending.items():
            if not future.done():
                future.set_exception(
                    ConnectionClosed(f"the connection closed before request {id} was answered")
                )
        self._pending.clear()
        self._in_order.clear()


def _resolve(
    future: asyncio.Future[Raw], result: Raw | None, error: Raw | ProtocolError | None
) -> None:
    if future.done():
        return  # its caller was cancelled while the answer waited
    if isinstance(error, ProtocolError):
        future.set_exception(error)
    elif error is not None:
        future.set_exception(_remote_error(error))
    else:
        assert result is not None
        future.set_result(result)


def _remote_error(raw: Raw) -> RpcError:
    try:
        error = decode_error(raw)
    except msgspec.ValidationError as problem:
        return ProtocolError(f"Malformed error response: {problem}", validation_data(problem))
    except RecursionError:
        return ProtocolError(f"Malformed error response: {TOO_DEEP}")
    return RpcError(error.code, error.message, error.data)
