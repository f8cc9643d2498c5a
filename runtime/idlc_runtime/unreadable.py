"""What can still be said about a message that cannot be read whole.

A line that is too large (skipped, only its ends kept) or that does not decode must still be
answered, with its id when the id can be found cheaply (docs/wire.md §8). This module looks
only at the first and the last bytes of such a line: the top-level members written as
plain scalars before the first nested value, and those after the last nested value. That is
where encoders put `jsonrpc`, `id` and `method` — before `params` (this runtime, and most
others) or after it.

Everything here is regular expressions over at most a few KiB and never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import msgspec

from idlc_runtime.wire import RequestId

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
#: The scalar members that end the top-level object, after its last nested value.
_TAIL: Final = re.compile(
    rb"(?:[,{]" + _WS + _STRING + _WS + rb":" + _WS + _SCALAR + _WS + rb")+\}" + _WS + rb"$"
)
_TAIL_MEMBER: Final = re.compile(
    rb"[,{]" + _WS + rb"(" + _STRING + rb")" + _WS + rb":" + _WS + rb"(" + _SCALAR + rb")"
)

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
    end = _TAIL.search(tail)
    if end is None:
        return
    for member in _TAIL_MEMBER.finditer(tail, end.start()):
        members.append((member.group(1), member.group(2)))


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
