"""An agent's command line: stdio, or remote ACP with `--listen HOST:PORT`.

    if __name__ == "__main__":
        agent_main(MyAgent, description="What my agent does.")

Without options the agent is served on stdio, as an editor launches it (`run_agent`, one
agent). With `--listen HOST:PORT` it serves remote ACP instead (docs/acp-remote.md):
streamable HTTP and WebSocket at `http://HOST:PORT/acp`, one agent per connection
(`serve_acp`; ACP v1 and the v2 draft when the agent has a v2 side), until SIGINT or SIGTERM; it writes `listening on http://HOST:PORT/acp` to
stderr once it accepts connections. A port in use or an address not of this machine ends it
with `error: cannot listen on HOST:PORT: …` and status 1, not a traceback.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from idlc_acp.agent import run_agent

if TYPE_CHECKING:
    from idlc_acp.roles import AgentImplementation

#: The largest TCP port.
_MAX_PORT = 65535


def agent_main(
    agent_factory: Callable[[], AgentImplementation],
    *,
    description: str | None = None,
    argv: Sequence[str] | None = None,
    v2_factory: Callable[[], object] | None = None,
) -> None:
    """Serve `agent_factory()` as the command line `argv` (default: `sys.argv[1:]`) asks:
    on stdio, or with `--listen HOST:PORT` one agent per remote connection.

    With `v2_factory` (making an `idlc_acp.v2_agent.AgentV2`), stdio and every `--listen`
    connection serve ACP v1 and the v2 draft, routed by the client's `initialize`
    (`idlc_acp.router`), unless `--v1-only`."""
    # Here, not at the top: `import idlc_acp` does not pay for argparse.
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="serve remote ACP at http://HOST:PORT/acp instead of stdio",
    )
    if v2_factory is not None:
        parser.add_argument(
            "--v1-only",
            action="store_true",
            help="serve ACP v1 only, not the v2 draft beside it",
        )
    args = parser.parse_args(argv)
    v2 = v2_factory if v2_factory is not None and not args.v1_only else None
    if args.listen is None:
        run_agent(agent_factory(), v2=v2() if v2 is not None else None)
        return
    host, separator, port = args.listen.rpartition(":")
    if not separator or not port.isdigit() or int(port) > _MAX_PORT:
        parser.error(f"--listen wants HOST:PORT, not {args.listen!r}")
    try:
        asyncio.run(
            serve_until_stopped(
                agent_factory, host.strip("[]") or "127.0.0.1", int(port), v2_factory=v2
            )
        )
    except ImportError as error:
        sys.exit(f"error: --listen needs the web extra (pip install 'idlc-acp[web]'): {error}")
    except OSError as error:
        # A port in use, an address not of this machine: said plainly, exit status 1.
        sys.exit(f"error: cannot listen on {args.listen}: {error.strerror or error}")


async def serve_until_stopped(
    agent_factory: Callable[[], AgentImplementation] | None,
    host: str,
    port: int,
    *,
    v2_factory: Callable[[], object] | None = None,
) -> None:
    """Serve remote ACP at `host:port` until SIGINT or SIGTERM, one `agent_factory()` per
    connection (and one `v2_factory()`: v1 and v2 routed by `initialize`); says
    `listening on URL` on stderr once it accepts connections (needs
    `pip install 'idlc-acp[web]'`)."""
    from idlc_acp.web import serve_acp

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with serve_acp(agent_factory, host, port, v2_factory=v2_factory) as server:
        print(f"listening on {server.url}", file=sys.stderr, flush=True)
        await stop.wait()
