"""One served object answering several interfaces (docs/serving.md, "Several interfaces on
one object"): a class deriving from two generated skeletons is served by both dispatch
tables, merged; two tables claiming one (method, kind), or one Python member name, are
refused when the peer starts serving it.

ACP needs it for a proxy, which answers the agent's methods and the conductor's
`proxy/initialize` on one connection.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from idlc_runtime import (
    ErrorCode,
    PeerOptions,
    RpcError,
    implemented_members,
    memory_pair,
    spawn,
    specs_of,
    stand_in,
)
from tests.generated import generated_package

IDL = """
interface Greeter id "test:greeter" revision "test:greeter@1" {
  required operation greet id "test:greeter:greet" : record { name: string; } -> string {
    call id "greeter/greet" execution snapshot;
  }
  operation wave id "test:greeter:wave" : unit -> unit { notify id "greeter/wave"; }
}
interface Admin id "test:admin" revision "test:admin@1" {
  operation reset id "test:admin:reset" : unit -> uint32 {
    call id "admin/reset" execution transaction;
  }
  operation stop id "test:admin:stop" : unit -> string { call id "admin/stop" execution transaction; }
}
interface Waver id "test:waver" revision "test:waver@1" {
  operation wave id "test:waver:wave" : unit -> unit { notify id "waver/wave"; }
}
"""

#: Compiled apart, so the compiler cannot see that it takes `greeter/greet` again.
OTHER_IDL = """
interface Rival id "test:rival" revision "test:rival@1" {
  operation hello id "test:rival:hello" : record { name: string; } -> string {
    call id "greeter/greet" execution snapshot;
  }
}
"""


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    with contextlib.ExitStack() as stack:
        yield (
            stack.enter_context(
                generated_package(tmp_path_factory.mktemp("two"), "gen_two_interfaces", IDL)
            ),
            stack.enter_context(
                generated_package(tmp_path_factory.mktemp("rival"), "gen_rival", OTHER_IDL)
            ),
        )


def _both(two: Any) -> Any:
    class Both(two.Greeter, two.Admin):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            self.resets = 0

        async def greet(self, *, name: str) -> str:
            return f"hello {name}"

        async def reset(self) -> int:
            self.resets += 1
            return self.resets

    return Both()


def test_specs_of_lists_every_skeleton_in_method_resolution_order(
    packages: tuple[Any, Any],
) -> None:
    two, _ = packages
    both = _both(two)
    assert [spec.name for spec in specs_of(both)] == ["Greeter", "Admin"]
    assert implemented_members(both) == {"greeter/greet", "admin/reset"}


def test_both_interfaces_answer_on_one_connection(packages: tuple[Any, Any]) -> None:
    two, _ = packages

    async def main() -> None:
        async with memory_pair(_both(two), None) as (_, caller):
            greeter, admin = two.GreeterProxy(caller), two.AdminProxy(caller)
            assert await greeter.greet(name="ada") == "hello ada"
            assert await admin.reset() == 1
            assert await admin.reset() == 2
            # Not implemented: -32601 from the interface that declares it, as for one.
            with pytest.raises(RpcError) as raised:
                await admin.stop()
            assert raised.value.code == ErrorCode.METHOD_NOT_FOUND

    asyncio.run(main())


def test_a_registered_object_may_answer_several_interfaces(packages: tuple[Any, Any]) -> None:
    two, _ = packages

    async def main() -> None:
        async with memory_pair(None, None) as (server, caller):
            server.register("both", _both(two))
            assert await two.GreeterProxy(caller, "both").greet(name="x") == "hello x"
            assert await two.AdminProxy(caller, "both").reset() == 1

    asyncio.run(main())


def test_two_tables_claiming_one_method_and_kind_are_refused_at_start(
    packages: tuple[Any, Any],
) -> None:
    two, rival = packages

    class Clash(two.Greeter, rival.Rival):  # type: ignore[misc, name-defined]
        async def greet(self, *, name: str) -> str:
            return name

    async def main() -> None:
        async with memory_pair(Clash(), None):
            pass

    with pytest.raises(ValueError) as raised:
        asyncio.run(main())
    message = str(raised.value)
    assert "request 'greeter/greet' is answered twice" in message
    assert "`greet` of Greeter" in message and "`hello` of Rival" in message


def test_one_member_name_in_two_interfaces_is_refused_at_start(
    packages: tuple[Any, Any],
) -> None:
    two, _ = packages

    class Waves(two.Greeter, two.Waver):  # type: ignore[misc, name-defined]
        async def greet(self, *, name: str) -> str:
            return name

    async def main() -> None:
        async with memory_pair(Waves(), None):
            pass

    with pytest.raises(ValueError, match="Greeter and Waver, which both have a member `wave`"):
        asyncio.run(main())


SERVER = """
import asyncio
import sys

from gen_two_interfaces import Admin, Greeter
from idlc_runtime import serve_stdio


class Both(Greeter, Admin):
    async def greet(self, *, name: str) -> str:
        return "hello " + name

    async def reset(self) -> int:
        return 7


asyncio.run(serve_stdio(Both()))
"""


def test_a_child_process_serves_both_over_pipes(packages: tuple[Any, Any], tmp_path: Path) -> None:
    two, _ = packages
    script = tmp_path / "both_server.py"
    script.write_text(SERVER, encoding="utf-8")
    folder = Path(two.__file__).parent.parent

    async def main() -> None:
        import os
        import sys

        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), *sys.path])}
        async with spawn([sys.executable, str(script)], env=env) as peer:
            assert await two.GreeterProxy(peer).greet(name="pipe") == "hello pipe"
            assert await two.AdminProxy(peer).reset() == 7

    asyncio.run(main())


def test_unimplemented_members_go_to_the_fallback_when_asked(packages: tuple[Any, Any]) -> None:
    """`PeerOptions.fallback_for_unimplemented`: what the object declares but leaves to the
    skeleton (or to a `stand_in` body) reaches the fallback with its raw params; what it
    implements does not; without the option it stays -32601."""
    two, _ = packages
    handed: list[tuple[str, Any, bool]] = []

    async def fallback(method: str, params: Any, notify: bool) -> Any:
        handed.append((method, params, notify))
        return {"forwarded": method}

    class Forwarding(two.Greeter, two.Admin):  # type: ignore[misc, name-defined]
        @stand_in
        async def greet(self, *, name: str) -> str:
            raise AssertionError("a stand-in body is not served")

        async def reset(self) -> int:
            return 1

    assert implemented_members(Forwarding()) == {"admin/reset"}

    async def main(forward: bool) -> Any:
        options = PeerOptions(fallback=fallback, fallback_for_unimplemented=forward)
        async with memory_pair(Forwarding(), None, options=options) as (_, caller):
            assert await two.AdminProxy(caller).reset() == 1
            await caller.notify("greeter/wave", {"x": 1})
            return await caller.request("greeter/greet", {"name": "n", "extra": 2}, Any)

    assert asyncio.run(main(True)) == {"forwarded": "greeter/greet"}
    assert handed == [
        ("greeter/wave", {"x": 1}, True),
        ("greeter/greet", {"name": "n", "extra": 2}, False),
    ]
    handed.clear()
    with pytest.raises(RpcError) as raised:
        asyncio.run(main(False))
    assert raised.value.code == ErrorCode.METHOD_NOT_FOUND and handed == []
