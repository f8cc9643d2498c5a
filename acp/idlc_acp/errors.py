"""ACP's error codes as exceptions: raise them in a handler, catch them around a call.

The codes are the ones the schema's `ErrorCode` lists (idl/acp-schema/v1/schema.json):
JSON-RPC's own, `-32800` for a cancelled request, and ACP's `-32000` (authentication
required) and `-32002` (resource not found). Each is an `idlc_runtime.RpcError`, so the
runtime answers a raised one with its code, message and data. -32601 stays the runtime's
`Unsupported`, which the skeletons already raise.

The other direction: the runtime turns an error response into a plain `RpcError`;
`acp_error(error)` gives the class of its code, and the proxies `idlc_acp` hands out
(`AgentConnection`, a `Session`'s client) do that for every call, so
`except ResourceNotFound:` works around `agent.load_session(...)`.
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar

from idlc_runtime import Peer, RpcError, Unsupported


class AcpErrorCode(enum.IntEnum):
    """The schema's `ErrorCode` (any other integer is allowed too: "Other")."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    REQUEST_CANCELLED = -32800
    AUTH_REQUIRED = -32000
    RESOURCE_NOT_FOUND = -32002


class AcpError(RpcError):
    """An error with one of ACP's codes; the subclasses fix the code and a default message."""

    code_value: ClassVar[AcpErrorCode]
    default_message: ClassVar[str]

    def __init__(self, message: str | None = None, data: object = None) -> None:
        super().__init__(
            int(self.code_value),
            message if message is not None else self.default_message,
            data,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, {self.data!r})"


class ParseError(AcpError):
    code_value = AcpErrorCode.PARSE_ERROR
    default_message = "Parse error"


class InvalidRequest(AcpError):
    code_value = AcpErrorCode.INVALID_REQUEST
    default_message = "Invalid request"


class InvalidParams(AcpError):
    code_value = AcpErrorCode.INVALID_PARAMS
    default_message = "Invalid params"


class InternalError(AcpError):
    code_value = AcpErrorCode.INTERNAL_ERROR
    default_message = "Internal error"


class RequestCancelled(AcpError):
    code_value = AcpErrorCode.REQUEST_CANCELLED
    default_message = "Request cancelled"


class AuthRequired(AcpError):
    """-32000: the agent needs `authenticate` before it does this."""

    code_value = AcpErrorCode.AUTH_REQUIRED
    default_message = "Authentication required"


class ResourceNotFound(AcpError):
    """-32002: a session, file or other resource the request names does not exist."""

    code_value = AcpErrorCode.RESOURCE_NOT_FOUND
    default_message = "Resource not found"

    @classmethod
    def session(cls, session_id: str) -> ResourceNotFound:
        """The session is unknown (the official SDKs' `sessionNotFound`: data `{sessionId}`)."""
        return cls(f"Resource not found: session {session_id}", {"sessionId": session_id})

    @classmethod
    def uri(cls, uri: str) -> ResourceNotFound:
        """The resource at `uri` (a file path, a URL) does not exist (data `{uri}`)."""
        return cls(f"Resource not found: {uri}", {"uri": uri})


_BY_CODE: dict[int, type[AcpError]] = {
    int(kind.code_value): kind
    for kind in (
        ParseError,
        InvalidRequest,
        InvalidParams,
        InternalError,
        RequestCancelled,
        AuthRequired,
        ResourceNotFound,
    )
}


def acp_error(error: RpcError) -> RpcError:
    """`error` as the class of its code (unchanged when it already is one, when its code is
    not one of ACP's, and for -32601, which is `Unsupported` already)."""
    if type(error) is not RpcError:
        return error
    kind = _BY_CODE.get(error.code)
    if kind is None:
        return error
    typed = kind(error.message, error.data)
    typed.__traceback__ = error.__traceback__
    return typed


class TypedErrors:
    """A peer as a generated proxy calls it (an `idlc_runtime.Caller`), with error
    responses as ACP classes.

    A proxy built on it raises `ResourceNotFound` where the bare peer raises
    `RpcError(-32002, …)`; everything else goes to the peer unchanged.
    """

    __slots__ = ("peer",)

    def __init__(self, peer: Peer) -> None:
        self.peer = peer

    async def request(
        self, method: str, params: object | None, result_type: Any, *, target: str | None = None
    ) -> Any:
        try:
            return await self.peer.request(method, params, result_type, target=target)
        except RpcError as error:
            typed = acp_error(error)
            if typed is error:
                raise
            raise typed from None

    async def notify(
        self, method: str, params: object | None, *, target: str | None = None
    ) -> None:
        await self.peer.notify(method, params, target=target)


__all__ = [
    "AcpError",
    "AcpErrorCode",
    "AuthRequired",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "ParseError",
    "RequestCancelled",
    "ResourceNotFound",
    "TypedErrors",
    "Unsupported",
    "acp_error",
]
