"""Being an ACP v2 (draft) client: negotiation with a v1 fallback, turns, session state.

- `initialize_preferring_v2(peer, ...)` sends a v2 `initialize` and, when the agent speaks
  v1 only, falls back to v1 on the same connection (serving the v1 client from then on);
  an agent answering a version this client does not support is refused
  (`UnsupportedProtocolVersion`, the connection closed).
- `ClientV2` is the v2 skeleton with `update` done: every `session/update` is applied to
  the session's `SessionStateV2` and handed to the turn being iterated
  (`client.turn(agent, request)`), which ends at the idle `state_update`.
- `SessionStateV2` applies the draft's patches: an absent field keeps its value, `null`
  clears it, a value replaces it, and chunks append to their message or tool call.

The typed updates tell the three states of a patch field apart (`idl/acp-v2.idl` declares
each `optional<nullable<T>>`): not sent is `msgspec.UNSET`, `null` is None, and a malformed
value of a `lenient` field decodes as not sent (it keeps), as the draft and the TypeScript
SDK's parser treat it. So the state applies the decoded update as it is.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import copy
from collections.abc import AsyncIterator, Collection
from dataclasses import dataclass, field
from typing import Any

import msgspec

from idlc_acp.protocol import AgentProxy as AgentProxyV1
from idlc_acp.protocol import InitializeRequest as InitializeRequestV1
from idlc_acp.protocol import InitializeResponse as InitializeResponseV1
from idlc_acp.v2 import (
    AgentProxy,
    Client,
    PromptRequest,
    SessionUpdate,
    UpdateSessionNotification,
)
from idlc_acp.v2 import InitializeRequest as InitializeRequestV2
from idlc_acp.v2 import InitializeResponse as InitializeResponseV2
from idlc_acp.v2_states import stop_reason_of
from idlc_acp.versions import UnsupportedProtocolVersion
from idlc_runtime import ErrorCode, Peer, RpcError
from idlc_runtime.codec.hooks import enc_hook

#: The protocol versions this SDK's clients support.
CLIENT_PROTOCOL_VERSIONS: frozenset[int] = frozenset({1, 2})

_MESSAGES = {
    "user_message": "user_message",
    "agent_message": "agent_message",
    "agent_thought": "agent_thought",
}
_CHUNKS = {
    "user_message_chunk": "user_message",
    "agent_message_chunk": "agent_message",
    "agent_thought_chunk": "agent_thought",
}


@dataclass
class Negotiated:
    """The outcome of `initialize_preferring_v2`: the version and the agent's answer."""

    version: int
    response: InitializeResponseV2 | InitializeResponseV1


async def initialize_preferring_v2(
    peer: Peer,
    *,
    v2_request: InitializeRequestV2,
    v2_client: object,
    v1_request: InitializeRequestV1 | None = None,
    v1_client: object | None = None,
    versions: Collection[int] = CLIENT_PROTOCOL_VERSIONS,
) -> Negotiated:
    """Initialize at v2, falling back to v1 (with `v1_request`, serving `v1_client`) when
    the agent answers v1 or refuses the v2 request's params (a v1-only agent decoding it
    as v1); the root the peer serves is the chosen version's client."""
    peer.serve_root(v2_client)
    try:
        raw = await peer.request("initialize", v2_request, msgspec.Raw)
    except RpcError as error:
        if error.code != ErrorCode.INVALID_PARAMS or v1_request is None or 1 not in versions:
            raise
        return await _v1(peer, v1_request, v1_client, versions)
    answered = msgspec.json.decode(raw).get("protocolVersion")
    if answered == 2 and 2 in versions:
        return Negotiated(2, msgspec.json.decode(raw, type=InitializeResponseV2))
    if answered == 1 and 1 in versions and v1_request is not None:
        # v1 lets `initialize` come again: say it in v1's shape, with v1's capabilities.
        return await _v1(peer, v1_request, v1_client, versions)
    await peer.close()
    raise UnsupportedProtocolVersion(answered if isinstance(answered, int) else -1, versions)


async def _v1(
    peer: Peer, request: InitializeRequestV1, client: object | None, versions: Collection[int]
) -> Negotiated:
    peer.serve_root(client)
    response = await AgentProxyV1(peer).initialize(request)
    if response.protocol_version not in versions:
        await peer.close()
        raise UnsupportedProtocolVersion(response.protocol_version, versions)
    return Negotiated(1, response)


# ---------------------------------------------------------------- session state


#: How much of each terminal's output `SessionStateV2.terminal_output` keeps (the last bytes).
TERMINAL_OUTPUT_LIMIT = 1024 * 1024

