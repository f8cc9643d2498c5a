"""One bound on the input a server buffers across all its connections (docs/wire.md §11).

Each connection may hold one incomplete message of up to `max_message_size` bytes; many
connections doing so at once would add up without limit. The connections of one server
share an `InputBudget`: each reports how many bytes of incomplete messages it holds after
every read, and while the total is over the limit a connection that holds some stops
reading (backpressure: the rest waits in the socket, then in the sender).

One connection at a time may go over the limit — it holds the *overdraft* until its message
is complete. Without it, connections each holding part of a message could wait on each
other for ever; with it, some message always completes. So the total stays under the limit
plus one message, plus the one read (at most 256 KiB) each connection makes before it is
paused.
"""

from __future__ import annotations

from collections import deque

from idlc_runtime.transports.contract import BudgetHolder
from idlc_runtime.transports.ledger import HeldBytes


class InputBudget:
    """The bytes of incomplete messages buffered by all connections of one server."""

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError(f"the input budget must be positive, not {limit}")
        self.limit = limit
        self._held: HeldBytes[BudgetHolder] = HeldBytes()
        self._overdraft: BudgetHolder | None = None
        #: Paused holders, first paused first resumed.
        self._waiting: deque[BudgetHolder] = deque()

    @property
    def held(self) -> int:
        """The bytes held now, over all connections."""
        return self._held.total

    @property
    def peak(self) -> int:
        """The most ever held at once: what the bound is about, for monitoring."""
        return self._held.peak

    def update(self, holder: BudgetHolder, held: int, completed: bool) -> None:
        """`holder` now holds `held` bytes; `completed` says whether it finished a message
        since the last update. Pauses it if it must wait for others."""
        self._held.set(holder, held)
        if holder is self._overdraft and (completed or held == 0):
            self._overdraft = None
        self._wake()
        if held == 0 or self._held.total <= self.limit or holder in self._waiting:
            return
        if self._overdraft is None:
            self._overdraft = holder
        elif self._overdraft is not holder:
            self._waiting.append(holder)
            holder.budget_pause()

    def settle(self, holder: BudgetHolder, held: int) -> None:
        """`holder` holds `held` bytes of complete messages it has yet to hand over (a POST
        body read whole, waiting for its agent): they count, but `holder` reads no more,
        so it is never paused and never holds the overdraft, which another may need to
        finish the message that lets `holder` hand its own over."""
        self._held.set(holder, held)
        if holder in self._waiting:
            self._waiting.remove(holder)
        if holder is self._overdraft:
            self._overdraft = None
        self._wake()

    def release(self, holder: BudgetHolder) -> None:
        """`holder` is gone: what it held is free."""
        self._held.pop(holder)
        if holder in self._waiting:
            self._waiting.remove(holder)
        if holder is self._overdraft:
            self._overdraft = None
        self._wake()

    def _wake(self) -> None:
        """Resume waiting holders while there is room, or hand one the free overdraft."""
        while self._waiting:
            if self._held.total < self.limit:
                self._waiting.popleft().budget_resume()
            elif self._overdraft is None:
                self._overdraft = self._waiting.popleft()
                self._overdraft.budget_resume()
            else:
                return
