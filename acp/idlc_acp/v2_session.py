"""The agent's handle on one ACP v2 (draft) session: v1's `idlc_acp.session` in v2's shape.

`SessionV2` is what an agent says in a session on one connection, inside a turn or not:
message chunks carrying their `messageId`, thoughts, plans by id, tool calls and
agent-owned terminals patched by id (`tool_call_update`, `terminal_update`: only the
fields given are sent), context usage, elicitations, and the session's state snapshots:
`running`, `requires_action`, `idle` with its stop reason, each carrying the `background`
list once the session reports background work. `idlc_acp.v2_agent.TurnV2` is the handle of
one turn (a `SessionV2` with its prompt); `AgentV2.session(session_id)` gives the handle of
a session outside a turn (replaying history on `session/resume`, background work).

Every handle of one session on one connection shares its `_Work`: the state last
reported, the background list, the tool calls and terminals the client may cancel
(`tool_call/cancel`, `terminal/cancel`, answered by `AgentV2`) and the tasks of its
background work, which outlive the turn that started them and stop on `session/close` or
when the connection ends.

    async with await session.run_terminal(["pytest", "-q"], cwd=cwd) as terminal:
        await session.update_tool_call(call, content=[terminal.content()])
        status = await terminal.wait()
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import inspect
import logging
import os
import shlex
import signal as signals
import uuid
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, TypeVar, cast

import msgspec

from idlc_acp.v2 import (
    BackgroundWork,
    BackgroundWorkTerminal,
    BackgroundWorkToolCall,
    ClientCapabilities,
    ClientProxy,
    CompleteElicitationNotification,
    ContentBlock,
    ContentBlockText,
    Cost,
    CreateElicitationRequestFormOption1,
    CreateElicitationRequestUrlOption1,
    CreateElicitationResponse,
    ElicitationSchema,
    PermissionOption,
    PermissionOptionKind,
    PlanEntry,
    PlanUpdateContentItems,
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    RequestPermissionSubjectToolCall,
    SessionUpdate,
    SessionUpdateAgentMessageChunk,
    SessionUpdateAgentThoughtChunk,
    SessionUpdatePlanUpdate,
    SessionUpdateStateUpdateIdleDefault,
    SessionUpdateStateUpdateRequiresAction,
    SessionUpdateStateUpdateRunning,
    SessionUpdateTerminalOutputChunk,
    SessionUpdateTerminalUpdate,
    SessionUpdateToolCallContentChunk,
    SessionUpdateToolCallUpdate,
    SessionUpdateUsageUpdate,
    TerminalCancelCapabilities,
    TerminalCapabilities,
    TerminalExitStatus,
    TerminalOutput,
    TerminalSize,
    ToolCallCancelCapabilities,
    ToolCallCapabilities,
    ToolCallContent,
    ToolCallContentContent,
    ToolCallContentTerminal,
    ToolCallLocation,
    ToolCallStatus,
    ToolCallUpdate,
    ToolKind,
    UpdateSessionNotification,
)
from idlc_runtime import Peer, Unsupported
from idlc_runtime.hooks import JsonValue

log = logging.getLogger("idlc_acp")

#: The foreground state a session last reported (a new session is idle).
StateV2 = Literal["idle", "running", "requires_action"]

#: The tool call statuses after which a tool call changes no more.
FINAL_STATUSES = frozenset(
    {ToolCallStatus.COMPLETED, ToolCallStatus.FAILED, ToolCallStatus.CANCELLED}
)

#: How much of a terminal's output one `terminal_output_chunk` carries at most.
CHUNK_BYTES = 64 * 1024
#: How much of a terminal's output `TerminalV2.output` keeps (the last bytes): a command
#: may print without end, and every byte has gone to the client already.
OUTPUT_LIMIT = 1024 * 1024
#: Seconds between `terminal/cancel`'s SIGTERM and the SIGKILL of a command still running.
KILL_GRACE = 5.0
#: Terminals run in a process group of their own where there are groups (POSIX).
_GROUPS = hasattr(os, "killpg")


def tool_text(text: str) -> ToolCallContentContent:
    """A tool call's content item holding one text block."""
    return ToolCallContentContent(content=ContentBlockText(text=text))