#: The `state`s of a `state_update` the draft defines; another is a newer peer's.
_KNOWN_STATES = frozenset({"idle", "running", "requires_action"})


@dataclass
class SessionStateV2:
    """What a session's updates say, applied in order (the draft's patch semantics).

    `messages`, `tool_calls` and `terminals` are keyed by `messageId`, `toolCallId` and
    `terminalId`, each a JSON object; a message also has `kind` (`user_message`,
    `agent_message`, `agent_thought`). `state` is the last `state_update` (None until one
    came); other updates are kept last one per `sessionUpdate` in `latest`."""

    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    tool_calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    terminals: dict[str, dict[str, Any]] = field(default_factory=dict)
    state: dict[str, Any] | None = None
    latest: dict[str, dict[str, Any]] = field(default_factory=dict)
    _output: dict[str, bytearray] = field(default_factory=dict, repr=False)

    def terminal_output(self, terminal_id: str) -> bytes:
        """The terminal's output: its last `output` snapshot with the chunks since appended,
        the last `TERMINAL_OUTPUT_LIMIT` bytes of it (a command may print without end)."""
        return bytes(self._output.get(terminal_id, b""))

    @property
    def idle(self) -> bool:
        return self.state is None or self.state.get("state") == "idle"

    @property
    def stop_reason(self) -> str | None:
        return None if self.state is None else self.state.get("stopReason")

    @property
    def background(self) -> list[dict[str, Any]] | None:
        """The `background` list of the last `state_update`: None while background work is
        not reported (the list omitted, `null` or malformed, or a state this SDK does not
        know), `[]` when none runs. Each `state_update` is a complete snapshot."""
        state = self.state
        if state is None or state.get("state") not in _KNOWN_STATES:
            return None
        background = state.get("background")
        return background if isinstance(background, list) else None

    @property
    def config_options(self) -> list[dict[str, Any]] | None:
        """The complete list of the last `config_option_update` (None until one came; the
        `session/new` answer's list is the client's own to keep)."""
        update = self.latest.get("config_option_update")
        options = None if update is None else update.get("configOptions")
        return options if isinstance(options, list) else None

    def can_cancel_tool_call(self, tool_call_id: str) -> bool:
        """Whether the tool call advertises `capabilities.cancel` (`tool_call/cancel`)."""
        return _advertises_cancel(self.tool_calls.get(tool_call_id))

    def can_cancel_terminal(self, terminal_id: str) -> bool:
        """Whether the terminal advertises `capabilities.cancel` (`terminal/cancel`)."""
        return _advertises_cancel(self.terminals.get(terminal_id))

    def apply(self, update: dict[str, Any] | SessionUpdate) -> None:
        """Apply one update: a JSON object (as on the wire), or a decoded `SessionUpdate`
        (a patch field `msgspec.UNSET` keeps, None clears)."""
        value: dict[str, Any] = (
            update if isinstance(update, dict) else msgspec.to_builtins(update, enc_hook=enc_hook)
        )
        self._apply(value)

    def _apply(self, update: dict[str, Any]) -> None:
        kind = update.get("sessionUpdate")
        if kind in _CHUNKS:
            message = self._message(update["messageId"], _CHUNKS[kind])
            message.setdefault("content", []).append(copy.deepcopy(update.get("content")))
        elif kind in _MESSAGES:
            message = self._message(update["messageId"], _MESSAGES[kind])
            _patch(message, update, ("sessionUpdate", "messageId"))
            if message.get("content") is None:
                message["content"] = []
        elif kind == "tool_call_update":
            call = self.tool_calls.setdefault(
                update["toolCallId"], {"toolCallId": update["toolCallId"]}
            )
            _patch(call, update, ("sessionUpdate", "toolCallId"))
        elif kind == "terminal_update":
            terminal = self.terminals.setdefault(
                update["terminalId"], {"terminalId": update["terminalId"]}
            )
            _patch(terminal, update, ("sessionUpdate", "terminalId"))
            if "output" in update:  # a snapshot replaces the bytes, `null` clears them
                sent = update["output"]
                data = _bytes_of(sent.get("data")) if isinstance(sent, dict) else None
                if data is None:
                    self._output.pop(update["terminalId"], None)
                else:
                    self._output[update["terminalId"]] = bytearray(data[-TERMINAL_OUTPUT_LIMIT:])
        elif kind == "tool_call_content_chunk":
            call = self.tool_calls.setdefault(
                update["toolCallId"], {"toolCallId": update["toolCallId"]}
            )
            if call.get("content") is None:
                call["content"] = []
            call["content"].append(copy.deepcopy(update.get("content")))
        elif kind == "terminal_output_chunk":
            self.terminals.setdefault(update["terminalId"], {"terminalId": update["terminalId"]})
            chunk = _bytes_of(update.get("data"))
            if chunk is not None:
                output = self._output.setdefault(update["terminalId"], bytearray())
                output += chunk
                del output[: max(0, len(output) - TERMINAL_OUTPUT_LIMIT)]
        elif kind == "state_update":
            self.state = copy.deepcopy(update)
        elif isinstance(kind, str):
            self.latest[kind] = copy.deepcopy(update)

    def _message(self, message_id: str, kind: str) -> dict[str, Any]:
        return self.messages.setdefault(
            message_id, {"messageId": message_id, "kind": kind, "content": []}
        )


