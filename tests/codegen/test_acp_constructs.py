"""The constructs ACP needed (docs/language.md, "Extensions for ACP"; docs/acp-gaps.md),
in their wire forms, through the generated package of `tests/corpus/valid/acp_constructs.idl`."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import msgspec
import pytest


@pytest.fixture(scope="module")
def gen(package_dir: Path) -> ModuleType:
    return importlib.import_module("gen_acp_constructs")


# -- G4: `{}` defaults ----------------------------------------------------------------------


def test_an_absent_empty_object_field_decodes_as_the_record_at_its_defaults(
    gen: ModuleType,
) -> None:
    value = msgspec.json.decode(b'{"protocolVersion": 1}', type=gen.Initialize)
    assert value.capabilities == gen.Capabilities()
    assert value.capabilities.image is False
    assert value.capabilities.nested.embedded_context is False
    assert value.aliased == gen.Capabilities()
    assert value.maybe == gen.Capabilities()
    assert value.properties == {}
    assert value.inline.note is None


def test_each_value_gets_its_own_default_record(gen: ModuleType) -> None:
    first, second = gen.Initialize(protocol_version=1), gen.Initialize(protocol_version=1)
    first.capabilities.image = True
    first.properties["a"] = "b"
    assert second.capabilities.image is False
    assert second.properties == {}


def test_a_default_record_is_encoded_as_an_object_a_peer_reads_back(gen: ModuleType) -> None:
    encoded = msgspec.json.encode(gen.Initialize(protocol_version=1))
    assert msgspec.json.decode(encoded) == {
        "protocolVersion": 1,
        "capabilities": {"nested": {}},
        "aliased": {"nested": {}},
        "maybe": {"nested": {}},
        "inline": {},
    }
    assert msgspec.json.decode(encoded, type=gen.Initialize) == gen.Initialize(protocol_version=1)


def test_a_present_value_is_decoded_as_written(gen: ModuleType) -> None:
    value = msgspec.json.decode(
        b'{"protocolVersion": 1, "capabilities": {"image": true, "nested": {"embeddedContext": true}},'
        b' "maybe": null, "properties": {"k": "v"}}',
        type=gen.Initialize,
    )
    assert value.capabilities.image is True
    assert value.capabilities.nested.embedded_context is True
    assert value.maybe is None
    assert value.properties == {"k": "v"}
