"""msgspec decoders, built once per type and reused for every message.

Every decoder gets `hooks.dec_hook`, which decodes the generated types plain msgspec cannot
(variants with a default or unknown case, untagged unions, duplicate-free sets)."""

from __future__ import annotations

from typing import Any

import msgspec

from idlc_runtime.hooks import dec_hook

_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}


def decoder_for(type_: Any) -> msgspec.json.Decoder[Any]:
    """A JSON decoder into `type_` (a Struct class, `list[X]`, `X | None`, a NewType …)."""
    try:
        return _decoders[type_]
    except KeyError:
        decoder = _decoders[type_] = msgspec.json.Decoder(type_, dec_hook=dec_hook)
        return decoder
    except TypeError:
        # An unhashable annotation cannot be a cache key; it still decodes, just uncached.
        return msgspec.json.Decoder(type_, dec_hook=dec_hook)
