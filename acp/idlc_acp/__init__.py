"""idlc's ACP SDK: the protocol's types, skeletons and proxies, and what serves them.

- Every type of the protocol (`PromptRequest`, `SessionNotification`, …) and the proxies
  (`AgentProxy`, `ClientProxy`) come from `idlc_acp.protocol`, generated from `idl/acp.idl`,
  and are re-exported here.
- `Agent` and `Client` are the generated skeletons plus the extension hooks
  (`ext_method`, `ext_notification`) for `_`-prefixed methods; subclass them.
- `run_agent(agent)` serves an agent on stdio; `current_client()` inside a handler is the client's
  proxy; `agent_capabilities(agent)` derives `agentCapabilities` from what it implements;
  `session/cancel` cancels the running turn, which then answers `stopReason: "cancelled"`.
- `spawn_agent(client, argv)` starts an agent process and yields its proxy.
"""

from __future__ import annotations

__version__ = "0.1.0"

from idlc_acp import protocol
from idlc_acp.agent import (
    PROTOCOL_VERSION,
    TurnControl,
    agent_capabilities,
    agent_options,
    current_client,
    run_agent,
    serve_agent,
)
from idlc_acp.client import (
    AgentConnection,
    PermissionControl,
    client_options,
    spawn_agent,
)
from idlc_acp.extensions import Extensions, extension_fallback
from idlc_acp.protocol import *  # noqa: F403  (the protocol's names are the SDK's names)

# After the star import: these two replace the generated skeletons of the same names.
from idlc_acp.skeletons import Agent, Client


__all__ = [
    *protocol.__all__,
    "PROTOCOL_VERSION",
    "AgentConnection",
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
