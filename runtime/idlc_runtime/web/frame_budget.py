"""One bound on the WebSocket frames a server is receiving, over all its connections.

The ASGI servers build each message in full before the application sees it (uvicorn's
`websockets` and hypercorn's `wsproto` alike), each up to the frame limit: many connections
sending large frames at once add up without limit (8 frames of 49 MiB took a server past
1.2 GiB). The connections of one server share a `FrameBudget`: each reports the bytes it
has received since its last complete message (what the server library holds for the
message it is building), and while the total is over the limit the connection holding the
most is closed with 1009 ("message too big", RFC 6455 §7.4.1) and the reason
`refusal_reason` gives (docs/web.md, "Limits and timeouts"). The largest holder goes first,
so a client trickling a huge frame cannot keep everyone else's small messages out.

Once a message is complete it is the application's: the runtime's `InputBudget` counts the
frames a peer holds back (docs/wire.md §11). The total held here stays under the limit plus
one read per connection (a connection counts what it read before the budget is told).
"""

from __future__ import annotations

from typing import Final, Protocol

from idlc_runtime.transports.ledger import HeldBytes

#: The bytes of incomplete WebSocket messages a server holds over all its connections.
DEFAULT_FRAME_BUDGET: Final = 128 * 1024 * 1024
#: The close code of a connection refused by the budget (RFC 6455: message too big).
MESSAGE_TOO_BIG: Final = 1009
#: Seconds a refused connection stays open for its client to close it (what it sends
#: meanwhile is read and dropped: closing with unread input would reset the connection
#: and could lose the close frame).
REFUSED_LINGER: Final = 10.0


class FrameHolder(Protocol):
    """A connection receiving frames: the budget may refuse it."""

    def refuse_over_budget(self, reason: str) -> None:
        """Close the connection with 1009 and `reason`, and receive no more of it."""
        ...


def refusal_reason(held: int, limit: int) -> str:
    """The close reason of a connection refused by the budget (under the 123 bytes a close
    frame allows): how much it held, and the server's budget."""
    return f"server frame budget exhausted: {held} bytes held, budget {limit}"


class FrameBudget:
    """The bytes of incomplete WebSocket messages held by all connections of one server."""

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError(f"the frame budget must be positive, not {limit}")
        self.limit = limit
        #: Connections refused so far.
        self.refused = 0
        self._held: HeldBytes[FrameHolder] = HeldBytes()

    @property
    def held(self) -> int:
        """The bytes held now, over all connections."""
        return self._held.total

    @property
    def peak(self) -> int:
        """The most ever held at once, for monitoring (and the tests)."""
        return self._held.peak

    def update(self, holder: FrameHolder, held: int) -> None:
        """`holder` now holds `held` bytes of an incomplete message (0: none). While the
        total is over the limit, the largest holder is refused (it may be `holder`)."""
        held_bytes = self._held
        held_bytes.set(holder, held)
        while held_bytes.total > self.limit:
            largest = held_bytes.largest()
            size = held_bytes.pop(largest)
            self.refused += 1
            largest.refuse_over_budget(refusal_reason(size, self.limit))

    def release(self, holder: FrameHolder) -> None:
        """`holder` is gone (or refused): what it held is free."""
        self._held.pop(holder)

    def holds(self, holder: FrameHolder) -> bool:
        """Whether `holder` is counted (it was neither released nor refused)."""
        return holder in self._held
