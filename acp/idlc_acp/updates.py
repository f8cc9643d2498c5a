"""A client's `session/update`s, routed to whoever waits for a session's updates.

    turn = agent.turn(PromptRequest(session_id=sid, prompt=[...]))
    async for update in turn:          # this session's updates, in order, until the answer
        show(update)
    print(turn.response.stop_reason)

Each connection's `UpdateRouter` hands every notification to the streams of its session
before the client's own `update` handler runs, so the client still sees every update. It is
reached in one of two ways: a client deriving from `idlc_acp.Client` carries a dispatch
table whose `session/update` entry routes first (`routing_update`, which finds the router
of the connection the call came on), which costs a dictionary look-up per update; any other
client gets the router as an interceptor, which the runtime wraps around each call. The
runtime starts handlers in the order their messages arrive (see `idlc_runtime.rpc.eager`), so
every update the agent sent before its answer is in the stream before the stream ends: the
iteration stops exactly at the turn's stop reason.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from collections.abc import Awaitable
from typing import Any, Generic, TypeVar

from idlc_acp import protocol
from idlc_acp.protocol import SessionNotification, SessionUpdate
from idlc_runtime import CallInfo, Peer, Proceed, current_peer

Result = TypeVar("Result")


class UpdateRouter:
    """Interceptor: routes each `session/update` to the open streams of its session."""

    #: The only calls it wraps (`idlc_runtime.rpc.interceptors.applies_to`); others skip it.
    methods = frozenset({"session/update"})

    def __init__(self) -> None:
        self._streams: dict[str, set[UpdateStream[Any]]] = {}

    def open(self, session_id: str, call: Awaitable[Result]) -> UpdateStream[Result]:
        """A stream of `session_id`'s updates that ends when `call` (a request about that
        session, not yet sent) answers. Call it where the loop runs: it starts `call`."""
        stream: UpdateStream[Result] = UpdateStream(session_id)
        self._streams.setdefault(session_id, set()).add(stream)
        _streaming.add(self)
        task = asyncio.ensure_future(call)
        stream._attach(task, lambda: self._close(stream))
        return stream

    def _close(self, stream: UpdateStream[Any]) -> None:
        streams = self._streams.get(stream.session_id)
        if streams is None:
            return
        streams.discard(stream)
        if not streams:
            del self._streams[stream.session_id]
            if not self._streams:
                _streaming.discard(self)

    def watching(self, session_id: str) -> bool:
        """Whether a stream takes `session_id`'s updates now."""
        return session_id in self._streams

    def route(self, notification: SessionNotification) -> int:
        """Hands `notification` to its session's streams; how many took it."""
        streams = self._streams.get(notification.session_id, ())
        for stream in streams:
            stream._put(notification.update)
        return len(streams)

    def __call__(self, call: CallInfo, proceed: Proceed) -> Awaitable[Any]:
        # A plain function handing back the handler's awaitable: no coroutine of its own for
        # each update, and the routing happens in the order the notifications arrived.
        if call.method == "session/update":
            self.route(call.params)
        return proceed()


#: The router of each client connection, for `routing_update`.
_routers: weakref.WeakKeyDictionary[Peer, UpdateRouter] = weakref.WeakKeyDictionary()
#: The routers that have a stream open: while there are none, an update costs no look-up.
_streaming: set[UpdateRouter] = set()


def attach_router(peer: Peer, router: UpdateRouter) -> None:
    """Makes `router` the one `routing_update` uses for calls that come on `peer`."""
    _routers[peer] = router


def routing_update(implementation: protocol.Client, params: SessionNotification) -> Awaitable[None]:
    """The dispatch entry of `session/update` for `idlc_acp.Client`: routes, then gives the
    handler's coroutine (a function, not a coroutine of its own: one frame less on the path
    of every update)."""
    # While the notification is taken in: still in the order the notifications arrived.
    if _streaming:
        router = _routers.get(current_peer())
        if router is not None:
            router.route(params)
    return implementation.update(params)


class UpdateStream(Generic[Result]):
    """The updates of one session while one request about it runs; then its answer.

    Iterate it for the updates (`SessionUpdate`s, in the order the agent sent them); the
    iteration ends after the last update sent before the answer, and raises the request's
    error if it failed. `await stream.result()` is the answer (waiting for it if needed);
    `stream.response` the answer once the iteration has ended.
    """

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._queue: deque[SessionUpdate] = deque()
        self._wakeup: asyncio.Event = asyncio.Event()
        self._task: asyncio.Task[Result] | None = None

    def _attach(self, task: asyncio.Task[Result], close: Any) -> None:
        self._task = task

        def finished(_: asyncio.Task[Result]) -> None:
            close()
            self._wakeup.set()

        task.add_done_callback(finished)

    def _put(self, update: SessionUpdate) -> None:
        self._queue.append(update)
        self._wakeup.set()

    @property
    def done(self) -> bool:
        """Whether the request has answered (updates may still be waiting in the stream)."""
        return self._task is not None and self._task.done()

    @property
    def response(self) -> Result:
        """The request's answer; raises its error, or `RuntimeError` if it has not answered."""
        task = self._require_task()
        if not task.done():
            raise RuntimeError("the request has not answered yet")
        return task.result()

    async def result(self) -> Result:
        """Waits for the request's answer (the updates stay in the stream)."""
        return await self._require_task()

    def cancel(self) -> None:
        """Stops waiting for the answer (sends `$/cancel_request`); for a prompt turn, prefer
        `session/cancel`, which lets the agent answer `cancelled`."""
        self._require_task().cancel()

    def __aiter__(self) -> UpdateStream[Result]:
        return self

    async def __anext__(self) -> SessionUpdate:
        task = self._require_task()
        while not self._queue:
            if task.done():
                task.result()  # the request's error, if it failed
                raise StopAsyncIteration
            self._wakeup.clear()
            await self._wakeup.wait()
        return self._queue.popleft()

    def _require_task(self) -> asyncio.Task[Result]:
        if self._task is None:
            raise RuntimeError("an UpdateStream comes from UpdateRouter.open")
        return self._task
