"""One method as a request and a notification of one interface (docs/language.md,
"Bindings"; docs/wire.md §4): the dispatch tables have one entry per (method, kind) and an
incoming message is looked up by its kind.

ACP's `proxy/successor` is such a method: a proxy and a conductor each receive it both as a
request and as a notification on one connection.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc_runtime import ErrorCode, InputShape, InterfaceSpec, MethodSpec, RpcError
from tests.generated import generated_package

IDL = """
type Wrapped = record { method: string; params: optional<json>; };
interface Relay id "test:relay" revision "test:relay@1" {
  operation forward id "test:relay:forward" : Wrapped -> json {
    call id "relay/successor" execution transaction;
  }
  operation forwardNotification id "test:relay:forward-notification" : Wrapped -> unit {
    notify id "relay/successor";
  }
  operation only id "test:relay:only" : unit -> unit { notify id "relay/only-notification"; }
  operation ask id "test:relay:ask" : unit -> string {
    call id "relay/only-request" execution snapshot;
  }
}
"""


@pytest.fixture(scope="module")
def relay(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with generated_package(tmp_path_factory.mktemp("relay"), "gen_relay", IDL) as module:
        yield module


def _implementation(relay: Any, seen: list[tuple[str, Any]]) -> Any:
    class Impl(relay.Relay):  # type: ignore[misc, name-defined]
        async def forward(self, input: Any) -> Any:
            seen.append(("request", input.method))
            return {"answered": input.method}

        async def forward_notification(self, input: Any) -> None:
            seen.append(("notification", input.method))

        async def only(self) -> None:
            seen.append(("only", None))

        async def ask(self) -> str:
            seen.append(("ask", None))
            return "asked"

    return Impl()


def test_the_spec_has_one_entry_per_method_and_kind(relay: Any) -> None:
    spec = relay.Relay.__idlc_interface__
    assert spec.requests["relay/successor"].member == "forward"
    assert spec.notifications["relay/successor"].member == "forward_notification"
    assert [method.member for method in spec.methods] == [
        "forward",
        "forward_notification",
        "only",
        "ask",
    ]


def test_each_kind_reaches_its_own_member(relay: Any) -> None:
    from idlc_runtime import memory_pair

    seen: list[tuple[str, Any]] = []

    async def main() -> None:
        async with memory_pair(_implementation(relay, seen), None) as (_, caller):
            proxy = relay.RelayProxy(caller)
            await proxy.forward_notification(relay.Wrapped(method="session/update"))
            answer = await proxy.forward(relay.Wrapped(method="session/prompt"))
            assert answer == {"answered": "session/prompt"}

    asyncio.run(main())
    # Lines are handled in order, so the notification's member ran before the request's.
    assert seen == [("notification", "session/update"), ("request", "session/prompt")]


def test_a_request_for_a_method_that_is_only_a_notification_is_method_not_found(
    relay: Any,
) -> None:
    from idlc_runtime import memory_pair

    seen: list[tuple[str, Any]] = []

    async def main() -> None:
        async with memory_pair(_implementation(relay, seen), None) as (_, caller):
            await caller.request("relay/only-notification", None, None)

    with pytest.raises(RpcError) as raised:
        asyncio.run(main())
    assert raised.value.code == ErrorCode.METHOD_NOT_FOUND
    assert seen == []


def test_a_notification_for_a_method_that_is_only_a_request_is_ignored(
    relay: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from idlc_runtime import memory_pair

    seen: list[tuple[str, Any]] = []
    caplog.set_level(logging.DEBUG, logger="idlc_runtime")

    async def main() -> None:
        async with memory_pair(_implementation(relay, seen), None) as (_, caller):
            await caller.notify("relay/only-request", None)
            proxy = relay.RelayProxy(caller)
            assert await proxy.forward(relay.Wrapped(method="after")) == {"answered": "after"}

    asyncio.run(main())
    assert seen == [("request", "after")]
    [record] = [r for r in caplog.records if "relay/only-request" in r.getMessage()]
    assert record.levelno == logging.DEBUG and "Method not found" in record.getMessage()


def _method(wire: str, member: str, notify: bool) -> MethodSpec:
    async def invoke(implementation: object, params: Any) -> None:
        return None

    return MethodSpec(
        wire=wire,
        member=member,
        shape=InputShape.UNIT,
        params_type=None,
        result_type=None,
        invoke=invoke,
        execution=None,
        notify=notify,
        required=False,
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.booleans()), max_size=5))
def test_a_table_refuses_exactly_a_second_member_of_one_method_and_kind(
    uses: list[tuple[str, bool]],
) -> None:
    methods = [_method(wire, f"m{index}", notify) for index, (wire, notify) in enumerate(uses)]
    try:
        spec = InterfaceSpec(name="T", id="t", revision="t@1", methods=methods, skeleton=object)
    except ValueError as error:
        assert len(set(uses)) < len(uses)
        assert "is answered twice" in str(error) and "of T" in str(error)
        return
    assert len(set(uses)) == len(uses)
    assert {(m.wire, m.notify) for m in spec.methods} == set(uses)
    assert len(spec.requests) + len(spec.notifications) == len(uses)


def test_a_mapping_by_wire_name_as_older_packages_pass_it_still_builds_the_tables() -> None:
    ask, told = _method("a", "ask", False), _method("b", "tell", True)
    spec = InterfaceSpec(
        name="T", id="t", revision="t@1", methods={"a": ask, "b": told}, skeleton=object
    )
    assert spec.methods == (ask, told)
    assert spec.requests == {"a": ask} and spec.notifications == {"b": told}


def test_a_table_of_something_else_says_what_it_holds() -> None:
    with pytest.raises(TypeError, match="holds MethodSpec values, not str"):
        InterfaceSpec(name="T", id="t", revision="t@1", methods=["a"], skeleton=object)
