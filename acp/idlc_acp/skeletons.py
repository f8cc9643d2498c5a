"""The skeletons to subclass: the generated `Agent` and `Client` plus the extension hooks."""

from __future__ import annotations

from idlc_acp import protocol
from idlc_acp.extensions import Extensions


class Agent(protocol.Agent, Extensions):
    """The generated `Agent` skeleton with the extension hooks; subclass it to write an agent."""


class Client(protocol.Client, Extensions):
    """The generated `Client` skeleton with the extension hooks; subclass it to write a client."""
