"""What a `ChainProxy` forwards comes out as it went in (docs/acp.md, "Proxy chains"):
any method it does not implement, with any JSON params, reaches the conductor wrapped in
`proxy/successor`, and the successor's result or error comes back unchanged. Drawn by
hypothesis, over a real in-memory connection between a proxy and a conductor."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from idlc_acp import unstable
from idlc_acp.proxy_chain import ChainProxy, proxy_options
from idlc_runtime import RpcError, memory_pair

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=16,
)
#: A params object, `$target` among its possible keys: ACP's wire routes by none
#: (idlc_acp.wire), so it is data like any other member.
PARAMS = st.none() | st.dictionaries(
    st.sampled_from(["$target"]) | st.text(max_size=8), JSON, max_size=4
)
#: Methods the proxy does not implement: the agent's it leaves to the skeleton, and others.
METHODS = st.sampled_from(["session/load", "session/set_mode", "_vendor/thing", "x/unknown"])
ERRORS = st.builds(
    lambda code, message, data: RpcError(code, message, data),
    st.integers(-32099, -32000) | st.integers(1, 10**6),
    st.text(max_size=20),
    JSON,
)


class Conductor(unstable.Successor):
    """The conductor's side: answers each forwarded request with what it received, or with
    `error` when one is set."""

    def __init__(self, error: RpcError | None = None) -> None:
        self.error = error
        self.notifications: list[unstable.ProxySuccessorNotification] = []

    async def successor_request(
        self, input: unstable.ProxySuccessorRequest
    ) -> unstable.ProxySuccessorResponse:
        if self.error is not None:
            raise self.error
        return {"method": input.method, "params": input.params}

    async def successor_notification(self, input: unstable.ProxySuccessorNotification) -> None:
        self.notifications.append(input)


async def _through_proxy(conductor: Conductor, method: str, params: Any) -> Any:
    async with memory_pair(ChainProxy(), conductor, options=proxy_options()) as (_, caller):
        await caller.notify(method, params)
        return await caller.request(method, params, Any)


@settings(max_examples=40, deadline=None)
@given(METHODS, PARAMS)
def test_params_and_results_pass_through_unchanged(method: str, params: Any) -> None:
    conductor = Conductor()
    result = asyncio.run(_through_proxy(conductor, method, params))
    assert result == {"method": method, "params": params}
    [notification] = conductor.notifications  # handled before the request's answer came
    assert (notification.method, notification.params) == (method, params)


@settings(max_examples=40, deadline=None)
@given(METHODS, PARAMS, ERRORS)
def test_errors_pass_through_unchanged(method: str, params: Any, error: RpcError) -> None:
    try:
        asyncio.run(_through_proxy(Conductor(error), method, params))
    except RpcError as came:
        assert (came.code, came.message, came.data) == (error.code, error.message, error.data)
    else:
        raise AssertionError("the successor's error did not come back")
