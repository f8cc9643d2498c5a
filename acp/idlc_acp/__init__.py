"""idlc's ACP SDK: the protocol's types, skeletons and proxies, and what serves them.

- Every type of the protocol (`PromptRequest`, `SessionNotification`, …) and the proxies
  (`AgentProxy`, `ClientProxy`) come from `idlc_acp.protocol`, generated from `idl/acp.idl`,
  and are re-exported here.
- `Agent` and `Client` are the generated skeletons plus the extension hooks
  (`ext_method`, `ext_notification`) for `_`-prefixed methods; subclass them.
- `run_agent(agent)` serves an agent on stdio, `agent_main(MyAgent)` is an agent's command
  line (stdio, or `--listen HOST:PORT` for remote ACP); inside any handler of a call that
  names a session, `current_session()` is a `Session` handle (`send_text`, tool calls,
  permission, files, terminals, `cancel_turns`); `current_client()` inside any handler is
  the client's proxy; `agent_capabilities(agent)` derives `agentCapabilities` from what it
  implements; `session/cancel` and `session/close` cancel the session's running turns,
  which then answer `stopReason: "cancelled"`; requests before `initialize` are refused
  with -32600, as the official TypeScript SDK does. The helpers take any agent or client
  of either surface (`AgentImplementation`, `ClientImplementation`: `idlc_acp.roles`).
- `spawn_agent(client, argv)` starts an agent process and yields an `AgentConnection`:
  `turn(request)` streams a prompt's updates, `initialize` refuses an unsupported version.
- `idlc_acp.errors`: ACP's error codes as exceptions (`AuthRequired`, `ResourceNotFound`, ...).
- `idlc_acp.versions`: `PROTOCOL_VERSION`, `negotiate_protocol_version`.
- `idlc_acp.contrib`: client helpers (`SessionState`, `PermissionBroker`, `ConfinedFiles`).
- Opt-in, UNSTABLE (docs/acp.md, "The unstable surface"): `idlc_acp.unstable`, and for
  proxy chains `idlc_acp.proxy_chain` (`ChainProxy`) and `idlc_acp.conductor`.
"""

from __future__ import annotations

__version__ = "0.1.0"

from idlc_acp import protocol
from idlc_acp.agent import (
    TurnControl,
    agent_capabilities,
    agent_options,
    current_client,
    run_agent,
    serve_agent,
)
from idlc_acp.client import (
    AgentConnection,
    ClientControls,
    PermissionControl,
    client_options,
    spawn_agent,
)
from idlc_acp.command import agent_main
from idlc_acp.errors import (
    AcpError,
    AcpErrorCode,
    AuthRequired,
    InternalError,
    InvalidParams,
    InvalidRequest,
    ParseError,
    RequestCancelled,
    ResourceNotFound,
    Unsupported,
    acp_error,
)
from idlc_acp.extensions import Extensions, extension_fallback
from idlc_acp.initialization import InitializeGate
from idlc_acp.protocol import *  # noqa: F403  (the protocol's names are the SDK's names)
from idlc_acp.roles import AgentImplementation, ClientImplementation
from idlc_acp.session import (
    ALLOW_ONCE,
    REJECT_ONCE,
    Session,
    SessionScope,
    TerminalHandle,
    current_session,
    tool_text,
)

# After the star import: these two replace the generated skeletons of the same names.
from idlc_acp.skeletons import Agent as Agent
from idlc_acp.skeletons import Client as Client
from idlc_acp.updates import UpdateRouter, UpdateStream
from idlc_acp.versions import (
    PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS,
    UnsupportedProtocolVersion,
    negotiate_protocol_version,
)

__all__ = [
    *protocol.__all__,
    "ALLOW_ONCE",
    "PROTOCOL_VERSION",
    "REJECT_ONCE",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "AcpError",
    "AcpErrorCode",
    "AgentConnection",
    "AgentImplementation",
    "AuthRequired",
    "ClientControls",
    "ClientImplementation",
    "Extensions",
    "InitializeGate",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "ParseError",
    "PermissionControl",
    "RequestCancelled",
    "ResourceNotFound",
    "Session",
    "SessionScope",
    "TerminalHandle",
    "TurnControl",
    "Unsupported",
    "UnsupportedProtocolVersion",
    "UpdateRouter",
    "UpdateStream",
    "acp_error",
    "agent_capabilities",
    "agent_main",
    "agent_options",
    "client_options",
    "current_client",
    "current_session",
    "extension_fallback",
    "negotiate_protocol_version",
    "run_agent",
    "serve_agent",
    "spawn_agent",
    "tool_text",
]