_T = TypeVar("_T")

#: A patch field not given: left out of the update, so the client keeps its value (a
#: field given as None is sent as `null`, which clears it).
Unset = msgspec.UnsetType
UNSET = msgspec.UNSET


def _content(
    content: Sequence[ToolCallContent] | str | None | Unset,
) -> list[ToolCallContent] | None | Unset:
    if content is None or content is UNSET:
        return content
    if isinstance(content, str):
        return [tool_text(content)]
    return list(content)


def _listed(items: Sequence[Any] | None | Unset) -> list[Any] | None | Unset:
    if items is None or items is UNSET:
        return items
    return list(items)


def _known(value: _T | None) -> _T | Unset:
    """What a new id's field is sent as: nothing when not known (a new tool call or
    terminal starts at the protocol's defaults, so `null` would say nothing more)."""
    return UNSET if value is None else value


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


# ---------------------------------------------------------------- what a session has going


@dataclass(eq=False)
class _Work:
    """One session's activity on one connection, shared by every handle on it."""

    state: StateV2 = "idle"
    #: The background list, by `terminal:ID` / `tool_call:ID`; None while not reported.
    background: dict[str, BackgroundWork] | None = None
    #: The tool calls and terminals the client may cancel, with what cancels each.
    tool_calls: dict[str, Callable[[], object]] = field(default_factory=dict)
    terminals: dict[str, Callable[[], object]] = field(default_factory=dict)
    #: Tool calls announced and not yet final (a background tool call ends on one).
    open_tool_calls: set[str] = field(default_factory=set)
    #: The tasks of background work and of terminals' output: stopped on close.
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    def background_list(self) -> list[BackgroundWork] | None:
        return None if self.background is None else list(self.background.values())


