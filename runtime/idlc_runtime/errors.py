"""The errors that travel over the wire, and the one that says the wire is gone.

Applications raise `RpcError` (or `Unsupported`) from handlers; the peer turns it into a
JSON-RPC error response. On the calling side an error response comes back as the same types,
so `except Unsupported` reads the same on both ends.
"""

from __future__ import annotations

import enum
from typing import Final


class ErrorCode(enum.IntEnum):
    """The codes the runtime itself produces (docs/wire.md §6)."""

    # JSON-RPC 2.0's own.
    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    # The cancellation convention of LSP, which ACP shares (docs/wire.md §9).
    REQUEST_CANCELLED = -32800
    # The runtime's own range, -32999..-32900: outside JSON-RPC's reserved -32768..-32000
    # (which protocols such as ACP fill with their own codes) and LSP's -32899..-32800.
    UNKNOWN_TARGET = -32900


#: The codes the runtime reserves for its own errors (docs/wire.md §6).
RUNTIME_CODES: Final = range(-32999, -32899)


class RpcError(Exception):
    """A JSON-RPC error: raise it from a handler to answer with this code, message and data.

    `data` must be encodable by msgspec; `None` leaves it out of the error object.
    """

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(code, message, data)
        self.code = code
        self.message = message
        self.data = data

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r}, {self.data!r})"


class Unsupported(RpcError):
    """The member is not implemented: the skeleton's default body raises it (-32601).

    A caller receives it for every -32601 answer, whether the remote skeleton raised it or
    the method does not exist there at all.
    """

    def __init__(self, method: str, message: str | None = None, data: object = None) -> None:
        super().__init__(
            ErrorCode.METHOD_NOT_FOUND,
            message if message is not None else f"Method not supported: {method}",
            data,
        )
        self.method = method

    def __repr__(self) -> str:
        return f"Unsupported({self.method!r}, {self.message!r}, {self.data!r})"


class ProtocolError(RpcError):
    """The remote answered, but not with something this side can accept.

    Raised on the calling side when a result does not decode into the expected type or a
    response exceeds the message size limit; `data` says why.
    """

    def __init__(self, message: str, data: object = None) -> None:
        super().__init__(ErrorCode.INTERNAL_ERROR, message, data)

    def __repr__(self) -> str:
        return f"ProtocolError({self.message!r}, {self.data!r})"


class ConnectionClosed(ConnectionError):
    """The connection ended: raised by calls that were pending or that start afterwards."""
