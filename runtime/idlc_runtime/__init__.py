"""The runtime that generated code imports: msgspec only; it never imports the compiler."""

__version__ = "0.1.0"

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from idlc_runtime.contract import (
        API_VERSION,
        OLDEST_API_VERSION,
        RESERVED_NAMES,
        Caller,
        require_api,
    )
    from idlc_runtime.errors import (
        ConnectionClosed,
        ErrorCode,
        ProtocolError,
        RpcError,
        Unsupported,
    )
    from idlc_runtime.rpc.dispatch import (
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
    from idlc_runtime.rpc.interceptors import (
        CallInfo,
        Interceptor,
        Proceed,
        SerializeTransactions,
    )
    from idlc_runtime.rpc.peer import (
        ByteWriter,
        MethodFallback,
        Peer,
        PeerOptions,
        RequestAdmission,
        UndecodableNotificationHook,
        current_peer,
    )
    from idlc_runtime.transports.endpoints import (
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
        stdio_transport,
    )

#: Loaded on first use: a generated package needs only the contract, the tables
#: (`dispatch`) and the errors when it is imported, and the peer's modules bring asyncio and
#: the rest of the runtime — about half of `import idlc_runtime` (docs/benchmarks.md,
#: "Import of a generated package"). Even those three wait for their first use: the
#: compiler reads the contract (`idlc_runtime.contract`) on `idlc check`'s path, which needs
#: neither tables nor errors. Name → the module that defines it.
_LAZY = {
    **dict.fromkeys(
        ["API_VERSION", "OLDEST_API_VERSION", "RESERVED_NAMES", "Caller", "require_api"],
        "contract",
    ),
    **dict.fromkeys(
        ["ConnectionClosed", "ErrorCode", "ProtocolError", "RpcError", "Unsupported"], "errors"
    ),
    **dict.fromkeys(
        [
            "SPEC_ATTRIBUTE",
            "Execution",
            "InputShape",
            "InterfaceSpec",
            "MethodSpec",
            "implemented_members",
            "spec_of",
            "specs_of",
            "stand_in",
        ],
        "rpc.dispatch",
    ),
    **dict.fromkeys(
        ["CallInfo", "Interceptor", "Proceed", "SerializeTransactions"], "rpc.interceptors"
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
        "rpc.peer",
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
            "stdio_transport",
        ],
        "transports.endpoints",
    ),
}


#: Submodules that `import idlc_runtime` made attributes before they were loaded lazily
#: (`idlc_runtime.transports.serve_tcp` after a bare `import idlc_runtime` still works),
#: by the name they had before the runtime was grouped by job (docs/wire.md, "The path of
#: one request") → the module that is now that name.
_LAZY_MODULES = {
    "peer": "rpc.peer",
    "interceptors": "rpc.interceptors",
    "transports": "transports",
}


def __getattr__(name: str) -> Any:
    import importlib

    submodule = _LAZY_MODULES.get(name)
    if submodule is not None:
        value = importlib.import_module(f"idlc_runtime.{submodule}")
        globals()[name] = value
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'idlc_runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"idlc_runtime.{module}"), name)
    globals()[name] = value  # the next lookup finds it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "API_VERSION",
    "OLDEST_API_VERSION",
    "RESERVED_NAMES",
    "SPEC_ATTRIBUTE",
    "ByteWriter",
    "CallInfo",
    "Caller",
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
    "require_api",
    "serve_stdio",
    "serve_tcp",
    "serve_unix",
    "spawn",
    "spec_of",
    "specs_of",
    "stand_in",
    "stdio_transport",
]