class SessionWorkV2:
    """The `_Work` of each session on each connection (`TurnControlV2` keeps one): what
    makes every handle of a session see the same state, background list and cancellers."""

    def __init__(self) -> None:
        self._work: weakref.WeakKeyDictionary[Peer, dict[str, _Work]] = weakref.WeakKeyDictionary()
        #: The connections whose end is watched, to stop their sessions' background work,
        #: and the watching tasks (kept: the loop holds tasks weakly).
        self._watched: weakref.WeakSet[Peer] = weakref.WeakSet()
        self._watchers: set[asyncio.Task[None]] = set()

    def of(self, peer: Peer, session_id: str) -> _Work:
        sessions = self._work.setdefault(peer, {})
        work = sessions.get(session_id)
        if work is None:
            work = sessions[session_id] = _Work()
        if peer not in self._watched:
            self._watched.add(peer)
            self._watch(peer)
        return work

    def find(self, peer: Peer, session_id: str) -> _Work | None:
        return self._work.get(peer, {}).get(session_id)

    def _watch(self, peer: Peer) -> None:
        async def stop_when_closed() -> None:
            try:
                await peer.wait_closed()
            except RuntimeError:  # never started: nothing runs on it
                return
            for session_id in list(self._work.get(peer, {})):
                await self.stop(peer, session_id)

        watcher = asyncio.get_running_loop().create_task(
            stop_when_closed(), name="acp-v2-session-work"
        )
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)

    async def stop(self, peer: Peer, session_id: str) -> None:
        """Stops the session's background work and forgets its activity: what
        `session/close` does after cancelling its turns. Each piece of work ends as its own
        code says on cancellation (a terminal reports its exit, a tool call `cancelled`)."""
        work = self._work.get(peer, {}).get(session_id)
        if work is None:
            return
        tasks = [task for task in work.tasks if not task.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            log.debug("stopping %d piece(s) of work of session %s", len(tasks), session_id)
            await asyncio.wait(tasks)
        self._work.get(peer, {}).pop(session_id, None)


# ---------------------------------------------------------------- the handle


@dataclass(eq=False)
class SessionV2:
    """One v2 session of one client, as an agent talks to it.

    Every method is one ACP message (`session/update`, `elicitation/*`) with the session id
    filled in, except `run_terminal`, `in_background` and `terminal_in_background`, which
    run work and report it.
    """

    session_id: str
    client: ClientProxy
    #: What the client offered in `initialize` (None before it: not served by AgentV2).
    capabilities: ClientCapabilities | None
    _work: _Work = field(default_factory=_Work, kw_only=True, repr=False)
    #: The tool calls this handle announced and did not hand to background work.
    _announced: set[str] = field(default_factory=set, kw_only=True, repr=False)

    # ------------------------------------------------------------ session/update

    async def update(self, update: SessionUpdate) -> None:
        """Sends any `session/update` for this session. A `state_update` is noted as the
        session's state and carries the background list once that is reported."""
        config = getattr(type(update), "__struct_config__", None)
        if config is not None and config.tag == "state_update":
            state = getattr(update, "state", None)
            if state in ("idle", "running", "requires_action"):
                self._work.state = state
            background = self._work.background_list()
            fields = getattr(type(update), "__struct_fields__", ())
            if background is not None and "background" in fields:
                if getattr(update, "background", None) is None:
                    stamped: Any = msgspec.structs.replace(cast(Any, update), background=background)
                    update = stamped
        await self.client.update(
            UpdateSessionNotification(session_id=self.session_id, update=update)
        )

    @property
    def state(self) -> StateV2:
        """The foreground state this session last reported on this connection."""
        return self._work.state

    async def running(self) -> None:
        """`state_update` `running`: foreground work is in progress (again)."""
        await self.update(SessionUpdateStateUpdateRunning())

    async def requires_action(self) -> None:
        """`state_update` `requires_action`: the foreground work as a whole waits for the
        user (report `running` when it goes on, as `TurnV2.waiting_for_user` does)."""
        await self.update(SessionUpdateStateUpdateRequiresAction())

    async def sync_state(self) -> None:
        """A snapshot of the current state, with the background list if reported: what
        `session/resume` sends after its replay (an idle snapshot carries no stop reason,
        being no new end of work)."""
        snapshot: SessionUpdate
        if self._work.state == "running":
            snapshot = SessionUpdateStateUpdateRunning()
        elif self._work.state == "requires_action":
            snapshot = SessionUpdateStateUpdateRequiresAction()
        else:
            snapshot = SessionUpdateStateUpdateIdleDefault()
        await self.update(snapshot)

    async def replay(self, history: Sequence[SessionUpdate]) -> None:
        """Sends a session's retained history, in order (`session/resume` with
        `replayFrom`); the state snapshot that must follow is sent for you by AgentV2."""
        for update in history:
            await self.update(update)

    async def send(self, content: ContentBlock, *, message_id: str | None = None) -> str:
        """An `agent_message_chunk` holding `content`, in the agent message `message_id`
        (a new one unless given); the message id."""
        message_id = message_id or str(uuid.uuid4())
        await self.update(SessionUpdateAgentMessageChunk(message_id=message_id, content=content))
        return message_id

    async def send_text(self, text: str, *, message_id: str | None = None) -> str:
        """An `agent_message_chunk` of `text`; the message id (see `send`)."""
        return await self.send(ContentBlockText(text=text), message_id=message_id)

    async def send_thought(self, text: str, *, message_id: str | None = None) -> str:
        """An `agent_thought_chunk` of `text`, in the thought `message_id` (a new one unless
        given); the thought's message id."""
        message_id = message_id or str(uuid.uuid4())
        await self.update(
            SessionUpdateAgentThoughtChunk(
                message_id=message_id, content=ContentBlockText(text=text)
            )
        )
        return message_id

    async def plan(self, entries: Sequence[PlanEntry], *, plan_id: str = "plan") -> str:
        """The whole plan `plan_id` as it stands (the client replaces its copy of that plan
        with each one); the plan id."""
        await self.update(
            SessionUpdatePlanUpdate(
                plan=PlanUpdateContentItems(plan_id=plan_id, entries=list(entries))
            )
        )
        return plan_id

    async def usage(self, used: int, size: int, *, cost: Cost | None | Unset = UNSET) -> None:
        """`usage_update`: `used` of `size` context tokens, and the session's cost so far
        (not given: the client keeps the last one; None clears it)."""
        await self.update(SessionUpdateUsageUpdate(used=used, size=size, cost=cost))

    # ------------------------------------------------------------ tool calls

    async def start_tool_call(
        self,
        title: str,
        *,
        kind: ToolKind | None = None,
        status: ToolCallStatus = ToolCallStatus.PENDING,
        locations: Sequence[ToolCallLocation] | None = None,
        content: Sequence[ToolCallContent] | str | None = None,
        name: str | None = None,
        raw_input: JsonValue | None = None,
        tool_call_id: str | None = None,
        cancel: Callable[[], object] | None = None,
    ) -> str:
        """Announces a tool call (a `tool_call_update` for a new id); its id (made up
        unless given). With `cancel`, it advertises `capabilities.cancel`, and a
        `tool_call/cancel` from the client calls `cancel()` (which must lead to a final
        status) until the call reaches one."""
        call_id = tool_call_id or new_id("call")
        capabilities: ToolCallCapabilities | Unset = UNSET
        if cancel is not None:
            self._work.tool_calls[call_id] = cancel
            capabilities = ToolCallCapabilities(cancel=ToolCallCancelCapabilities())
        if status not in FINAL_STATUSES:
            self._work.open_tool_calls.add(call_id)
            self._announced.add(call_id)
        await self.update(
            SessionUpdateToolCallUpdate(
                tool_call_id=call_id,
                title=title,
                kind=_known(kind),
                status=status,
                locations=_known(_listed(locations)),
                content=_known(_content(content)),
                name=_known(name),
                raw_input=_known(raw_input),
                capabilities=capabilities,
            )
        )
        return call_id

    async def update_tool_call(
        self,
        tool_call_id: str,
        *,
        status: ToolCallStatus | None | Unset = UNSET,
        title: str | None | Unset = UNSET,
        kind: ToolKind | None | Unset = UNSET,
        content: Sequence[ToolCallContent] | str | None | Unset = UNSET,
        locations: Sequence[ToolCallLocation] | None | Unset = UNSET,
        raw_output: JsonValue | Unset = UNSET,
    ) -> None:
        """Patches the tool call `tool_call_id`: only the fields given are sent (the others
        keep their value on the client), and a field given as None is sent as `null`, which
        clears it (`status` and `kind` go back to `pending` and `other`); text `content` is
        one text content block. A final status withdraws its cancel control
        (`capabilities: {}`)."""
        capabilities: ToolCallCapabilities | Unset = UNSET
        if status in FINAL_STATUSES:
            self._work.open_tool_calls.discard(tool_call_id)
            if self._work.tool_calls.pop(tool_call_id, None) is not None:
                capabilities = ToolCallCapabilities()
        await self.update(
            SessionUpdateToolCallUpdate(
                tool_call_id=tool_call_id,
                status=status,
                title=title,
                kind=kind,
                content=_content(content),
                locations=_listed(locations),
                raw_output=raw_output,
                capabilities=capabilities,
            )
        )

    async def add_tool_call_content(self, tool_call_id: str, content: ToolCallContent) -> None:
        """`tool_call_content_chunk`: one content item appended to the tool call's."""
        await self.update(
            SessionUpdateToolCallContentChunk(tool_call_id=tool_call_id, content=content)
        )

    def cancel_tool_call(self, tool_call_id: str) -> bool:
        """What `tool_call/cancel` does: calls the tool call's `cancel`; False if it has
        none (unknown, final or not cancellable). It stays cancellable until its final
        status, which withdraws the control."""
        return self._cancel(self._work.tool_calls, tool_call_id)

    # ------------------------------------------------------------ terminals

    async def start_terminal(
        self,
        command: str,
        *,
        cwd: str | None = None,
        size: TerminalSize | None = None,
        terminal_id: str | None = None,
        cancel: Callable[[], object] | None = None,
    ) -> str:
        """Announces an agent-owned terminal (a `terminal_update` for a new id); its id.
        With `cancel`, it advertises `capabilities.cancel`, and a `terminal/cancel` calls
        `cancel()` (which must lead to `exit_terminal`) until it exited."""
        terminal = terminal_id or new_id("term")
        capabilities: TerminalCapabilities | Unset = UNSET
        if cancel is not None:
            self._work.terminals[terminal] = cancel
            capabilities = TerminalCapabilities(cancel=TerminalCancelCapabilities())
        await self.update(
            SessionUpdateTerminalUpdate(
                terminal_id=terminal,
                command=command,
                cwd=_known(cwd),
                size=_known(size),
                capabilities=capabilities,
            )
        )
        return terminal

    async def terminal_output(self, terminal_id: str, data: bytes) -> None:
        """`terminal_output_chunk`: `data` appended to the terminal's output."""
        await self.update(
            SessionUpdateTerminalOutputChunk(
                terminal_id=terminal_id, data=base64.b64encode(data).decode("ascii")
            )
        )

    async def update_terminal(
        self,
        terminal_id: str,
        *,
        output: bytes | None | Unset = UNSET,
        size: TerminalSize | None | Unset = UNSET,
    ) -> None:
        """Patches the terminal: `output` replaces its whole output, `size` its size; only
        what is given is sent, and None is sent as `null`, which clears it."""
        await self.update(
            SessionUpdateTerminalUpdate(
                terminal_id=terminal_id,
                output=(
                    TerminalOutput(data=base64.b64encode(output).decode("ascii"))
                    if isinstance(output, bytes)
                    else output
                ),
                size=size,
            )
        )

    async def exit_terminal(
        self, terminal_id: str, *, exit_code: int | None = None, signal: str | None = None
    ) -> None:
        """The terminal's command exited (`exitStatus`); its cancel control is withdrawn."""
        capabilities: TerminalCapabilities | Unset = UNSET
        if self._work.terminals.pop(terminal_id, None) is not None:
            capabilities = TerminalCapabilities()
        await self.update(
            SessionUpdateTerminalUpdate(
                terminal_id=terminal_id,
                exit_status=TerminalExitStatus(exit_code=exit_code, signal=signal),
                capabilities=capabilities,
            )
        )

    def cancel_terminal(self, terminal_id: str) -> bool:
        """What `terminal/cancel` does: calls the terminal's `cancel`; False if it has
        none (unknown, exited or not cancellable). It stays cancellable until it exited,
        which withdraws the control."""
        return self._cancel(self._work.terminals, terminal_id)

    def _cancel(self, controls: dict[str, Callable[[], object]], id: str) -> bool:
        """Calls the `cancel` given to `start_tool_call` or `start_terminal` for `id`, if
        any; one that is a coroutine function runs on as the session's work (the answer
        does not wait)."""
        cancel = controls.get(id)
        if cancel is None:
            return False
        result = cancel()
        if inspect.isawaitable(result):
            self._spawn(_awaited(result), f"acp-v2-cancel-{id}")
        return True

    async def run_terminal(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        terminal_id: str | None = None,
        cancellable: bool = True,
    ) -> TerminalV2:
        """Runs `argv` as an agent-owned terminal: announced, its output (stdout and stderr)
        streamed as `terminal_output_chunk`s, its exit reported; a `terminal/cancel` (if
        `cancellable`) terminates it. `env` is added to the agent's environment. An `argv`
        that cannot start (or a `cwd` that is not there) raises `OSError` before anything
        is announced."""
        if not argv:
            raise ValueError("a terminal runs a command: argv is empty")
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=None if env is None else {**os.environ, **env},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            # A group of its own: what the command starts (a pipeline's other end, a shell's
            # children) is signalled with it, and none of it holds the output open after.
            start_new_session=_GROUPS,
        )
        terminal = TerminalV2(self, process)
        try:
            terminal.id = await self.start_terminal(
                shlex.join(argv),
                cwd=cwd,
                terminal_id=terminal_id,
                cancel=terminal.cancel if cancellable else None,
            )
        except BaseException:
            terminal.cancel()
            await process.wait()
            raise
        terminal._task = self._spawn(
            terminal._pump(), f"acp-v2-terminal-{terminal.id}", never_ran=terminal._abandon
        )
        return terminal

    # ------------------------------------------------------------ background work

    async def report_background(self) -> None:
        """Starts reporting background work (an empty list until some is added), with a
        state snapshot; from here on every state update carries the list."""
        if self._work.background is None:
            self._work.background = {}
            await self.sync_state()

    async def add_background(
        self, *, tool_call_id: str | None = None, terminal_id: str | None = None
    ) -> None:
        """Lists an announced tool call or terminal as background work, with a state
        snapshot."""
        key, item = _background_item(tool_call_id, terminal_id)
        if self._work.background is None:
            self._work.background = {}
        self._work.background[key] = item
        await self.sync_state()

    async def remove_background(
        self, *, tool_call_id: str | None = None, terminal_id: str | None = None
    ) -> None:
        """Takes a tool call or terminal off the background list (after its final status or
        exit was reported), with a state snapshot."""
        key, _ = _background_item(tool_call_id, terminal_id)
        if self._work.background is not None and key in self._work.background:
            del self._work.background[key]
            await self.sync_state()

    def in_background(self, work: Awaitable[object], *, tool_call_id: str) -> asyncio.Task[None]:
        """Runs `work` as background work of the session, outliving the turn: listed as the
        announced tool call `tool_call_id` until it ends, when the call, if still open, is
        given its final status (`completed`, `cancelled`, or `failed` if `work` raised).
        A `tool_call/cancel` cancels it, unless the call was started with a `cancel` of its
        own; `session/close` and the end of the connection do too."""

        advertise = tool_call_id not in self._work.tool_calls
        self._announced.discard(tool_call_id)  # it outlives the turn, and ends on its own

        async def run() -> None:
            status = ToolCallStatus.COMPLETED
            try:
                if advertise:
                    await self.update(
                        SessionUpdateToolCallUpdate(
                            tool_call_id=tool_call_id,
                            capabilities=ToolCallCapabilities(cancel=ToolCallCancelCapabilities()),
                        )
                    )
                await self.add_background(tool_call_id=tool_call_id)
                await work
            except asyncio.CancelledError:
                status = ToolCallStatus.CANCELLED
            except Exception:
                log.exception("the background work of tool call %s failed", tool_call_id)
                status = ToolCallStatus.FAILED
            finally:
                if inspect.iscoroutine(work):
                    work.close()  # cancelled before it began: it never will
            if tool_call_id in self._work.open_tool_calls:
                await self.update_tool_call(tool_call_id, status=status)
            await self.remove_background(tool_call_id=tool_call_id)

        def never_ran() -> None:
            if inspect.iscoroutine(work):
                work.close()

        task = self._spawn(run(), f"acp-v2-background-{tool_call_id}", never_ran=never_ran)
        if advertise:
            # Cancellable by the client (advertised first thing): the task's cancellation is
            # the call's.
            self._work.tool_calls[tool_call_id] = task.cancel
        return task

    def terminal_in_background(self, terminal: TerminalV2) -> asyncio.Task[None]:
        """Lists `terminal` as background work until its command exited (a process that
        keeps running after its tool call returned control): what `terminal/cancel`,
        `session/close` or the end of the connection stop."""

        async def run() -> None:
            await self.add_background(terminal_id=terminal.id)
            await terminal.wait()
            await self.remove_background(terminal_id=terminal.id)

        return self._spawn(run(), f"acp-v2-background-{terminal.id}")

    def _spawn(
        self,
        work: Coroutine[Any, Any, None],
        name: str,
        never_ran: Callable[[], None] | None = None,
    ) -> asyncio.Task[None]:
        """Runs `work` as the session's; if its task is cancelled before it began (a close
        in the same pass of the loop), `work` is closed and `never_ran` called, since
        nothing of `work` itself will clean up."""

        async def guarded() -> None:
            try:
                await work
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the connection went away, most likely
                log.debug("session work %s ended: %r", name, error)

        def done(task: asyncio.Task[None]) -> None:
            self._work.tasks.discard(task)
            if inspect.getcoroutinestate(work) == inspect.CORO_CREATED:
                work.close()
                if never_ran is not None:
                    never_ran()

        task = asyncio.get_running_loop().create_task(guarded(), name=name)
        self._work.tasks.add(task)
        task.add_done_callback(done)
        return task

    # ------------------------------------------------------------ permission

    async def request_permission(
        self, tool_call_id: str, title: str, options: list[PermissionOption] | None = None
    ) -> str | None:
        """Asks the user about the tool call; the chosen option id, or None when the client
        answered `cancelled` or chose an option that was not offered (which ACP says to
        treat as not approved)."""
        offered = options if options is not None else default_permission_options()
        response = await self.client.request_permission(
            RequestPermissionRequest(
                session_id=self.session_id,
                title=title,
                subject=RequestPermissionSubjectToolCall(
                    tool_call=ToolCallUpdate(tool_call_id=tool_call_id)
                ),
                options=offered,
            )
        )
        outcome = response.outcome
        if isinstance(outcome, RequestPermissionOutcomeSelected):
            if any(option.option_id == outcome.option_id for option in offered):
                return outcome.option_id
        return None

    # ------------------------------------------------------------ elicitation

    async def elicit_form(
        self, message: str, schema: ElicitationSchema, *, tool_call_id: str | None = None
    ) -> CreateElicitationResponse:
        """Asks the user to fill in a form (`elicitation/create`, mode `form`); the
        client's answer (`accept` with its content, `decline` or `cancel`)."""
        elicitation = self.capabilities.elicitation if self.capabilities else None
        if elicitation is None or elicitation.form is None:
            raise Unsupported("elicitation/create", "the client did not offer elicitation.form")
        return await self.client.elicit(
            CreateElicitationRequestFormOption1(
                session_id=self.session_id,
                tool_call_id=tool_call_id,
                message=message,
                requested_schema=schema,
            )
        )

    async def elicit_url(
        self,
        message: str,
        url: str,
        *,
        elicitation_id: str | None = None,
        tool_call_id: str | None = None,
    ) -> tuple[str, CreateElicitationResponse]:
        """Sends the user to `url` (`elicitation/create`, mode `url`); the elicitation's
        id (for `complete_elicitation`) and the client's answer. An `accept` means the user
        went, not that they finished there."""
        elicitation = self.capabilities.elicitation if self.capabilities else None
        if elicitation is None or elicitation.url is None:
            raise Unsupported("elicitation/create", "the client did not offer elicitation.url")
        elicitation_id = elicitation_id or new_id("elicit")
        answer = await self.client.elicit(
            CreateElicitationRequestUrlOption1(
                session_id=self.session_id,
                tool_call_id=tool_call_id,
                elicitation_id=elicitation_id,
                url=url,
                message=message,
            )
        )
        return elicitation_id, answer

    async def complete_elicitation(self, elicitation_id: str) -> None:
        """`elicitation/complete`: what the user was sent to do at the URL is done."""
        await self.client.complete_elicitation(
            CompleteElicitationNotification(elicitation_id=elicitation_id)
        )


