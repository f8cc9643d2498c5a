"""One streamable-HTTP connection: an agent's `Peer` fed by POSTs, read by SSE streams.

The peer (or, when the server serves v2 too, the `ProtocolRouter` choosing it:
`idlc_acp.web.agents`) runs on a message channel (`idlc_runtime.transports.channel`), as over WebSocket: every POST
body is one frame received, every message the agent sends is one frame, routed to a
`Mailbox` (docs/acp-remote.md, "Streamable HTTP"):

- the answer to `initialize` goes back in the body of the POST that carried it (an error
  answered with id null too: before that answer, the POST's `initialize` is the only
  message the connection has had, so it is that message's);
- the answer to a request goes where that request's session is read: the stream of the
  session named by its `Acp-Session-Id` header (or `params.sessionId`), else the
  connection's stream;
- a request or notification to the client goes to the stream of the session in its
  `params.sessionId`, else the connection's stream;
- a session stream not open (yet, or any more) sends its messages to the connection's
  stream: the client reads them all as one sequence, so nothing is lost by the detour.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, Final

import msgspec

from idlc_acp.web.agents import ConnectionAgents
from idlc_acp.web.mailbox import Mailbox, text_cost
from idlc_runtime import PeerOptions
from idlc_runtime.transports.budget import InputBudget
from idlc_runtime.transports.channel import ChannelSource, ChannelWriter, Frame

log = logging.getLogger("idlc_acp")

#: POST bodies received and not yet taken by the peer, in count and in bytes (one larger
#: message alone); past these, POSTs wait (backpressure).
INBOUND_QUEUE: Final = 16
INBOUND_BYTES: Final = 4 * 1024 * 1024
#: Bytes of the POST bodies of one connection waiting for room (one larger message alone);
#: past this, a POST is refused 503: waiting, each would hold its body (an agent whose
#: client reads none of its answers stops taking messages, and the POSTs pile up).
INBOUND_WAITING: Final = 16 * 1024 * 1024


class AgentBehind(Exception):
    """A POST refused because the agent is not taking messages and too many wait."""


class _Envelope(msgspec.Struct):
    """What routing needs of a message: is it a response (no method), its id, its session."""

    id: Any = None
    method: Any = None
    params: Any = None


_envelope = msgspec.json.Decoder(_Envelope)


def session_of(params: Any) -> str | None:
    """`params.sessionId` when params is an object with a string one."""
    if isinstance(params, dict):
        value = params.get("sessionId")
        if isinstance(value, str):
            return value
    return None


def id_key(value: Any) -> str | None:
    """A request id as a dictionary key that keeps 1 and "1" apart."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return f"n:{value}"
    if isinstance(value, str):
        return f"s:{value}"
    return None


