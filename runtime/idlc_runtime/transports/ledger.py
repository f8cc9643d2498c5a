"""The bytes each holder holds, their total and the peak total: what a server-wide budget
counts (`budget.InputBudget` pauses holders by it, `web.frame_budget.FrameBudget` refuses
them)."""

from __future__ import annotations

from typing import Generic, TypeVar

Holder = TypeVar("Holder")


class HeldBytes(Generic[Holder]):
    """Bytes held, by holder; a holder holding none is not listed."""

    __slots__ = ("_held", "peak", "total")

    def __init__(self) -> None:
        self._held: dict[Holder, int] = {}
        #: The bytes held now, over all holders.
        self.total = 0
        #: The most ever held at once: what the bound is about, for monitoring.
        self.peak = 0

    def set(self, holder: Holder, held: int) -> None:
        """`holder` now holds `held` bytes (0: none)."""
        self.total += held - self._held.get(holder, 0)
        if held:
            self._held[holder] = held
        else:
            self._held.pop(holder, None)
        if self.total > self.peak:
            self.peak = self.total

    def pop(self, holder: Holder) -> int:
        """Forget `holder`; what it held."""
        held = self._held.pop(holder, 0)
        self.total -= held
        return held

    def largest(self) -> Holder:
        """The holder holding the most (there must be one)."""
        return max(self._held, key=self._held.__getitem__)

    def __contains__(self, holder: object) -> bool:
        return holder in self._held
