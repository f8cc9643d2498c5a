"""Remote ACP over streamable HTTP and WebSocket (docs/acp-remote.md).

Needs the `web` extra (`pip install 'idlc-acp[web]'`: the runtime's web extra, hypercorn
for HTTP/2 and httpx for the HTTP client); `import idlc_acp` alone never imports them.
"""

from idlc_acp.web.app import AcpServer, create_asgi_app
from idlc_acp.web.client_http import connect_http
from idlc_acp.web.client_ws import connect_websocket
from idlc_acp.web.serve import AcpListener, serve_acp
from idlc_runtime.web.admission import Refused, bearer_token, bearer_token_from_env

__all__ = [
    "AcpListener",
    "AcpServer",
    "Refused",
    "bearer_token",
    "bearer_token_from_env",
    "connect_http",
    "connect_websocket",
    "create_asgi_app",
    "serve_acp",
]
