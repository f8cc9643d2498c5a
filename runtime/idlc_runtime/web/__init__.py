"""JSON-RPC over WebSocket for every generated interface (docs/web.md).

Needs the `web` extra (`pip install 'idlc-runtime[web]'`: starlette, uvicorn, websockets);
`import idlc_runtime` alone never imports them.
"""

from idlc_runtime.transports.channel import frame_limit
from idlc_runtime.web.admission import (
    Authenticate,
    Refused,
    bearer_token,
    bearer_token_from_env,
    check_origin,
)
from idlc_runtime.web.client import connect_websocket
from idlc_runtime.web.server import (
    WebSocketListener,
    WebSocketServer,
    serve_websocket,
)

__all__ = [
    "Authenticate",
    "Refused",
    "WebSocketListener",
    "WebSocketServer",
    "bearer_token",
    "bearer_token_from_env",
    "check_origin",
    "connect_websocket",
    "frame_limit",
    "serve_websocket",
]
