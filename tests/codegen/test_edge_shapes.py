"""Shapes at the edges of the Python mapping generate working code (docs/language.md).

An open variant with no case, an interface with no member and `[]` as the default of a
map used to generate a `SyntaxError`-free but wrong package: the variant is fine, the empty
interface failed `mypy --strict` (checked with the other packages in `test_typing.py`), and
a map's `[]` default was built with `list`, and an operation whose input is an inline
record with no field had the signature `(self, *)`, a `SyntaxError`; `optional<union {
unit; }>` made the module fail at import (`None | None`).
"""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import Any

import msgspec
import pytest

from idlc_runtime import Unsupported, hooks

ENCODER = msgspec.json.Encoder(enc_hook=hooks.enc_hook)


def _decode(type_: Any, data: bytes) -> Any:
    return msgspec.json.Decoder(type_, dec_hook=hooks.dec_hook).decode(data)


def test_map_defaults_are_empty_maps(package_dir: Path) -> None:
    edges = importlib.import_module("gen_edges")
    value = _decode(edges.Defaults, b"{}")
    assert value.counts == {} and value.maybe == {} and value.aliased == {}
    assert value.either == {}  # the first alternative that takes `[]` is the map
    assert value.items == [] and value.anything == []
    assert ENCODER.encode(value) == b"{}"  # equal to their defaults: left out
    assert edges.Defaults().counts is not edges.Defaults().counts
    filled = _decode(edges.Defaults, b'{"counts":{"a":1},"either":["x"]}')
    assert filled.counts == {"a": 1} and filled.either == ["x"]


def test_bytes_defaults_are_bytes(package_dir: Path) -> None:
    import black

    edges = importlib.import_module("gen_edges")
    value = _decode(edges.Blobs, b"{}")
    assert (value.magic, value.quotes, value.maybe) == (b"hello", b"'\"", b"\x00")
    assert ENCODER.encode(value) == b"{}"  # equal to their defaults: left out
    assert _decode(edges.Blobs, b'{"magic":"AQ=="}').magic == b"\x01"
    # Written as black writes bytes literals, so generation needs no black run for them.
    module = next(package_dir.glob("gen_edges/*.py"), None)
    assert module is not None
    for path in package_dir.glob("gen_edges/*.py"):
        text = path.read_text()
        assert black.format_str(text, mode=black.Mode()) == text, path.name


def test_an_open_variant_without_cases_keeps_every_object(package_dir: Path) -> None:
    edges = importlib.import_module("gen_edges")
    data = b'{"kind":"new","x":[1,2]}'
    value = _decode(edges.Anything, data)
    assert isinstance(value, edges.AnythingUnknown)
    assert ENCODER.encode(value) == data


def test_an_interface_without_members_serves_nothing(package_dir: Path) -> None:
    edges = importlib.import_module("gen_edges")
    assert edges.Marker.__idlc_interface__.methods == ()

    class Impl(edges.Edges):  # type: ignore[misc]
        pass

    spec = edges.Edges.__idlc_interface__.requests["edge:keep:call"]
    params = _decode(spec.params_type, b"{}")
    assert params.counts == {}
    with pytest.raises(Unsupported):  # the default body: answered with -32601
        asyncio.run(spec.invoke(Impl(), params))


def test_an_input_record_without_fields_takes_no_argument(package_dir: Path) -> None:
    edges = importlib.import_module("gen_edges")
    called = []

    class Impl(edges.Edges):  # type: ignore[misc]
        async def nothing(self) -> None:
            called.append(True)

    spec = edges.Edges.__idlc_interface__.requests["edge:nothing:call"]
    asyncio.run(spec.invoke(Impl(), _decode(spec.params_type, b"{}")))
    assert called == [True]


def test_an_optional_of_nothing_but_null_is_none(package_dir: Path) -> None:
    edges = importlib.import_module("gen_edges")
    assert edges.OnlyNull is None
    assert _decode(edges.OnlyNull, b"null") is None
