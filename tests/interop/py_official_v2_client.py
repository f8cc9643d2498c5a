"""An ACP v2 (draft) client written with the official Python SDK 1.0.0rc3's experimental v2 API
(`acp.experimental.v2`): the Python counterpart of js/v2_client.mjs.

    python tests/interop/py_official_v2_client.py --cwd DIR -- AGENT_CMD [ARGS...]

It spawns the agent, initializes at protocol version 2 (`ClientSideConnection.initialize`)
and runs two turns: an echo of two text blocks (the permission asked is allowed) and a long
one cancelled (`cancel_session`) after its first chunk. It prints one JSON object per line,
{"scenario": NAME, ...what was observed}, as v2_client.mjs does; the Python tests judge
(tests/interop/test_official_python_v2.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from acp.experimental import v2
from acp.experimental.v2 import schema

TIMEOUT = 30.0


def emit(record: dict[str, Any]) -> None:
    print(json.dumps(record), flush=True)


def dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


class RecordingClient:
    """Every update by session, in order; permission asked for is allowed once."""

    def __init__(self) -> None:
        self.updates: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self.permissions: list[dict[str, Any]] = []

    def queue(self, session_id: str) -> asyncio.Queue[dict[str, Any]]:
        return self.updates.setdefault(session_id, asyncio.Queue())

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.queue(session_id).put_nowait(dump(update))

    async def request_permission(
        self, session_id: str, title: str, options: list[schema.PermissionOption], **kwargs: Any
    ) -> schema.RequestPermissionResponse:
        subject = kwargs.get("subject")
        self.permissions.append(
            {
                "sessionId": session_id,
                "title": title,
                "subject": None if subject is None else dump(subject),
            }
        )
        allow = next((option for option in options if option.kind == "allow_once"), options[0])
        return schema.RequestPermissionResponse(
            outcome=schema.SelectedPermissionOutcomeVariant(option_id=allow.option_id)
        )

    async def until(self, session_id: str, last: Any) -> list[dict[str, Any]]:
        """The session's updates up to the first for which `last(update)` holds."""
        seen: list[dict[str, Any]] = []
        while True:
            update = await asyncio.wait_for(self.queue(session_id).get(), TIMEOUT)
            seen.append(update)
            if last(update):
                return seen


def is_idle(update: dict[str, Any]) -> bool:
    return update.get("sessionUpdate") == "state_update" and update.get("state") == "idle"


async def main(cwd: str, command: list[str]) -> int:
    process = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    client = RecordingClient()
    connection = v2.connect_to_agent(client, process.stdin, process.stdout)
    try:
        initialized = await connection.initialize(
            protocol_version=v2.PROTOCOL_VERSION,
            info=schema.Implementation(name="py-official-v2-client", version="1.0.0rc3"),
        )
        emit({"scenario": "initialize", "response": dump(initialized)})

        session = await connection.new_session(cwd=cwd)
        text = [schema.TextContentBlock(text=word) for word in ("Hello", "world")]
        ack = await connection.prompt(session_id=session.session_id, prompt=text)
        updates = await client.until(session.session_id, is_idle)
        emit(
            {
                "scenario": "echo",
                "sessionId": session.session_id,
                "ack": dump(ack),
                "updates": updates,
                "stopReason": updates[-1].get("stopReason"),
                "permissions": client.permissions,
            }
        )

        long = [schema.TextContentBlock(text=f"block {number}") for number in range(30)]
        ack = await connection.prompt(session_id=session.session_id, prompt=long)
        seen = await client.until(
            session.session_id, lambda update: update.get("sessionUpdate") == "agent_message_chunk"
        )
        await connection.cancel_session(session_id=session.session_id)
        rest = await client.until(session.session_id, is_idle)
        emit(
            {
                "scenario": "cancel",
                "ack": dump(ack),
                "updates": seen + rest,
                "stopReason": rest[-1].get("stopReason"),
            }
        )
        return 0
    except Exception as error:  # reported, for the test to show
        emit({"scenario": "error", "error": f"{type(error).__name__}: {error}"})
        return 1
    finally:
        await connection.close()
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
            await process.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cwd", required=True)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.cwd, args.command)))
