"""`PeerOptions.admit_request`: every request passes it before lookup and decoding
(docs/wire.md §4), so what it refuses gets its answer whatever the method or params."""

from __future__ import annotations

from typing import Any

import pytest

from idlc_runtime import ErrorCode, PeerOptions, RpcError, memory_pair

from .sample_api import SampleProxy
from .support import SampleService, run_async, within

SHUT = RpcError(-32000, "shut")


@run_async
async def test_refused_requests_get_the_admissions_answer_before_lookup_and_decoding() -> None:
    seen: list[str] = []
    open_ = False

    def admit(method: str) -> None:
        seen.append(method)
        if not open_ and method != "sample:ping:get":
            raise SHUT

    service = SampleService()
    options = PeerOptions(admit_request=admit)
    async with memory_pair(None, service, options=options) as (client, _server):
        for method, params in [
            ("no/such/method", {}),  # would be -32601
            ("sample:add:call", {"amount": "x"}),  # would be -32602
            ("sample:add:call", {"amount": 1}),
        ]:
            with pytest.raises(RpcError) as refused:
                await within(client.request(method, params, Any))
            assert (refused.value.code, refused.value.message) == (-32000, "shut")
        assert service.total == 0  # no handler ran
        assert await within(SampleProxy(client).ping()) == "pong"
        open_ = True
        assert await within(client.request("sample:add:call", {"amount": 2}, int)) == 2
        with pytest.raises(RpcError) as unknown:
            await within(client.request("no/such/method", {}, Any))
        assert unknown.value.code == ErrorCode.METHOD_NOT_FOUND
        # Notifications are not requests: they never pass it.
        await client.notify("sample:event:notify", {"text": "hi"})
        assert await within(service.wait_for_events(1)) == ["hi"]
    assert "sample:event:notify" not in seen
