"""The hand-written part of idlc's ACP SDK, around the generated `idlc_acp` package.

- `run_agent(agent)` serves an agent on stdio; `current_client()` inside a handler is the client's
  proxy; `agent_capabilities(agent)` derives `agentCapabilities` from what it implements;
  `session/cancel` cancels the running turn, which then answers `stopReason: "cancelled"`.
- `spawn_agent(client, argv)` starts an agent process and yields its proxy.
- `Agent` and `Client` are the generated skeletons plus the extension hooks
  (`ext_method`, `ext_notification`) for `_`-prefixed methods.
"""

from __future__ import annotations

from idlc.acp import _generated  # noqa: F401  (makes idlc_acp importable in a checkout)
from idlc.acp.agent import (
    PROTOCOL_VERSION,
    TurnControl,
    agent_capabilities,
    agent_options,
    current_client,
    run_agent,
    serve_agent,
)
from idlc.acp.client import AgentConnection, PermissionControl, client_options, spawn_agent
from idlc.acp.extensions import Extensions, extension_fallback

import idlc_acp


class Agent(idlc_acp.Agent, Extensions):
    """`idlc_acp.Agent` with the extension hooks; subclass it to write an agent."""


class Client(idlc_acp.Client, Extensions):
    """`idlc_acp.Client` with the extension hooks; subclass it to write a client."""


__all__ = [
    "PROTOCOL_VERSION",
    "Agent",
    "AgentConnection",
    "Client",
    "Extensions",
    "PermissionControl",
    "TurnControl",
    "agent_capabilities",
    "agent_options",
    "current_client",
    "client_options",
    "extension_fallback",
    "run_agent",
    "serve_agent",
    "spawn_agent",
]
