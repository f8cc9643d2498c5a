"""A process that writes a line of its own on stdout, then serves the sample API there:
`stdio_transport` hands it stdin and stdout before any `Peer` exists."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from idlc_runtime import Peer, stdio_transport  # noqa: E402
from tests.runtime.stdio_server import NoisyService  # noqa: E402


async def serve() -> None:
    async with stdio_transport() as (source, writer):
        writer.write(b'{"hello":"before the peer"}\n')
        print("noise from print")
        os.write(1, b"noise from fd 1\n")
        async with Peer(source, writer, NoisyService()) as peer:
            await peer.wait_closed()


if __name__ == "__main__":
    asyncio.run(serve())
    print("served", file=sys.stderr)
