"""An ACP v2 (draft) agent written with the official Python SDK 1.0.0rc3's experimental v2 API
(`acp.experimental.v2`), served on stdio behind its `AgentProtocolRouter` (v2 only):

    python tests/interop/py_official_v2_agent.py      (with agent-client-protocol 1.0.0rc3)

It behaves like js/v2_router_agent.mjs: `session/prompt` is answered at once with the user
message's `messageId`; then the user message comes back as a `user_message` update, the
session reports `running`, every text block comes back as an `agent_message_chunk` of one
agent message (about 50 ms apart, so a `session/cancel` can land), and the turn ends with an
idle `state_update` (`end_turn`, or `cancelled` after `session/cancel`).
tests/interop/test_official_python_v2.py drives it with idlc's client.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from acp.experimental import v2
from acp.experimental.negotiation import AgentProtocolRouter
from acp.experimental.v2 import schema


class EchoAgentV2:
    def __init__(self, connection: v2.AgentSideConnection) -> None:
        self.connection = connection
        self.cancelled: dict[str, asyncio.Event] = {}
        self.turns: set[asyncio.Task[None]] = set()

    async def initialize(
        self, protocol_version: int, info: schema.Implementation, **kwargs: Any
    ) -> schema.InitializeResponse:
        return schema.InitializeResponse(
            protocol_version=v2.PROTOCOL_VERSION,
            info=schema.Implementation(name="py-official-v2-agent", version="1.0.0rc3"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> schema.NewSessionResponse:
        return schema.NewSessionResponse(session_id=f"py-{uuid.uuid4()}")

    async def prompt(
        self, session_id: str, prompt: list[Any], **kwargs: Any
    ) -> schema.PromptResponse:
        message_id = str(uuid.uuid4())
        cancelled = self.cancelled[session_id] = asyncio.Event()
        turn = asyncio.get_running_loop().create_task(
            self._turn(session_id, message_id, prompt, cancelled)
        )
        self.turns.add(turn)
        turn.add_done_callback(self.turns.discard)
        return schema.PromptResponse(message_id=message_id)

    async def cancel_session(self, session_id: str, **kwargs: Any) -> None:
        event = self.cancelled.get(session_id)
        if event is not None:
            event.set()

    async def _update(self, session_id: str, update: dict[str, Any]) -> None:
        notification = schema.UpdateSessionNotification.model_validate(
            {"sessionId": session_id, "update": update}
        )
        await self.connection.session_update(session_id=session_id, update=notification.update)

    async def _turn(
        self, session_id: str, message_id: str, prompt: list[Any], cancelled: asyncio.Event
    ) -> None:
        blocks = [
            block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in prompt
        ]
        await self._update(
            session_id,
            {"sessionUpdate": "user_message", "messageId": message_id, "content": blocks},
        )
        await self._update(session_id, {"sessionUpdate": "state_update", "state": "running"})
        answer = str(uuid.uuid4())
        for block in blocks:
            if cancelled.is_set():
                break
            if block.get("type") == "text":
                chunk = {
                    "sessionUpdate": "agent_message_chunk",
                    "messageId": answer,
                    "content": block,
                }
                await self._update(session_id, chunk)
            try:
                await asyncio.wait_for(cancelled.wait(), 0.05)
            except TimeoutError:
                pass
        stop = "cancelled" if cancelled.is_set() else "end_turn"
        await self._update(
            session_id, {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop}
        )


if __name__ == "__main__":
    asyncio.run(AgentProtocolRouter(v2=EchoAgentV2).run())
