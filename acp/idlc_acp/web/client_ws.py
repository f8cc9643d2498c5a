"""An ACP client over WebSocket: `connect_websocket(url, client)` gives an `AgentConnection`.

The connection is the runtime's (`idlc_runtime.web.connect_websocket`: one message per text
frame); this adds what an ACP client needs (`idlc_acp.client.client_options`) and the
cookies of docs/acp-remote.md, "Cookies and affinity".
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Mapping
from http.cookiejar import CookieJar
from typing import TYPE_CHECKING

from idlc_acp.client import AgentConnection, client_options
from idlc_acp.web.cookies import cookie_header, store_cookies
from idlc_runtime import PeerOptions, UndecodableNotificationHook
from idlc_runtime.web import connect_websocket as connect_peer

if TYPE_CHECKING:
    from idlc_acp.roles import ClientImplementation


@contextlib.asynccontextmanager
async def connect_websocket(
    url: str,
    client: ClientImplementation,
    *,
    headers: Mapping[str, str] | None = None,
    cookies: CookieJar | None = None,
    options: PeerOptions | None = None,
    open_timeout: float | None = 10.0,
    on_undecodable_notification: UndecodableNotificationHook | None = None,
) -> AsyncIterator[AgentConnection]:
    """Serve `client` to the remote agent at `url` (`ws://…/acp`) and yield its proxy.

    `headers` go with the upgrade (`Authorization`, for one). `cookies` is the jar whose
    cookies the upgrade carries and which keeps the ones the server sets: pass the same jar
    to a reconnect to reach the same worker behind a load balancer. Raises
    `idlc_runtime.web.Refused` when the server turns the upgrade away (401, 403, 503).
    """
    jar = cookies if cookies is not None else CookieJar()
    sent = dict(headers or {})
    cookie = cookie_header(jar, url)
    if cookie is not None:
        sent["Cookie"] = cookie
    full, controls = client_options(client, options)
    if on_undecodable_notification is not None:
        full = dataclasses.replace(full, on_undecodable_notification=on_undecodable_notification)
    async with connect_peer(
        url,
        headers=sent,
        root=client,
        options=full,
        open_timeout=open_timeout,
        on_response=lambda response: store_cookies(jar, url, response),
    ) as peer:
        yield AgentConnection(peer, controls)
