"""The Python side of the Node-client tests: the quixos directory of examples/quixos_server.py
as the root, plus a few test methods served through `PeerOptions.fallback`:

- `test:slow` waits until it is cancelled; `test:was-cancelled` answers whether it was.
- `test:ticks` `{"count": n}` sends the notifications `test:tick` `{"n": 0..n-1}` to the
  caller, then answers `"done"`: the Node caller must have handled every tick first
  (docs/wire.md §13).

    PYTHONPATH=generated python tests/runtime_ts/py_server.py            # stdio
    PYTHONPATH=generated python tests/runtime_ts/py_server.py --listen   # WebSocket, port 0

Over WebSocket it prints `listening on ws://…` on stderr.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from quixos_server import Directory  # noqa: E402

from idlc_runtime import PeerOptions, Unsupported, current_peer, serve_stdio  # noqa: E402

#: Set when a `test:slow` handler was cancelled.
CANCELLED = asyncio.Event()


async def fallback(method: str, params: Any, notify: bool) -> Any:
    if method == "test:slow":
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            CANCELLED.set()
            raise
    if method == "test:was-cancelled":
        try:
            await asyncio.wait_for(CANCELLED.wait(), 10)
        except TimeoutError:
            return False
        return True
    if method == "test:ticks":
        peer = current_peer()
        for n in range(params["count"]):
            await peer.notify("test:tick", {"n": n})
        return "done"
    raise Unsupported(method)


OPTIONS = PeerOptions(fallback=fallback)


async def listen() -> None:
    from idlc_runtime.web import serve_websocket

    async with serve_websocket(Directory, "127.0.0.1", 0, options=OPTIONS) as server:
        print(f"listening on {server.url}", file=sys.stderr, flush=True)
        await asyncio.Event().wait()


def main() -> None:
    if "--listen" in sys.argv:
        asyncio.run(listen())
    else:
        asyncio.run(serve_stdio(Directory(), options=OPTIONS))


if __name__ == "__main__":
    main()
