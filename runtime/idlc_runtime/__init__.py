"""The runtime that generated code imports: msgspec only; it never imports the compiler."""

__version__ = "0.1.0"

from typing import TYPE_CHECKING, Any

from idlc_runtime.dispatch import (
    SPEC_ATTRIBUTE,
    Execution,
    InputShape,
    InterfaceSpec,
    MethodSpec,
    implemented_members,
    spec_of,
    specs_of,
    stand_in,
)
from idlc_runtime.errors import (
    ConnectionClosed,
    ErrorCode,
    ProtocolError,
    RpcError,
    Unsupported,
)

if TYPE_CHECKING:
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

#: Loaded on first use: a generated package needs only the tables above (`dispatch`) and
#: the errors when it is imported, and the peer's modules bring asyncio and the rest of the
#: runtime — about half of `import idlc_runtime` (docs/benchmarks.md, "Import of a
#: generated package"). Name → the module that defines it.
_LAZY = {
    **dict.fromkeys(
        ["CallInfo", "Interceptor", "Proceed", "SerializeTransactions"], "interceptors"
    ),
    **dict.fromkeys(
        [
            "ByteWriter",
            "MethodFallback",
            "Peer",
            "PeerOptions",
            "RequestAdmission",
            "UndecodableNotificationHook",
            "current_peer",
        ],
        "peer",
    ),
    **dict.fromkeys(
        [
            "RootFactory",
            "RpcServer",
            "connect_fds",
            "connect_tcp",
            "connect_unix",
            "memory_pair",
            "serve_stdio",
            "serve_tcp",
            "serve_unix",
            "spawn",
        ],
        "transports",
    ),
}


#: Submodules that `import idlc_runtime` made attributes before they were loaded lazily
#: (`idlc_runtime.transports.serve_tcp` after a bare `import idlc_runtime` still works).
_LAZY_MODULES = frozenset(_LAZY.values())


def __getattr__(name: str) -> Any:
    import importlib

    if name in _LAZY_MODULES:
        return importlib.import_module(f"idlc_runtime.{name}")  # sets the attribute itself
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'idlc_runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"idlc_runtime.{module}"), name)
    globals()[name] = value  # the next lookup finds it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


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
    "specs_of",
    "stand_in",
]
