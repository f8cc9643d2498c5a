"""Our calls to the other side that await their response, by id (docs/wire.md §3)."""

from __future__ import annotations

import asyncio
import logging

import msgspec
from msgspec import Raw

from idlc_runtime.errors import ConnectionClosed, ProtocolError, RpcError
from idlc_runtime.rpc.handling import TOO_DEEP
from idlc_runtime.rpc.wire import RequestId, decode_error, validation_data

log = logging.getLogger("idlc_runtime")


class PendingCalls:
    """Numbers our requests and resolves each with the response that carries its id."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._pending: dict[RequestId, asyncio.Future[Raw]] = {}
        self._next_id = 0

    def open(self) -> tuple[int, asyncio.Future[Raw]]:
        """A new id and the future its response resolves."""
        self._next_id += 1
        id = self._next_id
        future: asyncio.Future[Raw] = self._loop.create_future()
        self._pending[id] = future
        return id, future

    def forget(self, id: RequestId) -> bool:
        """Stop waiting for `id`; True if it was still awaited."""
        return self._pending.pop(id, None) is not None

    def on_response(self, id: RequestId | None, result: Raw, error: Raw) -> None:
        future = self._pending.pop(id, None) if id is not None else None
        if future is None or future.done():
            # Usually the answer to a call we cancelled meanwhile.
            log.debug("response to no pending request (id %r)", id)
            return
        if error:
            future.set_exception(_remote_error(error))
        else:
            future.set_result(result)

    def fail(self, id: RequestId | None, error: ProtocolError, otherwise: str) -> None:
        """A response that cannot be read fails the call it answers (never answered itself)."""
        future = self._pending.pop(id, None) if id is not None else None
        if future is not None and not future.done():
            future.set_exception(error)
        else:
            log.warning("%s (no pending call has id %r)", otherwise, id)

    def fail_all(self) -> None:
        """Nothing more will be read: every call still waiting fails."""
        for id, future in self._pending.items():
            if not future.done():
                future.set_exception(
                    ConnectionClosed(f"the connection closed before request {id} was answered")
                )
        self._pending.clear()


def _remote_error(raw: Raw) -> RpcError:
    try:
        error = decode_error(raw)
    except msgspec.ValidationError as problem:
        return ProtocolError(f"Malformed error response: {problem}", validation_data(problem))
    except RecursionError:
        return ProtocolError(f"Malformed error response: {TOO_DEEP}")
    return RpcError(error.code, error.message, error.data)
