"""Cookies on a WebSocket upgrade, kept in a standard `http.cookiejar.CookieJar`.

Remote ACP clients must return the cookies the server sets, for the duration of the
connection (docs/acp-remote.md, "Cookies and affinity"): a load balancer may pin a client
to one worker with one. Streamable HTTP keeps them through httpx, which shares the same jar;
a WebSocket sends them with its upgrade and stores what the upgrade's answer sets.
"""

from __future__ import annotations

import email.message
import urllib.request
from http.cookiejar import CookieJar


def http_url(url: str) -> str:
    """The http(s) URL a ws(s) URL names: the cookie jar's rules are about those."""
    if url.startswith("ws://"):
        return "http://" + url[len("ws://") :]
    if url.startswith("wss://"):
        return "https://" + url[len("wss://") :]
    return url


def cookie_header(jar: CookieJar, url: str) -> str | None:
    """The `Cookie` header a request to `url` carries, if the jar has cookies for it."""
    request = urllib.request.Request(http_url(url))
    jar.add_cookie_header(request)
    return request.get_header("Cookie")


class _Response:
    """What `CookieJar.extract_cookies` reads of a response: its headers, via `info()`."""

    def __init__(self, headers: list[tuple[str, str]]) -> None:
        self._message = email.message.Message()
        for name, value in headers:
            self._message[name] = value

    def info(self) -> email.message.Message:
        return self._message


def store_cookies(jar: CookieJar, url: str, headers: list[tuple[str, str]]) -> None:
    """Keep the cookies a response to a request for `url` sets (its `Set-Cookie` headers)."""
    jar.extract_cookies(_Response(headers), urllib.request.Request(http_url(url)))  # type: ignore[arg-type]
