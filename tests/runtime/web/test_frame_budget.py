"""The server-wide frame budget (idlc_runtime.web.frame_budget): after every update the
total is within the limit, and the connection refused is always the one holding the most
(hypothesis over random interleavings of connections growing and completing messages)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from idlc_runtime.transports.budget import InputBudget
from idlc_runtime.web.frame_budget import FrameBudget, refusal_reason


class Holder:
    def __init__(self) -> None:
        self.reasons: list[str] = []
        self.paused = False

    def refuse_over_budget(self, reason: str) -> None:
        self.reasons.append(reason)

    def budget_pause(self) -> None:
        self.paused = True

    def budget_resume(self) -> None:
        self.paused = False


_steps = st.lists(
    st.tuples(st.integers(0, 5), st.one_of(st.integers(1, 4000), st.just(0))), max_size=80
)


@given(limit=st.integers(1, 10_000), steps=_steps)
@settings(max_examples=300, deadline=None)
def test_the_total_stays_within_the_limit_and_the_largest_is_refused(
    limit: int, steps: list[tuple[int, int]]
) -> None:
    budget = FrameBudget(limit)
    holders = [Holder() for _ in range(6)]
    held = [0] * 6
    for index, grow in steps:
        if holders[index].reasons:
            continue  # refused: it sends nothing more the budget sees
        held[index] = held[index] + grow if grow else 0  # 0: its message completed
        counted = {i: held[i] for i in range(6) if not holders[i].reasons and held[i]}
        budget.update(holders[index], held[index])
        assert budget.held <= limit
        refused = [i for i in counted if holders[i].reasons]
        # Refused largest first, until the rest fit.
        for i in sorted(refused, key=lambda i: -held[i]):
            assert held[i] == max(counted.values()), (held[i], counted)
            assert holders[i].reasons == [refusal_reason(held[i], limit)]
            del counted[i]
            held[i] = 0
        assert sum(counted.values()) <= limit
    assert budget.held == sum(held[i] for i in range(6) if not holders[i].reasons)


def test_settled_bytes_count_but_never_hold_the_overdraft() -> None:
    budget = InputBudget(100)
    reading, settled = Holder(), Holder()
    budget.update(settled, 150, completed=False)  # takes the overdraft while reading
    budget.settle(settled, 150)  # read whole: counted, overdraft given up
    budget.update(reading, 10, completed=False)
    assert budget.held == 160
    assert not reading.paused  # it got the free overdraft, so some message completes
    budget.release(settled)
    assert budget.held == 10
