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


# -- G9: `nullable<T>` and tri-state fields -------------------------------------------------


def test_a_nullable_field_is_required_and_null_is_sent(gen: ModuleType) -> None:
    scope = msgspec.json.decode(b'{"requestId": null, "note": null}', type=gen.Scope)
    assert scope.request_id is None and scope.note is None
    assert msgspec.json.encode(scope) == b'{"requestId":null,"note":null}'
    assert msgspec.json.decode(b'{"requestId": 7, "note": "n"}', type=gen.Scope).request_id == 7
    with pytest.raises(msgspec.ValidationError, match="requestId"):
        msgspec.json.decode(b'{"note": null}', type=gen.Scope)


@pytest.mark.parametrize(
    ("wire", "summary", "error"),
    [
        (b'{"id": "c"}', msgspec.UNSET, msgspec.UNSET),  # absent: leave the stored value
        (b'{"id": "c", "summary": null, "error": null}', None, None),  # null: clear it
        (b'{"id": "c", "summary": ["s"], "error": "e"}', ["s"], "e"),  # a value: replace it
    ],
)
def test_a_tristate_field_keeps_absent_null_and_value_apart(
    gen: ModuleType, wire: bytes, summary: object, error: object
) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    patch = decoder_for(gen.CompactionPatch).decode(wire)
    assert (patch.summary, patch.error) == (summary, error)
    assert msgspec.json.decode(msgspec.json.encode(patch)) == msgspec.json.decode(wire)


def test_a_lenient_tristate_field_falls_back_to_absent(gen: ModuleType) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    patch = decoder_for(gen.CompactionPatch).decode(
        b'{"id": "c", "summary": ["a", 3, "b"], "error": 5}'
    )
    assert patch.summary == ["a", "b"] and patch.error is msgspec.UNSET


def test_an_optional_nullable_typedef_is_tristate_too(gen: ModuleType) -> None:
    absent = msgspec.json.decode(b'{"id": "c"}', type=gen.CompactionPatch)
    cleared = msgspec.json.decode(
        b'{"id": "c", "request": null, "plain": null}', type=gen.CompactionPatch
    )
    assert absent.request is msgspec.UNSET and cleared.request is None
    assert msgspec.json.encode(cleared) == b'{"id":"c","request":null}'


# -- G2: fields shared by every case of a variant -------------------------------------------


@pytest.mark.parametrize(
    ("wire", "case"),
    [
        (
            b'{"type": "select", "id": "m", "name": "Mode", "currentValue": "a"}',
            "ConfigOptionSelect",
        ),
        (
            b'{"type": "boolean", "id": "m", "name": "Mode", "currentValue": true}',
            "ConfigOptionBoolean",
        ),
        (b'{"type": "hidden", "id": "m", "name": "Mode"}', "ConfigOptionHidden"),
        (b'{"id": "m", "name": "Mode", "currentValue": "x"}', "ConfigOptionDefault"),
    ],
)
def test_every_case_carries_the_shared_fields(gen: ModuleType, wire: bytes, case: str) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    option = decoder_for(gen.ConfigOption).decode(wire)
    assert type(option).__name__ == case
    assert (option.id, option.name, option.category) == ("m", "Mode", None)
    assert msgspec.json.decode(msgspec.json.encode(option)) == msgspec.json.decode(wire)


def test_a_shared_field_is_required_in_every_case(gen: ModuleType) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    with pytest.raises(msgspec.ValidationError, match="name"):
        decoder_for(gen.ConfigOption).decode(b'{"type": "hidden", "id": "m"}')


def test_shared_fields_keep_their_modifiers(gen: ModuleType) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    wire = b'{"type": "select", "id": "m", "name": "M", "currentValue": "a", "category": 3}'
    option = decoder_for(gen.ConfigOption).decode(wire)
    assert option.category is None and option.current_value == "a"


def test_the_named_case_record_holds_only_its_own_fields(gen: ModuleType) -> None:
    assert set(gen.SelectCase.__struct_fields__) == {"current_value", "options"}
    assert {"id", "name", "category", "current_value"} <= set(
        gen.ConfigOptionSelect.__struct_fields__
    )


def test_an_unknown_case_of_an_open_variant_keeps_the_shared_fields(gen: ModuleType) -> None:
    from idlc_runtime.codec.decoders import decoder_for
    from idlc_runtime.hooks import UnknownCase

    wire = b'{"action": "later", "_meta": {"k": 1}}'
    answer = decoder_for(gen.ElicitationAnswer).decode(wire)
    assert isinstance(answer, UnknownCase)
    assert answer.data == {"action": "later", "_meta": {"k": 1}}
    declined = decoder_for(gen.ElicitationAnswer).decode(b'{"action": "decline", "_meta": {}}')
    assert declined.meta == {}


# -- G7: a case class named like the record it holds -----------------------------------------


