"""Inline types inside a typedef that is a list, map or optional get names of their own.

The alias keeps the declared name (`Entries`), so the inline type inside it is named after
its container (`EntriesItem`); it used to get the alias's own name, a false E0201/E0204 that
ACP's former `SessionConfigSelectEntry` typedef worked around.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from tests.generated import generated_package

IDL = """
type A = record { x: string; };
type B = record { y: uint32; };
type Entries = list<union { A; B; }>;
type Table = map<string, record { z: bool; }>;
type Maybe = optional<enum { "on"; "off"; }>;
type Nested = optional<list<record { w: string; }>>;
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with generated_package(
        tmp_path_factory.mktemp("alias_inline"), "gen_alias_inline", IDL, warnings_allowed=False
    ) as module:
        yield module


def test_inline_types_are_named_after_their_container(package: Any) -> None:
    for name in ("EntriesItem", "TableValue", "MaybeValue", "NestedItem"):
        assert name in package.__all__
    assert "Entries: typing.TypeAlias = list[EntriesItem]" in _types_text(package)


def test_values_decode_through_the_named_inline_types(package: Any) -> None:
    from idlc_runtime import hooks

    entries = msgspec.json.decode(
        b'[{"x": "a"}, {"y": 3}]', type=package.Entries, dec_hook=hooks.dec_hook
    )
    assert entries == [package.A(x="a"), package.B(y=3)]
    table = msgspec.json.decode(b'{"k": {"z": true}}', type=package.Table)
    assert table == {"k": package.TableValue(z=True)}
    assert msgspec.json.decode(b'"off"', type=package.Maybe) is package.MaybeValue.OFF
    nested = msgspec.json.decode(b'[{"w": "v"}]', type=package.Nested)
    assert nested == [package.NestedItem(w="v")]


def _types_text(package: Any) -> str:
    from pathlib import Path

    return (Path(package.__file__).parent / "_types.py").read_text(encoding="utf-8")
