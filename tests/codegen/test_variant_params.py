"""A variant input is the params object itself, like a record (docs/wire.md, docs/acp-gaps.md G1).

ACP's `session/set_config_option` and `elicitation/create` take tagged unions as params;
wrapping them in `{"input": …}` would make them unusable with any ACP peer.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.generated import generated_package

IDL = """
type Setting = variant tag "type" {
  "flag": record {key: string; value: bool;};
  default: record {key: string; value: string;};
};
type Mode = variant tag "kind" { "fast": record {level: uint8;}; "slow": unit; };
interface Settings id "test:settings" revision "test:settings@1" {
  operation set id "test:settings:set" : Setting -> string { call id "test:settings:set:call" execution transaction; }
  operation mode id "test:settings:mode" : Mode -> unit { notify id "test:settings:mode:notify"; }
  operation text id "test:settings:text" : string -> string { call id "test:settings:text:call" execution transaction; }
}
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with generated_package(
        tmp_path_factory.mktemp("variant_params"), "gen_variant_params", IDL
    ) as module:
        yield module


def test_variant_input_is_sent_as_the_params_object(package: Any) -> None:
    from idlc_runtime import memory_pair

    seen: list[Any] = []
    mode_seen = asyncio.Event()

    class Impl(package.Settings):  # type: ignore[misc, name-defined]
        async def set(self, input: Any) -> str:
            seen.append(input)
            return f"{type(input).__name__}:{input.key}={input.value}"

        async def mode(self, input: Any) -> None:
            seen.append(input)
            mode_seen.set()

        async def text(self, input: str) -> str:
            return input.upper()

    spec = package.Settings.__idlc_interface__
    assert spec.requests["test:settings:set:call"].shape.value == "record"
    assert spec.notifications["test:settings:mode:notify"].shape.value == "record"
    assert spec.requests["test:settings:text:call"].shape.value == "wrapped"

    async def main() -> None:
        async with memory_pair(Impl(), None) as (_, caller):
            proxy = package.SettingsProxy(caller)
            flag = package.SettingFlag(key="k", value=True)
            assert await proxy.set(flag) == "SettingFlag:k=True"
            assert await proxy.set(package.SettingDefault(key="k", value="v")) == (
                "SettingDefault:k=v"
            )
            assert await proxy.text("abc") == "ABC"
            # The raw wire: tag and fields at the top of params, no "input" key.
            answer = await caller.request("test:settings:set:call", {"key": "x", "value": "y"}, str)
            assert answer == "SettingDefault:x=y"
            wrapped = {"input": {"type": "flag", "key": "x", "value": True}}
            with pytest.raises(Exception) as failure:
                await caller.request("test:settings:set:call", wrapped, str)
            assert getattr(failure.value, "code", None) == -32602
            await proxy.mode(package.ModeFast(level=3))
            # A notification has no answer: wait for the handler (only a lost one times out).
            await asyncio.wait_for(mode_seen.wait(), 10)
            assert isinstance(seen[-1], package.ModeFast) and seen[-1].level == 3

    asyncio.run(main())


def test_encoded_params_carry_the_tag(package: Any) -> None:
    import msgspec

    encoded = msgspec.json.encode(package.SettingFlag(key="k", value=False))
    assert json.loads(encoded) == {"type": "flag", "key": "k", "value": False}
    assert Path(package.__file__).name == "__init__.py"
