"""The idle `state_update`s of ACP v2 (draft) that end foreground work, by stop reason:
what an agent sends to end a turn (`idle_update`) and what a client ends a turn at
(`stop_reason_of`), one table for both."""

from __future__ import annotations

from typing import Any, Literal

from idlc_acp.v2 import (
    SessionUpdate,
    SessionUpdateStateUpdateIdleCancelled,
    SessionUpdateStateUpdateIdleEndTurn,
    SessionUpdateStateUpdateIdleError,
    SessionUpdateStateUpdateIdleMaxTokens,
    SessionUpdateStateUpdateIdleMaxTurnRequests,
    SessionUpdateStateUpdateIdleRefusal,
    SessionUpdateStateUpdateIdleUnknown,
)

#: Why a v2 turn stopped: the `stopReason` of its idle `state_update`.
StopReasonV2 = Literal[
    "end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled", "error"
]

#: The idle state carrying each stop reason the draft defines.
IDLE_STATES: dict[str, type[Any]] = {
    "end_turn": SessionUpdateStateUpdateIdleEndTurn,
    "max_tokens": SessionUpdateStateUpdateIdleMaxTokens,
    "max_turn_requests": SessionUpdateStateUpdateIdleMaxTurnRequests,
    "refusal": SessionUpdateStateUpdateIdleRefusal,
    "cancelled": SessionUpdateStateUpdateIdleCancelled,
    "error": SessionUpdateStateUpdateIdleError,
}
_STOPPED = tuple(IDLE_STATES.values())


def idle_update(stop_reason: StopReasonV2) -> SessionUpdate:
    """The idle `state_update` carrying `stop_reason`."""
    update: SessionUpdate = IDLE_STATES[stop_reason]()
    return update


def stop_reason_of(update: SessionUpdate) -> str | None:
    """The stop reason of an idle `state_update` that ends foreground work (a reason this
    SDK does not know, such as an `_`-prefixed one, as sent); None for every other update,
    an idle snapshot without a stop reason included."""
    if isinstance(update, _STOPPED):
        stop_reason: str = update.stop_reason
        return stop_reason
    if isinstance(update, SessionUpdateStateUpdateIdleUnknown):
        return str(update.tag)
    return None
