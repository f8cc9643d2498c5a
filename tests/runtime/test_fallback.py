"""`PeerOptions.fallback`: methods the served object does not declare (e.g. ACP extensions)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from idlc_runtime import ErrorCode, PeerOptions, RpcError, Unsupported, memory_pair

from .sample_api import SampleProxy
from .support import SampleService, run_async, within


@run_async
async def test_undeclared_methods_reach_the_fallback_and_declared_ones_do_not() -> None:
    seen: list[tuple[str, Any, bool]] = []

    async def fallback(method: str, params: Any, notify: bool) -> Any:
        seen.append((method, params, notify))
        if not method.startswith("_"):
            raise Unsupported(method)
        if method == "_fail":
            raise RpcError(-32000, "no", {"why": "test"})
        if method == "_slow":
            await asyncio.sleep(10)
        return {"echo": params}

    options = PeerOptions(fallback=fallback)
    async with memory_pair(None, SampleService(), options=options) as (client, _server):
        assert await within(client.request("_x/echo", {"a": [1, 2]}, Any)) == {
            "echo": {"a": [1, 2]}
        }
        assert await within(client.request("_x/none", None, Any)) == {"echo": None}
        with pytest.raises(Unsupported):
            await within(client.request("other", {}, Any))
        with pytest.raises(RpcError) as failure:
            await within(client.request("_fail", {}, Any))
        assert failure.value.code == -32000 and failure.value.data == {"why": "test"}
        await client.notify("_x/note", {"n": 1})
        # Declared methods still go to the object, never to the fallback.
        assert await within(SampleProxy(client).ping()) == "pong"
        # A fallback call is cancellable like any handler.
        slow = asyncio.ensure_future(client.request("_slow", {}, Any))
        await asyncio.sleep(0.05)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        for _ in range(100):
            if ("_x/note", {"n": 1}, True) in seen:
                break
            await asyncio.sleep(0.01)
    assert ("_x/echo", {"a": [1, 2]}, False) in seen
    assert ("_x/note", {"n": 1}, True) in seen
    assert all(method != "ping" for method, _, _ in seen)


@run_async
async def test_without_a_fallback_undeclared_methods_stay_method_not_found() -> None:
    async with memory_pair(None, SampleService()) as (client, _server):
        with pytest.raises(Unsupported) as failure:
            await within(client.request("_x/echo", {}, Any))
        assert failure.value.code == ErrorCode.METHOD_NOT_FOUND
