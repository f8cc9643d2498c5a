"""A walkthrough of the Quixos agent interfaces through the generated proxies.

Run it from the repository root, where `generated/` holds the committed package
`quixos_agent` (it is not installed, so put it on the import path):

    PYTHONPATH=generated python examples/quixos_client.py                        # starts the server itself
    PYTHONPATH=generated python examples/quixos_client.py --tcp 127.0.0.1:8765   # a server started with --tcp
    PYTHONPATH=generated python examples/quixos_client.py --connect ws://127.0.0.1:8765/   # one started with --listen

By default it starts `examples/quixos_server.py` as a child process and talks JSON-RPC to it
over the child's stdin and stdout; with `--tcp` (or `--connect` and a WebSocket URL, with
`--token-env NAME` to send the bearer token held in $NAME) it connects to a running server
instead (every connection gets a directory of its own, so it can be run again and again). It prints
each step: the directory (the connection's root
object) through `AgentDirectoryProxy`, then one admitted request through
`AgentRequestProxy(peer, target=<request ref>)`, which adds `"$target"` to every call.
Every value printed is a typed object decoded by the generated code. `--server-log` shows
the log of the server it starts (on stderr) as well.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from quixos_agent import (
    AgentContextSubjectRef,
    AgentDirectoryProxy,
    AgentRequestObjectRef,
    AgentRequestProxy,
    AgentSubmission,
    ItemData,
    ItemDataControl,
)

from idlc_runtime import (
    ConnectionClosed,
    ErrorCode,
    Peer,
    RpcError,
    Unsupported,
    connect_tcp,
    spawn,
)

SERVER = Path(__file__).with_name("quixos_server.py")
WHEN = "2025-01-01T12:00:00Z"


class WalkthroughFailed(Exception):
    """The server answered something the walkthrough did not expect."""


def step(title: str) -> None:
    print(f"\n== {title}")


def show(label: str, value: object) -> None:
    print(f"   {label:<34} {value!r}")


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise WalkthroughFailed(what)


def submission(text: str, **links: AgentRequestObjectRef) -> AgentSubmission:
    return AgentSubmission(
        text=text,
        source_kind="user",
        source_label="walkthrough",
        created_at=WHEN,
        contexts=[AgentContextSubjectRef("context:docs")],
        causal_depth=0,
        **links,
    )


async def walk(peer: Peer) -> None:
    directory = AgentDirectoryProxy(peer)

    step("The directory is the connection's root object")
    show("data()", await directory.data())
    show("default_agent() before initialize", await directory.default_agent())

    step("initialize() creates the default agent and its initial thread")
    await directory.initialize(instructions="Be brief.", settings='{"model": "small"}')
    show("default_agent()", await directory.default_agent())
    show("initial_thread()", await directory.initial_thread())

    step("create_agent() and create_thread() mint references")
    writer = await directory.create_agent(
        name="writer",
        description="Writes release notes",
        instructions="Write clearly.",
        settings="{}",
    )
    thread = await directory.create_thread(
        agent=writer, title="Release 1.0", kind="chat", created_at=WHEN, contexts=[]
    )
    show("create_agent(name='writer')", writer)
    show("create_thread(agent=writer)", thread)
    show("agents()", sorted(await directory.agents()))
    show("threads()", sorted(await directory.threads()))

    step("admit() turns a submission into a request")
    admission = await directory.admit(
        agent=writer, thread=thread, submission=submission("Draft the notes"), optional_work=False
    )
    show("admit(...)", admission)
    expect(admission.accepted and admission.request is not None, "the submission was refused")
    assert admission.request is not None  # for mypy: `expect` just checked it
    ref = admission.request
    show("pending()", sorted(await directory.pending()))

    step("Optional work is declined while the directory is busy")
    await directory.advertise(profiles="fast,careful", availability="busy")
    declined = await directory.admit(
        agent=writer, submission=submission("Tidy up"), optional_work=True
    )
    show("admit(optional_work=True)", declined)
    expect(not declined.accepted, "optional work was admitted while busy")
    await directory.advertise(profiles="fast,careful", availability="available")
    show("data()", await directory.data())

    step(f"The request is a keyed object: AgentRequestProxy(peer, target={ref!r})")
    request = AgentRequestProxy(peer, target=ref)
    show("admission()", await request.admission())
    show("progress()", await request.progress())
    show("thread()", await request.thread())
    show("directory()", await request.directory())
    show("contexts()", sorted(await request.contexts()))
    show(
        "related(), retry_of(), root()",
        (await request.related(), await request.retry_of(), await request.root()),
    )

    step("claim() fences workers with a generation")
    first = await request.claim(
        attempt="worker-a", expected_generation=0, started_at=WHEN, recover=False
    )
    show("claim(worker-a, expected 0)", first)
    stale = await request.claim(
        attempt="worker-b", expected_generation=0, started_at=WHEN, recover=False
    )
    show("claim(worker-b, expected 0)", stale)
    expect(first.claimed and not stale.claimed, "the generation did not fence the stale claim")
    generation = first.generation

    step("Only the current attempt and generation may act")
    show(
        "transition(worker-b, ...)",
        await request.transition(attempt="worker-b", generation=generation, status="x", reason=""),
    )
    show(
        "transition(worker-a, ...)",
        await request.transition(
            attempt="worker-a", generation=generation, status="writing", reason="drafting"
        ),
    )
    item = await request.steer(
        attempt="worker-a", generation=generation, key="tone", text="Friendlier", created_at=WHEN
    )
    show("steer(key='tone')", item)
    outline = ItemData(
        key="outline",
        kind="note",
        text="1. Features 2. Fixes",
        phase="done",
        sequence=1,
        version=1,
        created_at=WHEN,
        updated_at=WHEN,
        control=ItemDataControl(
            attempt="worker-a", generation=generation, status="writing", reason=""
        ),
    )
    show(
        "upsert_item(data=ItemData(...))",
        await request.upsert_item(attempt="worker-a", generation=generation, data=outline),
    )
    show(
        "ask(key='audience')",
        await request.ask(
            attempt="worker-a",
            generation=generation,
            key="audience",
            title="Who reads these notes?",
            options='["users", "developers"]',
            created_at=WHEN,
            expires_at="2025-01-02T12:00:00Z",
        ),
    )
    show("items()", sorted(await request.items()))
    show("questions()", sorted(await request.questions()))
    show("reserve_child()", await request.reserve_child())
    show("spawned()", await request.spawned())

    step("finish() completes the attempt")
    show(
        "finish(worker-a, generation 0)",
        await request.finish(
            attempt="worker-a", generation=0, status="completed", reason="", ended_at=WHEN
        ),
    )
    done = await request.finish(
        attempt="worker-a",
        generation=generation,
        status="completed",
        result="Release 1.0 brings ...",
        usage='{"tokens": 420}',
        reason="done",
        ended_at=WHEN,
    )
    show(f"finish(worker-a, generation {generation})", done)
    expect(done, "the current attempt could not finish")
    show("progress()", await request.progress())
    show("pending()", sorted(await directory.pending()))
    show("publish_completion() (first)", await request.publish_completion())
    show("publish_completion() (again)", await request.publish_completion())

    step("settle() with notify queues a notification")
    await directory.settle(request=ref, thread=thread, interactive=False, notify=True)
    show("notifications()", sorted(await directory.notifications()))
    await directory.notification_sent(ref)
    show("after notification_sent(ref)", sorted(await directory.notifications()))

    step("correct() admits a follow-up request that retries this one")
    correction = await request.correct(
        errors=["Version number is wrong"], max_corrections=2, created_at=WHEN
    )
    show("correct(...)", correction)
    expect(correction is not None, "no correction was admitted")
    assert correction is not None  # for mypy: `expect` just checked it
    follow_up = AgentRequestProxy(peer, target=correction)
    show("its retry_of()", await follow_up.retry_of())
    show("its root()", await follow_up.root())
    show("its cancel()", await follow_up.cancel())
    show("its progress()", await follow_up.progress())

    step("What the server does not implement, and what does not exist")
    try:
        await directory.reconcile_repair(
            key="k",
            text="",
            configuration="",
            created_at=WHEN,
            confirmed_at=WHEN,
            publication="",
            attempt="",
            generation=0,
            started_at=WHEN,
        )
    except Unsupported as error:
        show("reconcile_repair(...) raised", error)
    else:
        raise WalkthroughFailed("reconcile_repair answered")
    try:
        await AgentRequestProxy(peer, target="request-404").progress()
    except RpcError as error:
        show("a request that does not exist", error)
        expect(error.code == ErrorCode.UNKNOWN_TARGET, "an unknown target answered another error")
    else:
        raise WalkthroughFailed("an unknown target answered")


async def main_async(server_log: bool) -> None:
    argv = [sys.executable, str(SERVER)] + ([] if server_log else ["--quiet"])
    print(f"Starting {' '.join(argv)}")
    async with spawn(argv) as peer:
        await walk(peer)
    print("\nThe server exited when its stdin closed. Done.")


async def main_tcp(host: str, port: int) -> None:
    print(f"Connecting to {host}:{port}")
    async with connect_tcp(host, port) as peer:
        await walk(peer)
    print("\nDisconnected; the server goes on serving other connections. Done.")


async def main_websocket(url: str, token_env: str | None) -> None:
    # Imported here: the runtime's `web` extra is only needed for --connect.
    from idlc_runtime.web import Refused, connect_websocket

    headers = {}
    if token_env is not None:
        token = os.environ.get(token_env, "").strip()
        if not token:
            sys.exit(f"quixos_client: --token-env {token_env}: the variable is unset or empty")
        headers["Authorization"] = f"Bearer {token}"
    print(f"Connecting to {url}")
    try:
        async with connect_websocket(url, headers=headers) as peer:
            await walk(peer)
    except Refused as refusal:
        sys.exit(f"the server refused the connection: {refusal.status} {refusal.reason}")
    print("\nDisconnected; the server goes on serving other connections. Done.")


def _address(text: str) -> tuple[str, int]:
    """`HOST:PORT`, the host maybe an IPv6 address in brackets (`[::1]:8765`, as URLs write it)."""
    host, _, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument(
        "--server-log", action="store_true", help="show the log of the server it starts"
    )
    transport.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        type=_address,
        help="connect to a server started with `quixos_server.py --tcp` instead",
    )
    transport.add_argument(
        "--connect",
        metavar="URL",
        help="connect to a WebSocket server (`quixos_server.py --listen`) at URL instead",
    )
    parser.add_argument(
        "--token-env",
        metavar="NAME",
        help="with --connect: send the bearer token held in $NAME",
    )
    args = parser.parse_args()
    try:
        if args.connect is not None:
            asyncio.run(main_websocket(args.connect, args.token_env))
        elif args.tcp is not None:
            asyncio.run(main_tcp(*args.tcp))
        else:
            asyncio.run(main_async(args.server_log))
    except WalkthroughFailed as failure:
        sys.exit(f"unexpected answer: {failure}")
    except ConnectionClosed as error:
        sys.exit(f"the server closed the connection: {error}")
    except ValueError as error:
        # --connect with something that is not a ws:// or wss:// URL.
        sys.exit(f"cannot connect: {error}")
    except OSError as error:
        # No server there (refused, unreachable): one line, not a traceback.
        sys.exit(f"cannot connect: {error}")


if __name__ == "__main__":
    main()
