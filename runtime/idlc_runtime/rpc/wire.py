"""JSON-RPC 2.0 messages as bytes: one typed decode of the envelope, direct encodes out.

The envelope keeps `params`, `result` and `error` as `msgspec.Raw`, so the payload is decoded
once, straight into the type the method or the caller expects, and never through a dict.
An empty `Raw` means the member was absent.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from idlc_runtime.codec.hooks import enc_hook

JSONRPC: Final = "2.0"
NEWLINE: Final = b"\n"
ABSENT: Final = Raw()

#: A request id as JSON-RPC allows it (fractional numbers are refused as invalid).
RequestId = int | str


class Envelope(Struct):
    """Any incoming message: request, notification or response."""

    jsonrpc: str | UnsetType = UNSET
    #: UNSET for a notification; None only in error responses about unreadable requests.
    id: RequestId | None | UnsetType = UNSET
    method: str | UnsetType = UNSET
    params: Raw = ABSENT
    result: Raw = ABSENT
    error: Raw = ABSENT


#: How a compact encoder (msgspec's, `JSON.stringify`, …) begins a notification.
NOTIFICATION_START: Final = b'{"jsonrpc":"2.0","method":"'


def typed_notification(method: str, params_type: Any) -> type[Struct]:
    """A notification of `method` whose `params` decode into `params_type`, as one member
    of a union tagged by `method`: envelope and params decoded in one msgspec call
    (`rpc/express.py`), with what `Inbound` checks of a notification checked by msgspec too
    (`"jsonrpc": "2.0"`, the method, params present) except that `id` is absent, for the
    caller to check. A message that fails it is left to the general path. Members it does
    not name (`result`, `error`, anything else) are ignored, as `Envelope` holds them
    without looking inside."""
    return msgspec.defstruct(
        "TypedNotification",
        [
            ("jsonrpc", Literal["2.0"]),
            ("params", params_type),
            ("id", RequestId | None | UnsetType, UNSET),
        ],
        tag_field="method",
        tag=method,
    )


class ErrorObject(Struct, omit_defaults=True):
    code: int
    message: str
    data: Any = None


class TargetOnly(Struct):
    """Reads `$target` out of params; any other member is ignored."""

    #: Absent, or a string: `"$target": null` is no target (-32602, docs/wire.md §5).
    target: str | UnsetType = msgspec.field(name="$target", default=UNSET)


class CancelParams(Struct, rename="camel"):
    request_id: RequestId


# Outgoing messages are Structs so that msgspec writes them without building a dict.
# Field order is wire order: `jsonrpc`, `id` and `method` come first, which keeps messages
# readable and lets an oversized message still be answered (see `unreadable`).


class RequestOut(Struct, omit_defaults=True):
    jsonrpc: str
    id: RequestId
    method: str
    params: Any = None


class NotificationOut(Struct, omit_defaults=True):
    jsonrpc: str
    method: str
    params: Any = None


class ResultOut(Struct):
    jsonrpc: str
    id: RequestId | None
    result: Any


class ErrorOut(Struct):
    jsonrpc: str
    id: RequestId | None
    error: ErrorObject


_encoder: Final = msgspec.json.Encoder(enc_hook=enc_hook)
_envelope_decoder: Final = msgspec.json.Decoder(Envelope)
_target_decoder: Final = msgspec.json.Decoder(TargetOnly | None)
_error_decoder: Final = msgspec.json.Decoder(ErrorObject)
_cancel_decoder: Final = msgspec.json.Decoder(CancelParams)
_any_decoder: Final = msgspec.json.Decoder()
_batch_decoder: Final = msgspec.json.Decoder(list[Raw])

#: msgspec's encoding of a message (without its newline), for a caller that builds the
#: message itself on a hot path (`Peer.notify`).
encode_message: Final = _encoder.encode
decode_envelope: Final = _envelope_decoder.decode
decode_error: Final = _error_decoder.decode
decode_cancel: Final = _cancel_decoder.decode
decode_any: Final = _any_decoder.decode
#: A batch: the array's members, each kept as its bytes to be handled as if sent alone.
decode_batch: Final = _batch_decoder.decode


def decode_target(params: Raw | bytes) -> str | None:
    """The `$target` of a params object; raises `msgspec.ValidationError` if it is no object."""
    found = _target_decoder.decode(params)
    return None if found is None or found.target is UNSET else found.target


def with_target(params: object | None, target: str) -> Raw:
    """Params with `"$target"` added: the record's own members follow it unchanged."""
    key = _encoder.encode(target)
    if params is None:
        return Raw(b'{"$target":' + key + b"}")
    body = _encoder.encode(params)
    if not body.startswith(b"{"):
        raise TypeError(f"params of a targeted call must encode as a JSON object, not {body!r}")
    separator = b"" if body == b"{}" else b","
    return Raw(b'{"$target":' + key + separator + body[1:])


def encode_request(id: RequestId, method: str, params: object | None) -> bytes:
    return _encoder.encode(RequestOut(JSONRPC, id, method, params)) + NEWLINE


def encode_notification(method: str, params: object | None) -> bytes:
    return _encoder.encode(NotificationOut(JSONRPC, method, params)) + NEWLINE


def encode_result(id: RequestId | None, result: object) -> bytes:
    return _encoder.encode(ResultOut(JSONRPC, id, result)) + NEWLINE


def encode_error(id: RequestId | None, code: int, message: str, data: object = None) -> bytes:
    return _encoder.encode(ErrorOut(JSONRPC, id, ErrorObject(code, message, data))) + NEWLINE


def validation_data(error: msgspec.ValidationError) -> dict[str, str]:
    """`{"path": "$.field", "reason": "..."}` from msgspec's "<reason> - at `<path>`" text."""
    reason, marker, rest = str(error).rpartition(" - at `")
    if not marker:
        return {"path": "$", "reason": str(error)}
    return {"path": rest.rstrip("`"), "reason": reason}
