"""Who may connect: the checks a web server runs on a request before it serves it.

They see only the request's headers, so the same checks guard a WebSocket upgrade and any
plain HTTP request (docs/web.md, "Who gets in"). A check that refuses raises `Refused`,
which the server turns into an HTTP response before anything is accepted.
"""

from __future__ import annotations

import hmac
import inspect
import ipaddress
import os
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Final

#: Sees a request's headers (names in lower case) and raises `Refused` to turn it away.
Authenticate = Callable[[Mapping[str, str]], Awaitable[None] | None]


class Refused(Exception):
    """A request turned away with `status` (401, 403, …) and a reason for its body."""

    def __init__(self, status: int, reason: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.headers = dict(headers or {})


#: The names a loopback server answers to when `allowed_hosts` is not given.
LOOPBACK_HOSTS: Final = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
#: Headers a request may carry once only: with two, servers and proxies disagree on which
#: one counts (hypercorn's `Origin` check read the first, a proxy may read the last).
SINGLE_HEADERS: Final = ("origin", "host", "authorization")


def check_single_headers(headers: Mapping[str, str]) -> None:
    """Refuse (400) a request repeating `Origin`, `Host` or `Authorization`.

    Only mappings that keep repeated names (Starlette's `Headers`: `getlist`) can tell.
    """
    getlist = getattr(headers, "getlist", None)
    if getlist is None:
        return
    for name in SINGLE_HEADERS:
        if len(getlist(name)) > 1:
            raise Refused(400, f"the {name.capitalize()} header is repeated")


def _host_name(host: str) -> str:
    """The name part of a `Host` header (`[::1]:80` -> `[::1]`, `a.example:80` -> `a.example`)."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[: end + 1] if end != -1 else host
    name, _, _ = host.partition(":")
    return name.rstrip(".")


def served_hosts(
    allowed_hosts: Collection[str] | None, server_host: str | None
) -> frozenset[str] | None:
    """The host names a request may name, or None for any.

    Given `allowed_hosts`, those (`"*"`: any). Otherwise a server reached on a loopback
    address answers to the loopback names only (a page on `evil.example` resolving to
    127.0.0.1 — DNS rebinding — names `evil.example`); a server reached on another address
    answers to that address literally, and to names only once they are listed.
    """
    if allowed_hosts is not None:
        names = frozenset(_host_name(name) for name in allowed_hosts)
        return None if "*" in names else names
    if server_host is None:
        return None
    try:
        address = ipaddress.ip_address(server_host)
    except ValueError:
        return frozenset({_host_name(server_host)})
    if address.is_loopback:
        return LOOPBACK_HOSTS
    if address.is_unspecified:
        return None  # bound to every address: which names reach it is not known here
    literal = f"[{address}]" if address.version == 6 else str(address)
    return frozenset({literal})


def server_host(scope: Mapping[str, object]) -> str | None:
    """The local address an ASGI request arrived on (`scope["server"]`), if the server says."""
    server = scope.get("server")
    if isinstance(server, tuple | list) and server and isinstance(server[0], str):
        return server[0]
    return None


def check_host(headers: Mapping[str, str], allowed: frozenset[str] | None) -> None:
    """Refuse (421: misdirected) a request whose `Host` is not a name this server serves."""
    if allowed is None:
        return
    host = headers.get("host")
    if host is None:
        raise Refused(400, "the Host header is missing")
    if _host_name(host) not in allowed:
        raise Refused(421, f"host {host!r} is not served here")


def check_origin(headers: Mapping[str, str], allowed_origins: Collection[str]) -> None:
    """Refuse (403) a browser's request from an origin not allowed.

    Browsers send `Origin` with every WebSocket upgrade, and any page the user opens may
    open one to a server on this machine (cross-site WebSocket hijacking); programs that are
    not browsers send none and pass. `"*"` allows every origin.
    """
    origin = headers.get("origin")
    if origin is None or "*" in allowed_origins or origin in allowed_origins:
        return
    raise Refused(403, f"origin {origin!r} is not allowed")


def bearer_token(token: str) -> Authenticate:
    """A check that admits requests carrying `Authorization: Bearer <token>`.

    A missing header is refused 401 (with `WWW-Authenticate: Bearer`, RFC 6750), a wrong
    token 403. Tokens are compared in constant time. Whitespace around `token` is not part
    of it (a token read with `$(cat file)` or from a file ends with a newline), as it is not
    part of the one a client sends.
    """
    token = token.strip()
    if not token:
        raise ValueError("an empty bearer token would admit everyone")
    expected = token.encode()

    def check(headers: Mapping[str, str]) -> None:
        given = headers.get("authorization")
        if given is None:
            raise Refused(401, "a bearer token is required", {"WWW-Authenticate": "Bearer"})
        scheme, _, credentials = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            credentials.strip().encode(), expected
        ):
            raise Refused(403, "the bearer token is not valid")

    return check


def bearer_token_from_env(variable: str) -> Authenticate:
    """`bearer_token` with the token read now from the environment variable `variable`.

    An unset or empty variable is an error here, when the server is set up, rather than a
    server that admits everyone.
    """
    token = os.environ.get(variable, "").strip()
    if not token:
        raise ValueError(f"the environment variable {variable} holds no token")
    return bearer_token(token)


async def admit(
    headers: Mapping[str, str],
    allowed_origins: Collection[str],
    authenticate: Authenticate | None,
    hosts: frozenset[str] | None = None,
) -> None:
    """Refuse repeated headers, a `Host` not in `hosts` (None: any), a browser origin not
    allowed, then run `authenticate`; raises `Refused` if any refuses."""
    check_single_headers(headers)
    check_host(headers, hosts)
    check_origin(headers, allowed_origins)
    if authenticate is not None:
        outcome = authenticate(headers)
        if inspect.isawaitable(outcome):
            await outcome
