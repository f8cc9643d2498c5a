"""A client's answers to permission requests: one policy, and the user's "always" kept.

    broker = PermissionBroker(ask_the_user)           # or choose(ALLOW_ONCE, ALLOW_ALWAYS)
    class MyClient(Client):
        async def request_permission(self, input):
            return await broker.request_permission(input)

`ask_the_user(request)` returns the option the user picked, or None to answer `cancelled`.
When the user picks an `allow_always` or `reject_always` option, later requests of the same
session about a tool of the same kind get the same answer without asking (when the agent
offers such an option). `broker.allow(...)` asks the same way about something the client
itself is about to do for the agent, such as writing a file (`ConfinedFiles`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from idlc_acp.protocol import (
    PermissionOption,
    PermissionOptionKind,
    RequestPermissionOutcomeCancelled,
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ToolCallUpdate,
    ToolKind,
)

#: Decides one request: the option chosen (one of `request.options`), or None to cancel.
Decide = Callable[[RequestPermissionRequest], Awaitable[PermissionOption | None]]

ALLOWING = frozenset({PermissionOptionKind.ALLOW_ONCE, PermissionOptionKind.ALLOW_ALWAYS})
REJECTING = frozenset({PermissionOptionKind.REJECT_ONCE, PermissionOptionKind.REJECT_ALWAYS})
_ALWAYS = {
    PermissionOptionKind.ALLOW_ALWAYS: ALLOWING,
    PermissionOptionKind.REJECT_ALWAYS: REJECTING,
}

#: The options `PermissionBroker.allow` offers for the client's own actions.
OWN_ACTION_OPTIONS = (
    PermissionOption(option_id="allow-once", name="Allow", kind=PermissionOptionKind.ALLOW_ONCE),
    PermissionOption(
        option_id="allow-always", name="Always allow", kind=PermissionOptionKind.ALLOW_ALWAYS
    ),
    PermissionOption(option_id="reject-once", name="Reject", kind=PermissionOptionKind.REJECT_ONCE),
)


def choose(*kinds: PermissionOptionKind) -> Decide:
    """A policy: the first offered option whose kind is the earliest in `kinds`; None (cancel)
    when none is offered. `choose()` always cancels."""

    async def decide(request: RequestPermissionRequest) -> PermissionOption | None:
        for kind in kinds:
            for option in request.options:
                if option.kind is kind:
                    return option
        return None

    return decide


def _offered(
    options: Sequence[PermissionOption], kinds: frozenset[PermissionOptionKind]
) -> PermissionOption | None:
    # An "always" option first: the user's choice stays what it was.
    ranked = sorted(options, key=lambda o: o.kind not in _ALWAYS)
    return next((option for option in ranked if option.kind in kinds), None)


class PermissionBroker:
    """Answers `session/request_permission` with `decide`, remembering "always" choices."""

    def __init__(self, decide: Decide, *, remember: bool = True) -> None:
        self._decide = decide
        self._remember = remember
        #: (session id, tool kind) → the kinds of option the user chose "always" for.
        self._always: dict[tuple[str, ToolKind], frozenset[PermissionOptionKind]] = {}

    def forget(self, session_id: str) -> None:
        """Drops the "always" answers of a session (it was closed or deleted)."""
        for key in [key for key in self._always if key[0] == session_id]:
            del self._always[key]

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        choice = await self.decide(input)
        if choice is None:
            return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())
        return RequestPermissionResponse(
            outcome=RequestPermissionOutcomeSelected(option_id=choice.option_id)
        )

    async def decide(self, input: RequestPermissionRequest) -> PermissionOption | None:
        """The option to answer `input` with (None: cancelled)."""
        kind = input.tool_call.kind
        remembered = self._always.get((input.session_id, kind)) if kind is not None else None
        if remembered is not None:
            option = _offered(input.options, remembered)
            if option is not None:
                return option
        choice = await self._decide(input)
        if choice is None:
            return None
        if not any(option.option_id == choice.option_id for option in input.options):
            raise ValueError(
                f"the permission policy chose {choice.option_id!r}, which the request did not offer"
            )
        if self._remember and kind is not None and choice.kind in _ALWAYS:
            self._always[(input.session_id, kind)] = _ALWAYS[choice.kind]
        return choice

    async def allow(self, session_id: str, tool_call: ToolCallUpdate) -> bool:
        """Whether the user allows what `tool_call` describes, which the client itself is
        about to do (asked like a request from the agent, offering `OWN_ACTION_OPTIONS`)."""
        choice = await self.decide(
            RequestPermissionRequest(
                session_id=session_id, tool_call=tool_call, options=list(OWN_ACTION_OPTIONS)
            )
        )
        return choice is not None and choice.kind in ALLOWING
