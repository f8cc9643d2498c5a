"""The memo of the decode under way, which both decoding paths share (`hooks`, the strict
path's hooks, and `lenient`, the slow path): its one definition, so neither reaches into
the other's private names."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: The unions and fallback variants decoded so far in the decode under way, by either path:
#: (id of the JSON value, class) → (True, the value) or (False, why it failed), and the
#: lenient path's own entries (`lenient`, its `_remembered`). "The first
#: alternative that validates" tries a recursive union's alternatives at every level again
#: for each alternative above it, which is exponential in the depth (so does a variant's
#: fallback after its tagged case); remembered, each value is decoded once per union or
#: variant and path. Ids are only compared while the decode that made the values runs
#: (they are alive): the outermost decode, strict or lenient, owns the memo.
DECODED: contextvars.ContextVar[dict[tuple[Any, ...], Any] | None] = contextvars.ContextVar(
    "idlc_unions_decoded", default=None
)


def within_memo(run: Callable[[], T]) -> T:
    """`run()` with the memo of the decode under way, or a fresh one while it runs."""
    if DECODED.get() is not None:
        return run()
    token = DECODED.set({})
    try:
        return run()
    finally:
        DECODED.reset(token)


def json_kind(obj: object) -> str:
    """How msgspec names the JSON type of a decoded value in its messages."""
    if obj is None:
        return "null"
    if isinstance(obj, bool):
        return "bool"
    if isinstance(obj, (int, float)):
        return "number"
    if isinstance(obj, str):
        return "str"
    if isinstance(obj, list):
        return "array"
    return "object"
