"""The skeletons to subclass: the generated `Agent` and `Client` plus the extension hooks.

`Agent` also answers `session/cancel` itself (a no-op: `TurnControl` does the cancelling),
so that the notification reaches the interceptors of every agent.

`Client` also carries its own dispatch table: the generated one with `session/update`
routed to the connection's update streams before `update` runs (`idlc_acp.updates`).
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from idlc_acp import protocol
from idlc_acp.extensions import Extensions
from idlc_acp.updates import routing_update
from idlc_runtime import InterfaceSpec


def _with_routed_updates(spec: InterfaceSpec) -> InterfaceSpec:
    methods = tuple(
        (
            dataclasses.replace(method, invoke=routing_update)
            if method.notify and method.wire == "session/update"
            else method
        )
        for method in spec.methods
    )
    # `skeleton` stays the generated class: what a subclass implements is judged against it.
    return dataclasses.replace(spec, methods=methods)


class Agent(protocol.Agent, Extensions):
    """The generated `Agent` skeleton with the extension hooks; subclass it to write an agent."""


class Client(protocol.Client, Extensions):
    """The generated `Client` skeleton with the extension hooks; subclass it to write a client."""

    __idlc_interface__: ClassVar[InterfaceSpec] = _with_routed_updates(
        protocol.Client.__idlc_interface__
    )


def routes_updates(client: object) -> bool:
    """Whether `client`'s dispatch table routes `session/update` itself (see `Client`)."""
    spec = getattr(type(client), "__idlc_interface__", None)
    return (
        isinstance(spec, InterfaceSpec)
        and spec.notifications["session/update"].invoke is routing_update
    )
