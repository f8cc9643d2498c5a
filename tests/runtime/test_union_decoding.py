"""Untagged unions of records decode as "the first alternative that validates"
(docs/language.md, "Unions"), in time linear in the depth of the message: a recursive union
whose deepest value fails is not tried again for every alternative above it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import msgspec
import pytest

from tests.generated import generated_package

IDL = """
type A = record { child : optional<U>; a : int32; note : optional<string> lenient; };
type B = record { child : optional<U>; b : int32; };
type U = union { A; B; };
type Holder = record { top : U; flag : bool = false lenient; };
"""


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with generated_package(tmp_path_factory.mktemp("unions"), "union_api", IDL) as module:
        yield module


def nested(depth: int, leaf: dict[str, Any]) -> dict[str, Any]:
    value = leaf
    for level in range(depth):
        value = {"child": value, "a" if level % 2 else "b": level}
    return value


def counted_decode(
    api: ModuleType, message: Any, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, int]:
    from idlc_runtime.codec.decoders import decoder_for

    calls = 0
    convert = msgspec.convert

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return convert(*args, **kwargs)

    monkeypatch.setattr(msgspec, "convert", counting)
    try:
        return decoder_for(api.Holder).decode(json.dumps(message)), calls
    except msgspec.ValidationError as error:
        return error, calls
    finally:
        monkeypatch.setattr(msgspec, "convert", convert)


@pytest.mark.parametrize("flag", [False, "not a bool"])  # the strict path, then the slow one
def test_a_deep_recursive_union_is_decoded_in_linear_time(
    api: ModuleType, monkeypatch: pytest.MonkeyPatch, flag: object
) -> None:
    depth = 14
    good, calls_good = counted_decode(
        api, {"top": nested(depth, {"a": 0}), "flag": flag}, monkeypatch
    )
    assert not isinstance(good, msgspec.ValidationError), good
    bad, calls_bad = counted_decode(
        api, {"top": nested(depth, {"c": "no alternative has c"}), "flag": flag}, monkeypatch
    )
    assert isinstance(bad, msgspec.ValidationError)
    # Each JSON object meets each alternative at most once: 2 per level, and a few
    # conversions of whole values on the slow path; 2 ** 14 without remembering.
    assert calls_good <= 8 * (depth + 2), calls_good
    assert calls_bad <= 8 * (depth + 2), calls_bad


def test_the_first_alternative_that_validates_wins(api: ModuleType) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    decode = decoder_for(api.Holder).decode
    both = decode(json.dumps({"top": {"a": 1, "b": 2}}))
    assert type(both.top).__name__ == "A"
    only_b = decode(json.dumps({"top": {"b": 2, "child": {"a": 1}}}))
    assert type(only_b.top).__name__ == "B" and type(only_b.top.child).__name__ == "A"
