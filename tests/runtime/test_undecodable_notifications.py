"""A notification whose params do not decode is reported, never dropped silently
(docs/wire.md §4, "Undecodable notifications are reported, not lost")."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from idlc_runtime import ErrorCode, PeerOptions, RpcError, memory_pair

from .sample_api import SampleProxy
from .support import SampleService, run_async, within

EVENT = "sample:event:notify"


@run_async
async def test_the_hook_gets_method_params_and_error_and_the_connection_goes_on() -> None:
    seen: list[tuple[str, Any, RpcError]] = []
    options = PeerOptions(on_undecodable_notification=lambda *args: seen.append(args))
    service = SampleService()
    async with memory_pair(None, service, options=options) as (client, _server):
        await client.notify(EVENT, {"text": 5, "extra": [1, {"a": None}]})
        await client.notify(EVENT, None)
        await client.notify(EVENT, {"text": "after"})
        # Lines are handled in order: once the good one arrived, both bad ones were seen.
        assert await within(service.wait_for_events(1)) == ["after"]
        assert [(method, params) for method, params, _ in seen] == [
            (EVENT, {"text": 5, "extra": [1, {"a": None}]}),
            (EVENT, None),
        ]
        for _, _, error in seen:
            assert error.code == ErrorCode.INVALID_PARAMS
        assert "text" in seen[0][2].message
        # A request with params that do not decode is still answered -32602, not hooked.
        with pytest.raises(RpcError) as failure:
            await within(client.request("sample:add:call", {"amount": "x"}, int))
        assert failure.value.code == ErrorCode.INVALID_PARAMS
        assert len(seen) == 2
        assert await within(SampleProxy(client).ping()) == "pong"


@run_async
async def test_without_a_hook_the_notification_is_logged_at_warning_with_its_method(
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = SampleService()
    with caplog.at_level(logging.WARNING, logger="idlc_runtime"):
        async with memory_pair(None, service) as (client, _server):
            await client.notify(EVENT, {"text": []})
            await client.notify(EVENT, {"text": "after"})
            assert await within(service.wait_for_events(1)) == ["after"]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert any(EVENT in record.getMessage() for record in warnings), caplog.text


@run_async
async def test_a_hook_that_fails_is_logged_and_the_connection_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(method: str, params: Any, error: RpcError) -> None:
        raise RuntimeError("the application's bug")

    service = SampleService()
    options = PeerOptions(on_undecodable_notification=broken)
    with caplog.at_level(logging.ERROR, logger="idlc_runtime"):
        async with memory_pair(None, service, options=options) as (client, _server):
            await client.notify(EVENT, {"text": 1})
            await client.notify(EVENT, {"text": "after"})
            assert await within(service.wait_for_events(1)) == ["after"]
            assert await within(SampleProxy(client).ping()) == "pong"
    assert any("hook failed" in r.getMessage() and EVENT in r.getMessage() for r in caplog.records)
