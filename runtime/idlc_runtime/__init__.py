"""The runtime that generated code imports: msgspec only; it never imports the compiler."""

__version__ = "0.1.0"

from idlc_runtime.dispatch import (
    SPEC_ATTRIBUTE,
    Execution,
    InputShape,
    InterfaceSpec,
    MethodSpec,
    implemented_members,
    spec_of,
)
from idlc_runtime.errors import (
    ConnectionClosed,
    ErrorCode,
    ProtocolError,
    RpcError,
    Unsupported,
)
from idlc_runtime.interceptors import (
    CallInfo,
    Interceptor,
    Proceed,
    SerializeTransactions,
)
from idlc_runtime.peer import (
    ByteWriter,
    MethodFallback,
    Peer,
    PeerOptions,
    RequestAdmission,
    UndecodableNotificationHook,
    current_peer,
)
from idlc_runtime.transports import (
    RootFactory,
    RpcServer,
    connect_fds,
    connect_tcp,
    connect_unix,
    memory_pair,
    serve_stdio,
    serve_tcp,
    serve_unix,
    spawn,
)

__all__ = [
    "SPEC_ATTRIBUTE",
    "ByteWriter",
    "CallInfo",
    "ConnectionClosed",
    "ErrorCode",
    "Execution",
    "InputShape",
    "Interceptor",
    "InterfaceSpec",
    "MethodFallback",
    "MethodSpec",
    "Peer",
    "PeerOptions",
    "RequestAdmission",
    "UndecodableNotificationHook",
    "Proceed",
    "ProtocolError",
    "RootFactory",
    "RpcError",
    "RpcServer",
    "SerializeTransactions",
    "Unsupported",
    "connect_fds",
    "connect_tcp",
    "connect_unix",
    "current_peer",
    "implemented_members",
    "memory_pair",
    "serve_stdio",
    "serve_tcp",
    "serve_unix",
    "spawn",
    "spec_of",
]
