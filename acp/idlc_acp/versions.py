"""Protocol versions: what this SDK speaks and how `initialize` settles on one.

ACP's rule (protocol docs, "Initialization"): the client sends the latest version it
supports; the agent answers that version if it supports it, else the latest it supports;
a client that does not support the agent's answer closes the connection and tells the user.
"""

from __future__ import annotations

from collections.abc import Collection

#: The ACP protocol version this SDK speaks (the latest it supports).
PROTOCOL_VERSION = 1

#: Every protocol version this SDK supports.
SUPPORTED_PROTOCOL_VERSIONS: frozenset[int] = frozenset({PROTOCOL_VERSION})


def negotiate_protocol_version(
    requested: int, supported: Collection[int] = SUPPORTED_PROTOCOL_VERSIONS
) -> int:
    """The version an agent answers to a client that asked for `requested`."""
    if not supported:
        raise ValueError("an agent supports at least one protocol version")
    return requested if requested in supported else max(supported)


class UnsupportedProtocolVersion(Exception):
    """The agent answered `initialize` with a protocol version this client does not support.

    Raised by `AgentConnection.initialize`, which has closed the connection by then.
    """

    def __init__(self, answered: int, supported: Collection[int]) -> None:
        self.answered = answered
        self.supported = frozenset(supported)
        versions = ", ".join(str(version) for version in sorted(self.supported))
        super().__init__(
            f"the agent speaks ACP protocol version {answered}, which this client does not "
            f"support (it supports {versions}); the connection was closed"
        )