def default_permission_options() -> list[PermissionOption]:
    """ "Allow once" (`allow`) and "Reject once" (`reject`)."""
    return [
        PermissionOption(option_id="allow", name="Allow", kind=PermissionOptionKind.ALLOW_ONCE),
        PermissionOption(option_id="reject", name="Reject", kind=PermissionOptionKind.REJECT_ONCE),
    ]


async def _awaited(awaitable: Awaitable[object]) -> None:
    await awaitable


def _background_item(
    tool_call_id: str | None, terminal_id: str | None
) -> tuple[str, BackgroundWork]:
    if (tool_call_id is None) == (terminal_id is None):
        raise ValueError("background work is one tool call or one terminal")
    if terminal_id is not None:
        return f"terminal:{terminal_id}", BackgroundWorkTerminal(terminal_id=terminal_id)
    assert tool_call_id is not None
    return f"tool_call:{tool_call_id}", BackgroundWorkToolCall(tool_call_id=tool_call_id)


def _signal_name(number: int) -> str:
    """`SIGTERM` for 15; a signal the enum does not name (a real-time one) as `SIG<n>`."""
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"SIG{number}"


class TerminalV2:
    """A command the agent runs as a terminal of its session (`SessionV2.run_terminal`).

    `async with` terminates it on the way out if it still runs.
    """

    def __init__(self, session: SessionV2, process: asyncio.subprocess.Process) -> None:
        self._session = session
        self._process = process
        #: The terminal's id in the session.
        self.id = ""
        #: The last `OUTPUT_LIMIT` bytes it printed.
        self.output = bytearray()
        #: Set once its exit was reported.
        self.exit_status: TerminalExitStatus | None = None
        self._exited = asyncio.get_running_loop().create_future()
        self._task: asyncio.Task[None] | None = None

    @property
    def exited(self) -> bool:
        return self.exit_status is not None

    def content(self) -> ToolCallContentTerminal:
        """The tool call content that shows this terminal live in the client."""
        return ToolCallContentTerminal(terminal_id=self.id)

    def cancel(self) -> None:
        """Terminates the command and what it started (SIGTERM to its process group, SIGKILL
        `KILL_GRACE` seconds later if it still runs); its exit is reported as it happens."""
        if self._process.returncode is None:
            self._signal(signals.SIGTERM)
            loop = asyncio.get_running_loop()
            loop.call_later(KILL_GRACE, self._signal, signals.SIGKILL)

    def _signal(self, number: int) -> None:
        """`number` to the command's group while the command runs (after, its group may
        be gone and its number another's)."""
        if self._process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if _GROUPS:
                os.killpg(self._process.pid, number)
            else:
                self._process.send_signal(number)

    def _end_group(self) -> None:
        """The command exited (just reaped): SIGKILL to what is left of its group."""
        if _GROUPS:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signals.SIGKILL)

    def _abandon(self) -> None:
        """Its output was never read (stopped before it began): the command is killed, and
        whoever waits for it is told it was."""
        self._signal(signals.SIGKILL)
        if not self._exited.done():
            self.exit_status = TerminalExitStatus(signal="SIGKILL")
            self._exited.set_result(self.exit_status)

    async def wait(self) -> TerminalExitStatus:
        """Its exit status, once reported."""
        status: TerminalExitStatus = await asyncio.shield(self._exited)
        return status

    async def _pump(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        # Once the command itself exits, what it left running in its group goes too: else
        # a child holding the output open would keep the terminal from ever ending.
        ended = asyncio.ensure_future(self._process.wait())
        ended.add_done_callback(lambda _: self._end_group())
        try:
            while chunk := await stdout.read(CHUNK_BYTES):
                self.output += chunk
                if len(self.output) > OUTPUT_LIMIT:
                    del self.output[: len(self.output) - OUTPUT_LIMIT]
                await self._session.terminal_output(self.id, chunk)
            code = await ended
        except BaseException:
            # Stopped (session/close, the connection's end): the command stops too, at once.
            self._signal(signals.SIGKILL)
            code = await self._process.wait()
            await self._report(code)
            raise
        await self._report(code)

    async def _report(self, code: int) -> None:
        if code < 0:
            status = TerminalExitStatus(signal=_signal_name(-code))
        else:
            status = TerminalExitStatus(exit_code=code)
        self.exit_status = status
        try:
            await self._session.exit_terminal(
                self.id, exit_code=status.exit_code, signal=status.signal
            )
        finally:
            if not self._exited.done():
                self._exited.set_result(status)

    async def __aenter__(self) -> TerminalV2:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.cancel()
        await self.wait()