def _bytes_of(data: object) -> bytes | None:
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data, validate=True)
    except binascii.Error:
        return None


def _advertises_cancel(entity: dict[str, Any] | None) -> bool:
    # `capabilities` is replaced whole by each patch: `{}` and `{"cancel": null}` advertise
    # nothing, `{"cancel": {}}` the cancel.
    capabilities = None if entity is None else entity.get("capabilities")
    return isinstance(capabilities, dict) and capabilities.get("cancel") is not None


def _patch(stored: dict[str, Any], update: dict[str, Any], keys: tuple[str, ...]) -> None:
    """Absent keeps, `null` clears, a value replaces; `_meta` is patched by key."""
    for key, value in update.items():
        if key in keys:
            continue
        if value is None:
            stored.pop(key, None)
        elif key == "_meta" and isinstance(value, dict):
            meta = stored.get("_meta")
            meta = dict(meta) if isinstance(meta, dict) else {}
            for meta_key, meta_value in value.items():
                if meta_value is None:
                    meta.pop(meta_key, None)
                else:
                    meta[meta_key] = copy.deepcopy(meta_value)
            stored["_meta"] = meta
        else:
            stored[key] = copy.deepcopy(value)


# ---------------------------------------------------------------- client and turns


class TurnStreamV2:
    """A prompt's updates, from its sending until the idle `state_update` with a stop reason
    that ends it.

    `message_id` is the ack (`PromptResponse.messageId`) once it came; `stop_reason` the
    idle state's, once iteration ended."""

    def __init__(self, client: ClientV2, agent: AgentProxy, request: PromptRequest) -> None:
        self._client = client
        self._agent = agent
        self._request = request
        self.message_id: str | None = None
        self.stop_reason: str | None = None
        self._queue: asyncio.Queue[SessionUpdate] = asyncio.Queue()

    def _put(self, update: SessionUpdate) -> None:
        self._queue.put_nowait(update)

    async def __aiter__(self) -> AsyncIterator[SessionUpdate]:
        session_id = self._request.session_id
        self._client._turns.setdefault(session_id, []).append(self)
        try:
            answer = await self._agent.prompt(self._request)
            self.message_id = answer.message_id
            while True:
                update = await self._queue.get()
                yield update
                # The turn ends at an idle state with its stop reason. An idle snapshot
                # without one (background work listed or done while idle, the state after a
                # resume) is no completion: the draft says not to count it as one.
                stop_reason = stop_reason_of(update)
                if stop_reason is not None:
                    self.stop_reason = stop_reason
                    return
        finally:
            turns = self._client._turns.get(session_id, [])
            if self in turns:
                turns.remove(self)


class ClientV2(Client):
    """The v2 client skeleton with `update` done: subclasses implement
    `request_permission`, and may override `on_update` to see every update no turn takes."""

    def __init__(self) -> None:
        #: Each session's state, by session id.
        self.sessions: dict[str, SessionStateV2] = {}
        self._turns: dict[str, list[TurnStreamV2]] = {}

    def turn(self, agent: AgentProxy, request: PromptRequest) -> TurnStreamV2:
        """Send `request` and iterate its updates until the session is idle again."""
        return TurnStreamV2(self, agent, request)

    async def update(self, input: UpdateSessionNotification) -> None:
        """Apply the update to its session's state, then hand it to the turn being iterated
        (or `on_update`)."""
        self.sessions.setdefault(input.session_id, SessionStateV2()).apply(input.update)
        turns = self._turns.get(input.session_id)
        if turns:
            turns[0]._put(input.update)
        else:
            await self.on_update(input)

    async def on_update(self, input: UpdateSessionNotification) -> None:
        """An update no turn being iterated takes; ignored by default."""
        return None
