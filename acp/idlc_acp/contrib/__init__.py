"""Helpers for ACP clients, in the spirit of the official Python SDK's `acp.contrib`.

- `SessionState` (`contrib.state`): a session's messages, tool calls, plan, mode, config
  options and usage, built from its updates.
- `PermissionBroker` (`contrib.permissions`): answers permission requests with one policy
  and remembers the user's "always".
- `ConfinedFiles` (`contrib.files`): `fs/read_text_file` and `fs/write_text_file` confined to
  a session's folders, writes optionally asked about.

Routing a session's updates to a turn is in the core: `AgentConnection.turn`.
"""

from __future__ import annotations

from idlc_acp.contrib.files import ConfinedFiles
from idlc_acp.contrib.permissions import OWN_ACTION_OPTIONS, PermissionBroker, choose
from idlc_acp.contrib.state import Message, Role, SessionState, ToolCallState

__all__ = [
    "OWN_ACTION_OPTIONS",
    "ConfinedFiles",
    "Message",
    "PermissionBroker",
    "Role",
    "SessionState",
    "ToolCallState",
    "choose",
]
