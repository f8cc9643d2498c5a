"""Who may connect: the checks a web server runs on a request before it serves it.

They see only the request's headers, so the same checks guard a WebSocket upgrade and any
plain HTTP request (docs/web.md, "Who gets in"). A check that refuses raises `Refused`,
which the server turns into an HTTP response before anything is accepted.
"""

from __future__ import annotations

import hmac
import inspect
import os
from collections.abc import Awaitable, Callable, Collection, Mapping

#: Sees a request's headers (names in lower case) and raises `Refused` to turn it away.
Authenticate = Callable[[Mapping[str, str]], Awaitable[None] | None]


class Refused(Exception):
    """A request turned away with `status` (401, 403, …) and a reason for its body."""

    def __init__(self, status: int, reason: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.headers = dict(headers or {})


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
) -> None:
    """Run the origin check, then `authenticate`; raises `Refused` if either refuses."""
    check_origin(headers, allowed_origins)
    if authenticate is not None:
        outcome = authenticate(headers)
        if inspect.isawaitable(outcome):
            await outcome
