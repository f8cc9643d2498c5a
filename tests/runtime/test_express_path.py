"""The express path (rpc/express.py) takes a read's compactly written notifications of the
root in one loop; every other line goes the general way. Whichever way a line goes, the
outcome is the same: the handler's input, the answers written (-32600, -32601, …) and the
undecodable-notification report (-32602 with the path) — checked by sending the same
messages written compactly (as msgspec and `JSON.stringify` write them: the express path
takes those it can) and with spaces after each separator (which it never takes)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc_runtime import PeerOptions, RpcError
from idlc_runtime.rpc.inbound import Inbound

from .support import SampleService, raw_connection, run_async, within

EVENT = "sample:event:notify"

#: What a notification's params may be: good, of the wrong shape, or not there at all.
_params = st.one_of(
    st.fixed_dictionaries({"text": st.text(max_size=8)}),
    st.fixed_dictionaries({"text": st.one_of(st.integers(), st.none(), st.lists(st.integers()))}),
    st.fixed_dictionaries({"text": st.text(max_size=4)}, optional={"extra": st.integers()}),
    # Addressed to an object (docs/wire.md §5): never taken by the express path.
    st.fixed_dictionaries({"text": st.text(max_size=4), "$target": st.just("nobody")}),
    st.just({}),
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.just("not an object"),
)
_absent = object()


@st.composite
def _messages(draw: st.DrawFn) -> dict[str, Any]:
    message: dict[str, Any] = {}
    jsonrpc = draw(st.sampled_from(["2.0", "2.0", "2.0", "1.0", _absent]))
    if jsonrpc is not _absent:
        message["jsonrpc"] = jsonrpc
    message["method"] = draw(
        st.sampled_from([EVENT, EVENT, EVENT, "sample:nothing:notify", "sample:ping:get"])
    )
    params = draw(st.one_of(_params, st.just(_absent)))
    if params is not _absent:
        message["params"] = params
    id = draw(st.sampled_from([_absent, _absent, _absent, 7, "seven", None]))
    if id is not _absent:
        message["id"] = id
    extra = draw(st.sampled_from([None, "result", "error"]))
    if extra is not None:
        message[extra] = {"code": 1, "message": "x"}
    return message


def _compact(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def _spaced(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(", ", ": ")).encode() + b"\n"


async def _outcome(lines: bytes) -> tuple[list[str], list[Any], list[tuple[Any, ...]]]:
    """What serving `lines` in one write does: the events handled, the answers written,
    and the reports of undecodable notifications."""
    reported: list[tuple[Any, ...]] = []

    def report(method: str, params: Any, error: RpcError) -> None:
        reported.append((method, params, error.code, error.message, error.data))

    service = SampleService()
    options = PeerOptions(on_undecodable_notification=report)
    async with raw_connection(service, options) as (client, _server):
        # One write: the lines arrive in as few reads as the socket makes of them, and
        # the ping behind them is answered only once they have all been taken.
        ping = {"jsonrpc": "2.0", "id": "sync", "method": "sample:ping:get"}
        await client.send(lines + _compact(ping))
        answers = []
        while True:
            answer = await client.receive()
            if answer.get("id") == "sync":
                break
            answers.append(answer)
    return service.events, answers, reported


@settings(max_examples=60, deadline=None)
@given(messages=st.lists(_messages(), min_size=1, max_size=8))
def test_a_line_gives_the_same_outcome_on_the_express_path_and_the_general_one(
    messages: list[dict[str, Any]],
) -> None:
    compact = b"".join(map(_compact, messages))
    spaced = b"".join(map(_spaced, messages))

    async def both() -> None:
        assert await within(_outcome(compact)) == await within(_outcome(spaced))

    asyncio.run(both())


@run_async
async def test_compact_notifications_skip_the_general_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    general: list[bytes] = []
    on_message = Inbound._on_message

    def counting(self: Inbound, line: bytes) -> None:
        general.append(line)
        on_message(self, line)

    monkeypatch.setattr(Inbound, "_on_message", counting)
    good = [{"jsonrpc": "2.0", "method": EVENT, "params": {"text": str(n)}} for n in range(5)]
    bad = {"jsonrpc": "2.0", "method": EVENT, "params": {"text": 5}}
    events, answers, reported = await within(
        _outcome(b"".join(map(_compact, [*good[:2], bad, *good[2:]])))
    )
    assert events == ["0", "1", "2", "3", "4"]  # in order, around the one that failed
    assert answers == []
    assert [(method, code) for method, _, code, _, _ in reported] == [(EVENT, -32602)]
    assert reported[0][4] == {"path": "$.text", "reason": "Expected `str`, got `int`"}
    # Only the bad one and the ping went the general way.
    assert [json.loads(line)["params"] for line in general[:1]] == [{"text": 5}]
    assert len(general) == 2


@run_async
async def test_a_handler_that_awaits_holds_the_next_compact_notification_behind_it() -> None:
    """The express path hands a notification on only while the ordered worker is idle; one
    that arrives while a handler awaits waits behind it (docs/wire.md §13)."""

    class Slow(SampleService):
        async def event(self, *, text: str) -> None:
            if text == "slow":
                for _ in range(5):
                    await asyncio.sleep(0)
            await super().event(text=text)

    service = Slow()
    async with raw_connection(service) as (client, _server):
        texts = ["slow", "a", "b", "slow", "c"]
        lines = [{"jsonrpc": "2.0", "method": EVENT, "params": {"text": t}} for t in texts]
        await client.send(b"".join(map(_compact, lines)))
        assert await within(service.wait_for_events(5)) == texts
        await client.assert_still_serving()
