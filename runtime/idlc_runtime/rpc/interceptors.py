"""Middleware around incoming calls, and one that serializes writes per target.

An interceptor is any `async def (call: CallInfo, proceed: Proceed) -> Any`. It sees the
call before the handler runs and may wrap it (open a transaction, time it, log it), refuse
it by raising `RpcError`, or change its result. Interceptors run in list order, the first
being the outermost; `proceed()` runs the next one and finally the handler itself.

An interceptor object may narrow itself to some wire methods with a `methods` attribute (a
collection of method names): calls to any other method then skip it entirely, which costs
nothing per call, since the peer works out each method's chain once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, fields
from typing import Any, TypeAlias

from idlc_runtime.rpc.dispatch import Execution

Proceed: TypeAlias = Callable[[], Awaitable[Any]]


@dataclass(frozen=True, slots=True, init=False)
class CallInfo:
    """What an interceptor knows about one incoming call."""

    #: The wire method (binding id).
    method: str
    #: The Python member on the implementation.
    member: str
    #: The `$target` key, or None for the connection's root object.
    target: str | None
    #: The member's declared execution kind; None for `notify` members.
    execution: Execution | None
    #: True when the message is a notification: nothing is sent back.
    notify: bool
    #: The object that will handle the call.
    implementation: object
    #: The decoded params (the record, the one-field wrapper, or None for unit).
    params: Any

    def __init__(
        self,
        method: str,
        member: str,
        target: str | None,
        execution: Execution | None,
        notify: bool,
        implementation: object,
        params: Any,
    ) -> None:
        # Made for every call an interceptor wraps: stored through the slots' descriptors,
        # as `MethodSpec` is, not the frozen dataclass's `object.__setattr__` per field.
        _set_method(self, method)
        _set_member(self, member)
        _set_target(self, target)
        _set_execution(self, execution)
        _set_notify(self, notify)
        _set_implementation(self, implementation)
        _set_params(self, params)


(
    _set_method,
    _set_member,
    _set_target,
    _set_execution,
    _set_notify,
    _set_implementation,
    _set_params,
) = (CallInfo.__dict__[field.name].__set__ for field in fields(CallInfo))


Interceptor: TypeAlias = Callable[[CallInfo, Proceed], Awaitable[Any]]


def applies_to(interceptor: Interceptor, method: str) -> bool:
    """Whether `interceptor` wraps calls to `method` (see its optional `methods`)."""
    methods = getattr(interceptor, "methods", None)
    if methods is None:
        return True
    if isinstance(methods, str):
        # `in` on a string would match substrings (`"session/prompt"` holds `"prompt"`).
        raise TypeError(
            f"{type(interceptor).__name__}.methods must be a collection of method names, "
            f"not the string {methods!r}"
        )
    return method in methods


class SerializeTransactions:
    """Runs `transaction` calls one at a time per target object; everything else freely.

    Calls are serialized per implementation object, so one instance can be shared by all
    connections of a server that serve the same objects. Waiting calls run in arrival order
    (asyncio locks are fair). `snapshot` and `notify` calls never wait.
    """

    def __init__(self) -> None:
        #: Lock and the number of calls holding or awaiting it, by object identity; an entry
        #: disappears with its last user so the table never outgrows the calls in flight.
        self._locks: dict[int, tuple[asyncio.Lock, list[int]]] = {}

    async def __call__(self, call: CallInfo, proceed: Proceed) -> Any:
        if call.execution is not Execution.TRANSACTION:
            return await proceed()
        key = id(call.implementation)
        entry = self._locks.get(key)
        if entry is None:
            entry = self._locks[key] = (asyncio.Lock(), [0])
        lock, users = entry
        users[0] += 1
        try:
            async with lock:
                return await proceed()
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self._locks[key]
