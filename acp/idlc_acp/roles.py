"""What the serving helpers take: an implementation of ACP's agent or client interface.

The stable skeletons (`idlc_acp.protocol.Agent`, `idlc_acp.Agent`) and the unstable ones
(`idlc_acp.unstable.Agent`) are separate classes: the unstable surface redefines some request
types (`InitializeRequest`, `NewSessionRequest`, …), so neither skeleton's methods can override the
other's. `run_agent`, `spawn_agent` and the transports never call an implementation's
methods themselves — they hand it to the runtime, which dispatches through its generated
table — so they are typed by role, structurally: an agent is what has the generated table
and the members every agent has, a client what has those of a client. Either surface's
skeleton (and any subclass) is one; an agent passed where a client belongs is a type error.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, ClassVar, Protocol

from idlc_runtime import InterfaceSpec

# The members' request types differ between the two surfaces, and no helper calls them, so
# their parameters are `Any`: the members' names are what tells the roles apart.


class AgentImplementation(Protocol):
    """An ACP agent of either surface: a subclass of `idlc_acp.Agent`,
    `idlc_acp.protocol.Agent` or `idlc_acp.unstable.Agent`."""

    __idlc_interface__: ClassVar[InterfaceSpec]

    def new_session(self, input: Any, /) -> Awaitable[Any]: ...

    def prompt(self, input: Any, /) -> Awaitable[Any]: ...


class ClientImplementation(Protocol):
    """An ACP client of either surface: a subclass of `idlc_acp.Client`,
    `idlc_acp.protocol.Client` or `idlc_acp.unstable.Client`."""

    __idlc_interface__: ClassVar[InterfaceSpec]

    def update(self, input: Any, /) -> Awaitable[None]: ...

    def request_permission(self, input: Any, /) -> Awaitable[Any]: ...