def test_the_record_class_is_the_case_class(gen: ModuleType) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    transport = decoder_for(gen.Transport).decode(b'{"type": "http", "url": "u"}')
    assert type(transport) is gen.TransportHttp
    assert msgspec.json.encode(gen.TransportHttp(url="u")) == b'{"type":"http","url":"u"}'
    assert gen.TransportHttp.__doc__ == "An HTTP transport."
    assert not hasattr(gen, "TransportHttpCase")
    stdio = decoder_for(gen.Transport).decode(b'{"command": "c"}')
    assert isinstance(stdio, gen.TransportStdio) and type(stdio).__name__ == "TransportDefault"


def test_the_record_keeps_its_forward_compatible_fields(gen: ModuleType) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    wire = b'{"type": "http", "url": "u", "headers": 3}'
    assert decoder_for(gen.Transport).decode(wire) == gen.TransportHttp(url="u")


# -- G8: a union of lists ---------------------------------------------------------------------

OPTION = {"value": "a", "name": "A"}
GROUP = {"group": "g", "name": "G", "options": [OPTION]}


@pytest.mark.parametrize(
    ("options", "item"),
    [([OPTION], "SelectOption"), ([GROUP], "SelectGroup"), ([], None)],
)
def test_a_union_of_lists_decodes_the_first_alternative_that_fits(
    gen: ModuleType, options: list[object], item: str | None
) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    wire = msgspec.json.encode({"options": options})
    select = decoder_for(gen.Select).decode(wire)
    expected = [msgspec.convert(entry, getattr(gen, item)) for entry in options] if item else []
    assert isinstance(select.options, list) and select.options == expected
    assert msgspec.json.decode(msgspec.json.encode(select)) == {"options": options}


def test_a_list_mixing_the_alternatives_is_rejected_naming_both(gen: ModuleType) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    with pytest.raises(msgspec.ValidationError) as error:
        decoder_for(gen.Select).decode(msgspec.json.encode({"options": [OPTION, GROUP]}))
    assert "list[SelectOption]" in str(error.value) and "list[SelectGroup]" in str(error.value)


def test_a_plain_list_is_sent_as_it_is(gen: ModuleType) -> None:
    select = gen.Select(options=[gen.SelectGroup(group="g", name="G", options=[])])
    assert msgspec.json.encode(select) == b'{"options":[{"group":"g","name":"G","options":[]}]}'


def test_the_forward_compatible_path_decodes_the_union_of_lists_too(gen: ModuleType) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    # `hint` does not decode: the record is decoded field by field (docs/wire.md).
    wire = msgspec.json.encode({"options": [GROUP], "hint": 3})
    select = decoder_for(gen.Select).decode(wire)
    assert select.hint is None
    assert isinstance(select.options, gen.SelectOptions)  # the union's list class
    assert select.options == [msgspec.convert(GROUP, gen.SelectGroup)]


# -- G3: a case that is an untagged union of records -----------------------------------------


@pytest.mark.parametrize(
    ("wire", "case"),
    [
        (b'{"mode": "form", "message": "m", "schema": "s", "sessionId": "x"}', "PromptFormOption1"),
        (
            b'{"mode": "form", "message": "m", "schema": "s", "requestId": null}',
            "PromptFormOption2",
        ),
        (b'{"mode": "url", "message": "m", "url": "u", "sessionId": "x"}', "PromptUrlOption1"),
        (b'{"mode": "url", "message": "m", "url": "u", "requestId": 4}', "PromptUrlOption2"),
    ],
)
def test_the_tag_picks_the_case_then_the_first_alternative_that_fits(
    gen: ModuleType, wire: bytes, case: str
) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    prompt = decoder_for(gen.Prompt).decode(wire)
    assert type(prompt).__name__ == case and prompt.message == "m"
    assert msgspec.json.decode(msgspec.json.encode(prompt)) == msgspec.json.decode(wire)


def test_a_case_fitting_no_alternative_is_rejected(gen: ModuleType) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    with pytest.raises(msgspec.ValidationError, match="alternative"):
        decoder_for(gen.Prompt).decode(b'{"mode": "form", "message": "m", "schema": "s"}')


def test_each_alternative_class_carries_the_tag(gen: ModuleType) -> None:
    sent = gen.PromptFormOption2(message="m", schema="s", request_id=None)
    assert msgspec.json.decode(msgspec.json.encode(sent)) == {
        "mode": "form",
        "message": "m",
        "schema": "s",
        "requestId": None,
    }
    assert isinstance(gen.PromptUrlOption1(message="m", url="u", session_id="x"), gen.UrlSession)


def test_the_forward_compatible_path_tries_the_alternatives_of_a_union_case(
    gen: ModuleType,
) -> None:
    from idlc_runtime.codec.decoders import decoder_for

    # `hint` does not decode, so the message takes the field-by-field path (docs/wire.md);
    # there too the first alternative that fits wins, though both carry the tag "form".
    wire = b'{"mode": "form", "message": "m", "schema": "s", "sessionId": "x", "hint": 3}'
    prompt = decoder_for(gen.Prompt).decode(wire)
    assert type(prompt).__name__ == "PromptFormOption1" and prompt.hint is None
