"""Where a peer's lines come from and go to: what a transport provides (`contract`), line
framing (`framing`), message channels such as WebSocket's (`channel`), the input bound
servers share (`budget`) and the ways to connect, serve and spawn (`endpoints`).

The endpoints are also attributes of this package, loaded on first use
(`idlc_runtime.transports.serve_tcp`, as before the runtime was grouped by job): importing
`endpoints` here would import the peer, whose modules import `contract` from this package.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    import importlib

    endpoints = importlib.import_module("idlc_runtime.transports.endpoints")
    try:
        return getattr(endpoints, name)
    except AttributeError:
        raise AttributeError(
            f"module 'idlc_runtime.transports' has no attribute {name!r}"
        ) from None