class HttpConnection:
    """The agent serving one `Acp-Connection-Id`, and the mailboxes of its streams."""

    def __init__(
        self,
        connection_id: str,
        secret: str,
        agents: ConnectionAgents,
        *,
        options: PeerOptions | None,
        budget: InputBudget | None,
        idle_timeout: float | None,
        on_closed: Callable[[HttpConnection], None],
    ) -> None:
        self.id = connection_id
        #: What every request of this connection carries besides its id (docs/acp-remote.md).
        self.secret = secret
        max_message_size = (options or PeerOptions()).max_message_size
        self._inbound = Mailbox(INBOUND_QUEUE, INBOUND_BYTES)
        #: The bytes of POST bodies waiting for room in `_inbound`.
        self._waiting = 0
        #: The POSTs whose messages the agent's peer has not handled yet, by id(text).
        self._untaken: dict[int, asyncio.Future[None]] = {}
        #: The POST of the message the peer is handling now, let go at the next receive.
        self._handed: asyncio.Future[None] | None = None
        #: The connection-scoped stream's mailbox.
        self.main = Mailbox()
        #: Session id → its stream's mailbox (while a stream is attached or has messages).
        self.sessions: dict[str, Mailbox] = {}
        #: Request id (id_key) → the session its answer goes to.
        self._answer_to: dict[str, str] = {}
        #: The id of the `initialize` whose answer a POST waits for, and that answer.
        self._initialize: tuple[str, asyncio.Future[str]] | None = None
        self._on_closed = on_closed
        self._closing = False
        self._idle_timeout = idle_timeout
        self._last_activity = time.monotonic()
        #: POSTs being handled and streams attached: while any, the connection is not idle.
        self.busy = 0
        self._closer: asyncio.Task[None] | None = None
        writer = ChannelWriter(self._send, self._channel_closed)
        source = ChannelSource(self._receive, max_message_size, writer=writer, budget=budget)
        #: The agent's peer, or the router choosing it (`idlc_acp.web.agents`).
        self.served = agents.start(source, writer)
        loop = asyncio.get_running_loop()
        self._ended = loop.create_task(self._wait_ended(), name="idlc-acp-http-connection")
        self._watchdog = (
            loop.create_task(self._watch_idle(), name="idlc-acp-http-idle")
            if idle_timeout is not None
            else None
        )

    @property
    def closed(self) -> bool:
        return self._closing

    async def wait_closed(self) -> None:
        """Return once the connection has ended (DELETE, idle timeout, shutdown)."""
        await asyncio.wait([self._ended])

    def touch(self) -> None:
        self._last_activity = time.monotonic()

    # ------------------------------------------------------------------ inbound

    async def deliver(self, text: str, message: dict[str, Any], session_id: str | None) -> None:
        """Hand one client message to the agent (waits while the agent is behind)."""
        if "method" in message and "id" in message:
            key = id_key(message["id"])
            target = session_id or session_of(message.get("params"))
            if key is not None and target is not None:
                self._answer_to[key] = target
        await self._put(text)

    async def initialize(self, text: str, request_id: Any) -> str:
        """Hand `initialize` to the agent and return its answer's JSON text."""
        key = id_key(request_id) or "null"
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._initialize = (key, answer)
        await self._put(text)
        ended = asyncio.ensure_future(asyncio.shield(self._ended))
        either: list[asyncio.Future[Any]] = [answer, ended]
        try:
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
        if not answer.done():
            raise ConnectionResetError("the connection closed before initialize was answered")
        return answer.result()

    async def _put(self, text: str) -> None:
        if self._closing:
            raise ConnectionResetError("the connection is closed")
        cost = text_cost(text)
        if self._waiting and self._waiting + cost > INBOUND_WAITING:
            raise AgentBehind(
                f"the agent is not taking messages: {self._waiting} bytes of them wait "
                f"(limit {INBOUND_WAITING}); retry later"
            )
        self._waiting += cost
        taken = asyncio.get_running_loop().create_future()
        # By identity: each POST's text is its own object, alive while it is queued.
        self._untaken[id(text)] = taken
        put = asyncio.ensure_future(self._inbound.put(text))
        ended = asyncio.ensure_future(asyncio.shield(self._ended))
        try:
            await asyncio.wait([put, ended], return_when=asyncio.FIRST_COMPLETED)
            self._waiting -= cost
            cost = 0
            if put.done() and not self._closing:
                # Returning lets the POST's body go (and its place in the input budget):
                # only once the agent's peer has handled the message, so that bodies
                # queued for agents that are behind count, and those being parsed.
                await asyncio.wait([taken, ended], return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
            self._waiting -= cost
            self._untaken.pop(id(text), None)
        if not put.done():
            put.cancel()
        if not taken.done():
            # (A mailbox closed while the message waited drops it.)
            raise ConnectionResetError("the connection is closed")

    async def _receive(self) -> Frame | None:
        # The channel asks for the next message once the peer has handled the last one
        # (parsed it, started its handler): only then does the last one's POST let go.
        handed, self._handed = self._handed, None
        if handed is not None and not handed.done():
            handed.set_result(None)
        text = await self._inbound.get()
        if text is not None:
            self._handed = self._untaken.pop(id(text), None)
        return text

    # ------------------------------------------------------------------ outbound

    async def _send(self, text: str) -> None:
        try:
            envelope = _envelope.decode(text)
        except msgspec.DecodeError:
            await self.main.put(text)
            return
        if envelope.method is None:
            key = id_key(envelope.id)
            waiting = self._initialize
            if (
                waiting is not None
                and (key == waiting[0] or envelope.id is None)
                and not waiting[1].done()
            ):
                self._initialize = None
                waiting[1].set_result(text)
                return
            target = self._answer_to.pop(key, None) if key is not None else None
        else:
            target = session_of(envelope.params)
        await self.mailbox_for(target).put(text)

    def mailbox_for(self, session_id: str | None) -> Mailbox:
        """Where a message of `session_id` goes now: its stream's, if one reads it."""
        if session_id is not None:
            box = self.sessions.get(session_id)
            if box is not None and box.attached:
                return box
        return self.main

    def session_mailbox(self, session_id: str) -> Mailbox:
        box = self.sessions.get(session_id)
        if box is None or box.closed:
            box = self.sessions[session_id] = Mailbox()
        return box

    def detach(self, session_id: str | None, box: Mailbox) -> None:
        """A stream went away: its mailbox is not read any more."""
        box.attached = False
        self.busy -= 1
        self.touch()
        if session_id is not None and not self._closing:
            box.drain_into(self.main)
            if self.sessions.get(session_id) is box:
                del self.sessions[session_id]

    async def _channel_closed(self) -> None:
        self._close_mailboxes()

    # ------------------------------------------------------------------ ending

    async def close(self) -> None:
        """Close the connection: the agent stops, the streams end (DELETE, idle, shutdown)."""
        if not self._closing:
            self._closing = True
            self._inbound.close()
        await self.served.close()
        self._close_mailboxes()
        await asyncio.wait([self._ended])

    def _close_mailboxes(self) -> None:
        self.main.close()
        for box in self.sessions.values():
            box.close()

    async def _wait_ended(self) -> None:
        try:
            await self.served.wait_closed()
        finally:
            self._closing = True
            self._close_mailboxes()
            if self._watchdog is not None:
                self._watchdog.cancel()
            self._on_closed(self)

    async def _watch_idle(self) -> None:
        """Close the connection once nothing has used it for `idle_timeout` seconds."""
        timeout = self._idle_timeout
        assert timeout is not None
        while True:
            wait = self._last_activity + timeout - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            if self.busy:
                self.touch()
                continue
            log.info("ACP HTTP connection %s idle for %.0f s: closed", self.id, timeout)
            # A task of its own: closing cancels this watchdog. Kept, so it is not collected.
            self._closer = asyncio.get_running_loop().create_task(self.close())
            return
