"""What can still be said about a message that cannot be read whole.

A line that is too large (skipped, only its ends kept) or that does not decode must still be
answered, with its id when the id can be found cheaply (docs/wire.md §8). This module looks
only at the first and the last bytes of such a line: the top-level members written as
plain scalars before the first nested value, and those after the last nested value. That is
where encoders put `jsonrpc`, `id` and `method` — before `params` (this runtime, and most
others) or after it.

Everything here looks at a few KiB at most, in linear time, and never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import msgspec

from idlc_runtime.rpc.wire import RequestId

#: How many bytes at each end of a line are looked at.
END_SIZE: Final = 1024

_STRING: Final = rb'"(?:[^"\\]|\\.)*"'
_SCALAR: Final = rb'(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)'
_WS: Final = rb"[ \t\r\n]*"

#: The opening brace of the top-level object.
_OPEN: Final = re.compile(_WS + rb"\{")
#: One scalar member at the head, with what follows it (`,` or the closing `}`).
_HEAD_MEMBER: Final = re.compile(
    _WS + rb"(" + _STRING + rb")" + _WS + rb":" + _WS + rb"(" + _SCALAR + rb")" + _WS + rb"([,}])"
)
#: The key of the member where the head stops: its value is nested or runs past the head.
_HEAD_KEY: Final = re.compile(_WS + rb"(" + _STRING + rb")" + _WS + rb":")
#: JSON whitespace, and what a number or a literal (`true`, `false`, `null`) is made of.
_SPACE: Final = frozenset(b" \t\r\n")
_BARE: Final = frozenset(b"0123456789+-.eEtruefalsn")

_id_decoder: Final = msgspec.json.Decoder(RequestId)
_key_decoder: Final = msgspec.json.Decoder(str)


@dataclass(frozen=True, slots=True)
class Identity:
    """What the ends of a message show about it."""

    #: The top-level `id`, if one was seen and is a valid request id.
    id: RequestId | None
    #: A top-level `result` or `error` and no `method` was seen: it answers a call of ours,
    #: and is never itself answered.
    response: bool


def identify(head: bytes, tail: bytes) -> Identity:
    """The id and kind of a message from its first and last bytes (each at most a few KiB;
    for a short line both may be the whole line)."""
    members: list[tuple[bytes, bytes | None]] = []
    _scan_head(head, members)
    _scan_tail(tail, members)
    keys: set[str] = set()
    id: RequestId | None = None
    for raw_key, raw_value in members:
        key = _decode_key(raw_key)
        if key is None:
            continue
        keys.add(key)
        if key == "id" and id is None and raw_value is not None:
            id = _decode_id(raw_value)
    response = "method" not in keys and ("result" in keys or "error" in keys)
    return Identity(id, response)


def identify_line(line: bytes) -> Identity:
    """`identify` for a whole line held in memory."""
    return identify(line[:END_SIZE], line[-END_SIZE:])


def _scan_head(head: bytes, members: list[tuple[bytes, bytes | None]]) -> None:
    opened = _OPEN.match(head)
    if opened is None:
        return
    position = opened.end()
    while True:
        member = _HEAD_MEMBER.match(head, position)
        if member is None:
            last = _HEAD_KEY.match(head, position)
            if last is not None:
                members.append((last.group(1), None))
            return
        members.append((member.group(1), member.group(2)))
        if member.group(3) == b"}":
            return
        position = member.end()


def _scan_tail(tail: bytes, members: list[tuple[bytes, bytes | None]]) -> None:
    """The scalar members that end the top-level object, read backwards from its closing
    brace up to the last nested value. Linear: a regular expression searched from every
    position would be quadratic in the members, which a sender controls."""
    end = _skip_space_back(tail, len(tail))
    if end == 0 or tail[end - 1] != ord("}"):
        return
    position = end - 1
    while True:
        value_end = _skip_space_back(tail, position)
        value_start = _token_start(tail, value_end)
        if value_start is None:
            return  # a nested value (or the head's territory): stop
        colon = _skip_space_back(tail, value_start)
        if colon == 0 or tail[colon - 1] != ord(":"):
            return
        key_end = _skip_space_back(tail, colon - 1)
        if key_end == 0 or tail[key_end - 1] != ord('"'):
            return
        key_start = _string_start(tail, key_end)
        if key_start is None:
            return
        members.append((tail[key_start:key_end], tail[value_start:value_end]))
        before = _skip_space_back(tail, key_start)
        if before == 0 or tail[before - 1] != ord(","):
            return  # `{`: the whole object was seen; anything else: not a member list
        position = before - 1


def _skip_space_back(data: bytes, end: int) -> int:
    while end > 0 and data[end - 1] in _SPACE:
        end -= 1
    return end


def _token_start(data: bytes, end: int) -> int | None:
    """Where the scalar ending at `end` starts; None if what ends there is no scalar."""
    if end == 0:
        return None
    if data[end - 1] == ord('"'):
        return _string_start(data, end)
    start = end
    while start > 0 and data[start - 1] in _BARE:
        start -= 1
    return start if start < end else None


def _string_start(data: bytes, end: int) -> int | None:
    """The opening quote of the string whose closing quote is at `end - 1`: the nearest
    quote before it that is not escaped (preceded by an even number of backslashes)."""
    quote = end - 1
    while True:
        quote = data.rfind(b'"', 0, quote)
        if quote < 0:
            return None
        backslashes = 0
        while quote - backslashes > 0 and data[quote - backslashes - 1] == ord("\\"):
            backslashes += 1
        if backslashes % 2 == 0:
            return quote


def _decode_key(raw: bytes) -> str | None:
    try:
        key: str = _key_decoder.decode(raw)
    except (msgspec.MsgspecError, RecursionError):
        return None
    return key


def _decode_id(raw: bytes) -> RequestId | None:
    try:
        id: RequestId = _id_decoder.decode(raw)
    except (msgspec.MsgspecError, RecursionError):
        return None  # not an id JSON-RPC allows (a fraction, a number out of range, …)
    return id
