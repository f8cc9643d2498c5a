"""msgspec decoders, built once per type and reused for every message.

Every decoder gets `hooks.dec_hook`, which decodes the generated types plain msgspec cannot
(variants with a default or unknown case, untagged unions, duplicate-free sets). A type
that holds records with forward-compatible fields gets a `LenientDecoder`, which falls back
on their leniency only when the strict decode fails (docs/wire.md, "Forward-compatible
decoding")."""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from idlc_runtime.codec.hooks import dec_hook
from idlc_runtime.codec.lenient import LenientDecoder, is_lenient


class Decoder(Protocol):
    def decode(self, data: bytes | bytearray | memoryview | str, /) -> Any: ...


_decoders: dict[Any, Decoder] = {}


def _build(type_: Any) -> Decoder:
    strict = msgspec.json.Decoder(type_, dec_hook=dec_hook)
    return LenientDecoder(type_, strict) if is_lenient(type_) else strict


def decoder_for(type_: Any) -> Decoder:
    """A JSON decoder into `type_` (a Struct class, `list[X]`, `X | None`, a NewType …)."""
    try:
        return _decoders[type_]
    except KeyError:
        decoder = _decoders[type_] = _build(type_)
        return decoder
    except TypeError:
        # An unhashable annotation cannot be a cache key; it still decodes, just uncached.
        return msgspec.json.Decoder(type_, dec_hook=dec_hook)
