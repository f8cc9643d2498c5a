"""Runs a command and copies its stdio, logging every line in both directions.

    python tee.py LOG -- CMD ARGS...

Each line of LOG is a JSON object {"dir": "in" | "out", "line": "<the message>"}: "in" is
what reached the command's stdin, "out" what it wrote to stdout. Used by the ACP tests to
check every message put on the wire against the schema.
"""

from __future__ import annotations

import asyncio
import json
import sys


async def pump(reader: asyncio.StreamReader, write: object, log: object, direction: str) -> None:
    while True:
        line = await reader.readline()
        if not line:
            break
        log.write(json.dumps({"dir": direction, "line": line.decode("utf-8", "replace")}) + "\n")  # type: ignore[attr-defined]
        log.flush()  # type: ignore[attr-defined]
        await write(line)  # type: ignore[operator]


async def main(log_path: str, argv: list[str]) -> int:
    loop = asyncio.get_running_loop()
    child = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 26
    )
    assert child.stdin is not None and child.stdout is not None
    stdin = asyncio.StreamReader(limit=1 << 26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin.buffer)
    out = sys.stdout.buffer

    async def to_child(data: bytes) -> None:
        assert child.stdin is not None
        child.stdin.write(data)
        await child.stdin.drain()

    async def to_parent(data: bytes) -> None:
        out.write(data)
        out.flush()

    with open(log_path, "a", encoding="utf-8") as log:
        inbound = asyncio.ensure_future(pump(stdin, to_child, log, "in"))
        outbound = asyncio.ensure_future(pump(child.stdout, to_parent, log, "out"))
        await inbound
        child.stdin.close()
        await outbound
    return await child.wait()


if __name__ == "__main__":
    separator = sys.argv.index("--")
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[separator + 1 :])))
