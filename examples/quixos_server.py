"""An in-memory Quixos agent directory served over JSON-RPC with the generated skeletons.

Run it from the repository root, where `generated/` holds the committed package
`quixos_agent` (it is not installed, so put it on the import path):

    PYTHONPATH=generated python examples/quixos_server.py                        # one client on stdin/stdout
    PYTHONPATH=generated python examples/quixos_server.py --tcp 127.0.0.1:8765   # TCP clients (port 0: any free)
    PYTHONPATH=generated python examples/quixos_server.py --listen 127.0.0.1:8765   # WebSocket, ws://127.0.0.1:8765/

`--listen` needs the runtime's `web` extra (`pip install 'idlc-runtime[web]'`); with
`--token-env NAME` it admits only clients sending `Authorization: Bearer $NAME`, and
`--allow-origin` names the browser origins it admits (none by default: docs/web.md).

`examples/quixos_client.py` spawns it and walks through every member. Nothing but the
protocol is written to stdout; logging goes to stderr.

What is served
--------------
The root object of a connection is an `AgentDirectory` (`Directory` below). Every request it
admits is an `AgentRequest` (`Request` below) served as a keyed object of the same connection:
its key is the request's reference, so a client reaches it with
`AgentRequestProxy(peer, target=<request ref>)`. Over TCP and WebSocket every connection gets
a directory of its own: keyed objects are registered per connection, and the state lives as long as the
connection that made it, exactly as over stdio.

The rules this implementation keeps
-----------------------------------
- `createAgent` / `createThread` mint references (`agent-1`, `thread-1`, …); a thread needs a
  known agent. `agents`, `threads`, `pending` and `notifications` resolve to what exists.
- `initialize` creates the default agent (or updates its instructions and settings) and an
  initial thread for it; until then `defaultAgent` and `initialThread` resolve to nothing.
- `advertise` sets the profiles and availability that `data` reports. While the directory is
  not advertised as `"available"`, `admit` declines optional work.
- `admit` answers `accepted: false` with a reason for an unknown agent, thread or related
  request, or declined optional work; otherwise it creates the request (and a thread when
  none is given) and answers `accepted: true` with both. A request is `pending` until it is
  finished.
- A request starts with status `"pending"` and generation 0. `claim` succeeds only when
  `expectedGeneration` equals the current generation, the request is not finished, and it
  is not already held by a running attempt (unless `recover` is set, which takes it over);
  it then increments the generation and records the attempt. A stale claim answers
  `claimed: false` with the current generation.
- `transition`, `finish`, `steer`, `upsertItem` and `ask` act only for the current attempt
  and generation of an unfinished request. `transition` and `finish` answer `false`
  otherwise; the three that return a reference raise `CONFLICT` (their result cannot say no).
- `cancel` sets `cancelRequested` and answers whether the request was still open; a request
  nobody has claimed yet is cancelled at once. `reserveChild` reserves one of
  `MAX_CHILDREN` child slots (counted by `spawned`) of an open request.
- `correct` admits a correction of a finished request (same agent and thread, `retryOf` this
  request, the errors appended to the text) while its retries are below `maxCorrections`,
  and answers nothing otherwise.
- `settle` requires a finished request on its own thread; with `notify` the request joins
  `notifications` until `notificationSent`. Its `interactive` flag is accepted and not used
  by this in-memory server. `publishCompletion` answers `true` once, for a finished request.

Unimplemented: `reconcileRepair` (its seed does not say what is repaired or how the repair
relates to existing requests), so it answers -32601 like every member the skeleton leaves.

Application errors: `UNKNOWN_OBJECT` (4004) for a reference to nothing this directory made,
`CONFLICT` (4009) for an action the request's state does not allow.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import signal
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

from quixos_agent import (
    AgentAdmission,
    AgentContextSubjectRef,
    AgentDirectory,
    AgentDirectoryObjectRef,
    AgentItemObjectRef,
    AgentObjectRef,
    AgentQuestionObjectRef,
    AgentRequest,
    AgentRequestClaimOutput,
    AgentRequestObjectRef,
    AgentSubmission,
    AgentThreadObjectRef,
    DirectoryData,
    ItemData,
    RequestData,
    RequestState,
    WebStudioPresentableRef,
)

from idlc_runtime import (
    PeerOptions,
    RpcError,
    SerializeTransactions,
    current_peer,
    serve_stdio,
    serve_tcp,
)

log = logging.getLogger("quixos_server")

#: An argument names an agent, thread or request this directory never made.
UNKNOWN_OBJECT: Final = 4004
#: The request's state does not allow the action (stale attempt, finished, wrong thread).
CONFLICT: Final = 4009

#: How many children one request may reserve.
MAX_CHILDREN: Final = 3
#: The generation is a uint32: a request claimed this often cannot be claimed again.
MAX_GENERATION: Final = 2**32 - 1
#: The reference of the directory itself (what a request's `directory` resolves to).
DIRECTORY_REF: Final = AgentDirectoryObjectRef("directory")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Agent:
    ref: AgentObjectRef
    name: str
    description: str
    instructions: str
    settings: str


@dataclass
class Thread:
    ref: AgentThreadObjectRef
    agent: AgentObjectRef
    title: str
    kind: str
    created_at: str
    contexts: list[AgentContextSubjectRef]


@dataclass
class Item:
    ref: AgentItemObjectRef
    data: ItemData
    subject: WebStudioPresentableRef | None = None


@dataclass
class Question:
    ref: AgentQuestionObjectRef
    title: str
    options: str
    created_at: str
    expires_at: str


@dataclass
class Links:
    """The requests a request points to, as its submission named them."""

    related: AgentRequestObjectRef | None
    retry_of: AgentRequestObjectRef | None
    root: AgentRequestObjectRef | None
    contexts: frozenset[AgentContextSubjectRef]


@dataclass
class Flags:
    optional_work: bool
    claimed: bool = False
    settled: bool = False
    published: bool = False
    spawned: int = 0
    items: dict[str, Item] = field(default_factory=dict)
    questions: dict[str, Question] = field(default_factory=dict)


class Request(AgentRequest):
    """One admitted request, served under its reference."""

    def __init__(
        self,
        directory: Directory,
        ref: AgentRequestObjectRef,
        agent: AgentObjectRef,
        thread: AgentThreadObjectRef,
        data: RequestData,
        links: Links,
        flags: Flags,
        retry_count: int,
    ) -> None:
        self.owner = directory
        self.ref = ref
        self.agent = agent
        self.thread_ref = thread
        self.data = data
        self.links = links
        self.flags = flags
        self.state = RequestState(
            status="pending",
            attempt="",
            generation=0,
            reason="admitted",
            cancel_requested=False,
            retry_count=retry_count,
            notification_pending=False,
        )

    @property
    def finished(self) -> bool:
        return self.state.ended_at is not None

    def holds(self, attempt: str, generation: int) -> bool:
        """Whether `attempt` at `generation` is the current, unfinished attempt."""
        state = self.state
        return (
            not self.finished
            and self.flags.claimed
            and state.attempt == attempt
            and state.generation == generation
        )

    def _require_holder(self, attempt: str, generation: int) -> None:
        if not self.holds(attempt, generation):
            state = self.state
            raise RpcError(
                CONFLICT,
                f"{self.ref} is not held by attempt {attempt!r} at generation {generation}",
                {"attempt": state.attempt, "generation": state.generation, "status": state.status},
            )

    # ---------------------------------------------------------------- values and relations

    async def spawned(self) -> int:
        return self.flags.spawned

    async def admission(self) -> RequestData:
        return self.data

    async def progress(self) -> RequestState:
        return self.state

    async def thread(self) -> AgentThreadObjectRef:
        return self.thread_ref

    async def directory(self) -> AgentDirectoryObjectRef:
        return DIRECTORY_REF

    async def items(self) -> frozenset[AgentItemObjectRef]:
        return frozenset(item.ref for item in self.flags.items.values())

    async def questions(self) -> frozenset[AgentQuestionObjectRef]:
        return frozenset(question.ref for question in self.flags.questions.values())

    async def contexts(self) -> frozenset[AgentContextSubjectRef]:
        return self.links.contexts

    async def related(self) -> AgentRequestObjectRef | None:
        return self.links.related

    async def retry_of(self) -> AgentRequestObjectRef | None:
        return self.links.retry_of

    async def root(self) -> AgentRequestObjectRef | None:
        return self.links.root

    # ---------------------------------------------------------------- the attempt's life

    async def claim(
        self, *, attempt: str, expected_generation: int, started_at: str, recover: bool
    ) -> AgentRequestClaimOutput:
        state = self.state
        held = self.flags.claimed
        if (
            self.finished
            or expected_generation != state.generation
            or (held and not recover)
            or state.generation == MAX_GENERATION
        ):
            log.info("%s: claim by %r refused (generation %d)", self.ref, attempt, state.generation)
            return AgentRequestClaimOutput(claimed=False, generation=state.generation)
        self.flags.claimed = True
        state.generation += 1
        state.attempt = attempt
        state.status = "running"
        state.reason = "recovered" if held else "claimed"
        state.started_at = started_at
        log.info("%s: claimed by %r at generation %d", self.ref, attempt, state.generation)
        return AgentRequestClaimOutput(claimed=True, generation=state.generation)

    async def transition(self, *, attempt: str, generation: int, status: str, reason: str) -> bool:
        if not self.holds(attempt, generation):
            return False
        self.state.status = status
        self.state.reason = reason
        return True

    async def finish(
        self,
        *,
        attempt: str,
        generation: int,
        status: str,
        result: str | None = None,
        raw_output: str | None = None,
        usage: str | None = None,
        reason: str,
        ended_at: str,
    ) -> bool:
        if not self.holds(attempt, generation):
            return False
        state = self.state
        state.status = status
        state.result = result
        state.raw_output = raw_output
        state.usage = usage
        state.reason = reason
        state.ended_at = ended_at
        log.info("%s: finished with status %r", self.ref, status)
        return True

    async def cancel(self) -> bool:
        if self.finished:
            return False
        state = self.state
        state.cancel_requested = True
        if not self.flags.claimed:
            # Nobody works on it yet, so nobody else would end it.
            state.status = "cancelled"
            state.reason = "cancelled before it was claimed"
            state.ended_at = _now()
        return True

    async def reserve_child(self) -> bool:
        if self.finished or self.state.cancel_requested or self.flags.spawned >= MAX_CHILDREN:
            return False
        self.flags.spawned += 1
        return True

    async def publish_completion(self) -> bool:
        if not self.finished or self.flags.published:
            return False
        self.flags.published = True
        return True

    async def correct(
        self, *, errors: list[str], max_corrections: int, created_at: str
    ) -> AgentRequestObjectRef | None:
        if not errors or not self.finished or self.state.retry_count >= max_corrections:
            return None
        listing = "\n".join(f"- {error}" for error in errors)
        submission = AgentSubmission(
            text=f"{self.data.text}\n\nCorrect these errors:\n{listing}",
            data=self.data.data,
            source_kind="correction",
            source_label=self.ref,
            created_at=created_at,
            contexts=sorted(self.links.contexts),
            retry_of=self.ref,
            root=self.links.root if self.links.root is not None else self.ref,
            causal_depth=self.data.causal_depth + 1,
        )
        correction = self.owner.add_request(
            self.agent, self.thread_ref, submission, optional_work=False
        )
        correction.state.retry_count = self.state.retry_count + 1
        return correction.ref

    # ---------------------------------------------------------------- what an attempt makes

    async def steer(
        self,
        *,
        attempt: str,
        generation: int,
        key: str,
        text: str,
        profile: str | None = None,
        created_at: str,
    ) -> AgentItemObjectRef:
        self._require_holder(attempt, generation)
        existing = self.flags.items.get(key)
        data = ItemData(
            key=key,
            kind="steering",
            text=text,
            phase="pending",
            activity=profile,
            sequence=self.owner.next_sequence(),
            version=existing.data.version + 1 if existing is not None else 1,
            created_at=existing.data.created_at if existing is not None else created_at,
            updated_at=created_at,
        )
        return self._store_item(key, data, None)

    async def upsert_item(
        self,
        *,
        attempt: str,
        generation: int,
        data: ItemData,
        subject: WebStudioPresentableRef | None = None,
    ) -> AgentItemObjectRef:
        self._require_holder(attempt, generation)
        return self._store_item(data.key, data, subject)

    def _store_item(
        self, key: str, data: ItemData, subject: WebStudioPresentableRef | None
    ) -> AgentItemObjectRef:
        ref = AgentItemObjectRef(f"{self.ref}/item/{key}")
        self.flags.items[key] = Item(ref, data, subject)
        return ref

    async def ask(
        self,
        *,
        attempt: str,
        generation: int,
        key: str,
        title: str,
        options: str,
        created_at: str,
        expires_at: str,
    ) -> AgentQuestionObjectRef:
        self._require_holder(attempt, generation)
        ref = AgentQuestionObjectRef(f"{self.ref}/question/{key}")
        self.flags.questions[key] = Question(ref, title, options, created_at, expires_at)
        return ref


class Directory(AgentDirectory):
    """The root object of one connection: agents, threads and the requests admitted."""

    def __init__(self) -> None:
        self._agents: dict[AgentObjectRef, Agent] = {}
        self._threads: dict[AgentThreadObjectRef, Thread] = {}
        self._requests: dict[AgentRequestObjectRef, Request] = {}
        self._minted: dict[str, int] = {}
        self._sequence = 0
        self._profiles = ""
        self._availability = "available"
        self._default_agent: AgentObjectRef | None = None
        self._initial_thread: AgentThreadObjectRef | None = None

    def _mint(self, kind: str) -> str:
        self._minted[kind] = number = self._minted.get(kind, 0) + 1
        return f"{kind}-{number}"

    def next_sequence(self) -> int:
        self._sequence += 1
        return self._sequence

    def _request(self, ref: AgentRequestObjectRef) -> Request:
        request = self._requests.get(ref)
        if request is None:
            raise RpcError(UNKNOWN_OBJECT, f"Unknown request: {ref}", {"request": ref})
        return request

    # ---------------------------------------------------------------- values and relations

    async def data(self) -> DirectoryData:
        pending = [request for request in self._requests.values() if not request.finished]
        return DirectoryData(
            sequence=self._sequence,
            pending=len(pending),
            ordinary_pending=sum(1 for request in pending if not request.flags.optional_work),
            notification_pending=len(await self.notifications()),
            profiles=self._profiles,
            availability=self._availability,
        )

    async def agents(self) -> frozenset[AgentObjectRef]:
        return frozenset(self._agents)

    async def threads(self) -> frozenset[AgentThreadObjectRef]:
        return frozenset(self._threads)

    async def pending(self) -> frozenset[AgentRequestObjectRef]:
        return frozenset(ref for ref, request in self._requests.items() if not request.finished)

    async def notifications(self) -> frozenset[AgentRequestObjectRef]:
        return frozenset(
            ref for ref, request in self._requests.items() if request.state.notification_pending
        )

    async def default_agent(self) -> AgentObjectRef | None:
        return self._default_agent

    async def initial_thread(self) -> AgentThreadObjectRef | None:
        return self._initial_thread

    # ---------------------------------------------------------------- operations

    async def create_agent(
        self, *, name: str, description: str, instructions: str, settings: str
    ) -> AgentObjectRef:
        ref = AgentObjectRef(self._mint("agent"))
        self._agents[ref] = Agent(ref, name, description, instructions, settings)
        log.info("created %s (%s)", ref, name)
        return ref

    async def create_thread(
        self,
        *,
        agent: AgentObjectRef,
        title: str,
        kind: str,
        created_at: str,
        contexts: list[AgentContextSubjectRef],
    ) -> AgentThreadObjectRef:
        if agent not in self._agents:
            raise RpcError(UNKNOWN_OBJECT, f"Unknown agent: {agent}", {"agent": agent})
        return self._add_thread(agent, title, kind, created_at, contexts)

    def _add_thread(
        self,
        agent: AgentObjectRef,
        title: str,
        kind: str,
        created_at: str,
        contexts: list[AgentContextSubjectRef],
    ) -> AgentThreadObjectRef:
        ref = AgentThreadObjectRef(self._mint("thread"))
        self._threads[ref] = Thread(ref, agent, title, kind, created_at, list(contexts))
        log.info("created %s for %s", ref, agent)
        return ref

    async def initialize(self, *, instructions: str, settings: str) -> None:
        if self._default_agent is None:
            self._default_agent = await self.create_agent(
                name="default",
                description="The directory's default agent",
                instructions=instructions,
                settings=settings,
            )
        else:
            agent = self._agents[self._default_agent]
            agent.instructions = instructions
            agent.settings = settings
        if self._initial_thread is None:
            self._initial_thread = self._add_thread(
                self._default_agent, "Initial thread", "initial", _now(), []
            )

    async def advertise(self, *, profiles: str, availability: str) -> None:
        self._profiles = profiles
        self._availability = availability

    async def admit(
        self,
        *,
        agent: AgentObjectRef,
        thread: AgentThreadObjectRef | None = None,
        submission: AgentSubmission,
        optional_work: bool,
    ) -> AgentAdmission:
        refusal = self._refusal(agent, thread, submission, optional_work)
        if refusal is not None:
            log.info("declined a submission for %s: %s", agent, refusal)
            return AgentAdmission(accepted=False, reason=refusal)
        if thread is None:
            title = submission.text.splitlines()[0][:60] if submission.text else "Untitled"
            thread = self._add_thread(
                agent, title, submission.source_kind, submission.created_at, submission.contexts
            )
        request = self.add_request(agent, thread, submission, optional_work)
        return AgentAdmission(accepted=True, thread=thread, request=request.ref)

    def _refusal(
        self,
        agent: AgentObjectRef,
        thread: AgentThreadObjectRef | None,
        submission: AgentSubmission,
        optional_work: bool,
    ) -> str | None:
        if agent not in self._agents:
            return f"unknown agent {agent}"
        if thread is not None:
            known = self._threads.get(thread)
            if known is None:
                return f"unknown thread {thread}"
            if known.agent != agent:
                return f"{thread} belongs to {known.agent}, not {agent}"
        for name, ref in (
            ("related", submission.related),
            ("retryOf", submission.retry_of),
            ("root", submission.root),
        ):
            if ref is not None and ref not in self._requests:
                return f"unknown {name} request {ref}"
        if optional_work and self._availability != "available":
            return f"optional work declined: the directory is {self._availability}"
        return None

    def add_request(
        self,
        agent: AgentObjectRef,
        thread: AgentThreadObjectRef,
        submission: AgentSubmission,
        optional_work: bool,
    ) -> Request:
        """Create a request and serve it, on the calling connection, under its reference."""
        settings = self._agents[agent]
        configuration = json.dumps(
            {
                "instructions": settings.instructions,
                "settings": settings.settings,
                "profile": submission.profile,
            },
            sort_keys=True,
        )
        data = RequestData(
            text=submission.text,
            data=submission.data,
            configuration=configuration,
            configuration_digest=hashlib.sha256(configuration.encode()).hexdigest(),
            response_kind=submission.response if submission.response is not None else "text",
            sequence=self.next_sequence(),
            created_at=submission.created_at,
            source_kind=submission.source_kind,
            source_label=submission.source_label,
            publication=submission.publication,
            causal_depth=submission.causal_depth,
            interactive=submission.source_kind == "user",
        )
        links = Links(
            related=submission.related,
            retry_of=submission.retry_of,
            root=submission.root,
            contexts=frozenset(submission.contexts),
        )
        ref = AgentRequestObjectRef(self._mint("request"))
        request = Request(self, ref, agent, thread, data, links, Flags(optional_work), 0)
        self._requests[ref] = request
        current_peer().register(ref, request)
        log.info("admitted %s on %s", ref, thread)
        return request

    async def settle(
        self,
        *,
        request: AgentRequestObjectRef,
        thread: AgentThreadObjectRef,
        interactive: bool,
        notify: bool,
    ) -> None:
        settled = self._request(request)
        if settled.thread_ref != thread:
            raise RpcError(CONFLICT, f"{request} is on {settled.thread_ref}, not on {thread}")
        if not settled.finished:
            raise RpcError(
                CONFLICT, f"{request} has not finished", {"status": settled.state.status}
            )
        settled.flags.settled = True
        settled.state.notification_pending = notify

    async def notification_sent(self, input: AgentRequestObjectRef) -> None:
        self._request(input).state.notification_pending = False


OPTIONS: Final = PeerOptions(interceptors=(SerializeTransactions(),))


async def serve_tcp_until_stopped(host: str, port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with serve_tcp(Directory, host, port, options=OPTIONS) as server:
        # Printed even with --quiet: scripts and tests read it to learn the port (given 0).
        print(f"quixos_server: listening on {host}:{server.port}", file=sys.stderr, flush=True)
        await stop.wait()
    log.info("stopped")


async def serve_websocket_until_stopped(
    host: str, port: int, token_env: str | None, origins: list[str]
) -> None:
    # Imported here: stdio and TCP need no more than the runtime itself.
    from idlc_runtime.web import bearer_token_from_env, serve_websocket

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    authenticate = bearer_token_from_env(token_env) if token_env is not None else None
    async with serve_websocket(
        Directory,
        host,
        port,
        options=OPTIONS,
        authenticate=authenticate,
        allowed_origins=origins,
    ) as server:
        # Printed even with --quiet: scripts and tests read it to learn the port (given 0).
        print(f"quixos_server: listening on {server.url}", file=sys.stderr, flush=True)
        await stop.wait()
    log.info("stopped")


def _address(text: str) -> tuple[str, int]:
    """`HOST:PORT`, the host maybe an IPv6 address in brackets (`[::1]:8765`, as URLs write it)."""
    host, _, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument(
        "--tcp", metavar="HOST:PORT", type=_address, help="serve TCP instead of stdio"
    )
    transport.add_argument(
        "--listen",
        metavar="HOST:PORT",
        type=_address,
        help="serve WebSocket at ws://HOST:PORT/ instead of stdio",
    )
    parser.add_argument(
        "--token-env",
        metavar="NAME",
        help="with --listen: admit only clients sending the bearer token held in $NAME",
    )
    parser.add_argument(
        "--allow-origin",
        metavar="ORIGIN",
        action="append",
        default=[],
        help="with --listen: a browser origin to admit (repeatable; none by default)",
    )
    parser.add_argument("--quiet", action="store_true", help="log warnings and errors only")
    args = parser.parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(name)s: %(message)s",
    )
    if args.listen is not None:
        host, port = args.listen
        try:
            asyncio.run(
                serve_websocket_until_stopped(host, port, args.token_env, args.allow_origin)
            )
        except ValueError as error:  # --token-env names an empty variable
            sys.exit(f"quixos_server: {error}")
        except OSError as error:  # the port is taken, the address is not this machine's …
            sys.exit(f"quixos_server: cannot listen on {host}:{port}: {error.strerror or error}")
    elif args.tcp is not None:
        host, port = args.tcp
        try:
            asyncio.run(serve_tcp_until_stopped(host, port))
        except OSError as error:
            sys.exit(f"quixos_server: cannot listen on {host}:{port}: {error.strerror or error}")
    else:
        try:
            asyncio.run(serve_stdio(Directory(), options=OPTIONS))
        except KeyboardInterrupt:
            sys.exit(130)


if __name__ == "__main__":
    main()
