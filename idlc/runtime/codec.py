"""msgspec decoders, built once per type and reused for every message."""

from __future__ import annotations

from typing import Any

import msgspec

_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}


def decoder_for(type_: Any) -> msgspec.json.Decoder[Any]:
    """A JSON decoder into `type_` (a Struct class, `list[X]`, `X | None`, a NewType …)."""
    try:
        return _decoders[type_]
    except KeyError:
        decoder = _decoders[type_] = msgspec.json.Decoder(type_)
        return decoder
    except TypeError:
        # An unhashable annotation cannot be a cache key; it still decodes, just uncached.
        return msgspec.json.Decoder(type_)
