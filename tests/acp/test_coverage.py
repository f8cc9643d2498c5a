"""Every stable ACP method and every schema type they reach has a generated counterpart."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from .conftest import all_methods, method_defs, schema

#: Envelopes and error objects: JSON-RPC framing that the runtime handles, not ACP types.
NOT_TYPES = {"Error", "ErrorCode"}


def reachable() -> set[str]:
    defs = schema()["$defs"]
    seen: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                name = ref.rsplit("/", 1)[1]
                if name not in seen:
                    seen.add(name)
                    walk(defs[name])
            for key, value in node.items():
                if key != "not":
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for params, result in method_defs().values():
        for name in (params, result):
            if name is not None and name not in seen:
                seen.add(name)
                walk(defs[name])
    return seen - NOT_TYPES


def specs() -> dict[str, Any]:
    import idlc_acp

    table: dict[str, Any] = {}
    for interface in (
        idlc_acp.protocol.Agent,
        idlc_acp.protocol.Client,
        idlc_acp.protocol.Protocol,
    ):
        for spec in interface.__idlc_interface__.methods:
            wire = spec.wire
            assert wire not in table, wire
            table[wire] = spec
    return table


def test_every_method_of_meta_json_is_a_member_with_the_right_shape() -> None:
    table = specs()
    methods = all_methods()
    assert sorted(table) == sorted(methods)
    defs = method_defs()
    for wire, spec in table.items():
        params, result = defs[wire]
        assert spec.notify == (result is None), wire
        assert spec.shape.value == "record", wire  # params travel as the object itself
        assert _names(spec.params_type) & {params, f"_{params}Base"}, (wire, spec.params_type)
        if result is not None:
            assert _names(spec.result_type) & {result, f"_{result}Base"}, wire


def _names(type_: Any) -> set[str]:
    import typing

    args = typing.get_args(type_)
    if args:
        return {name for arg in args for name in _names(arg)}
    return {getattr(type_, "__name__", repr(type_))}


def test_the_required_members_follow_the_seed_traits() -> None:
    table = specs()
    required = {wire for wire, spec in table.items() if spec.required}
    assert required == {
        "initialize",
        "session/new",
        "session/prompt",
        "session/update",
        "session/request_permission",
    }
    members = {wire: spec.member for wire, spec in table.items()}
    assert members["session/new"] == "new_session"
    assert members["session/cancel"] == "cancel"
    assert members["session/update"] == "update"
    assert members["elicitation/create"] == "elicit"
    assert members["terminal/wait_for_exit"] == "wait_for_terminal_exit"


@pytest.mark.parametrize("name", sorted(reachable()))
def test_every_reachable_type_is_generated_with_every_field(name: str) -> None:
    import idlc_acp

    assert hasattr(idlc_acp, name), f"idlc_acp has no {name}"
    node = schema()["$defs"][name]
    properties = set(node.get("properties", {}))
    if not properties:
        return
    generated = getattr(idlc_acp, name)
    classes = [generated] if isinstance(generated, type) else _case_classes(generated)
    assert classes, name
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, msgspec.Struct)):
            continue  # the unknown case of an open variant keeps the raw object
        wire_names = {field.encode_name for field in msgspec.structs.fields(cls)}
        tag = getattr(cls.__struct_config__, "tag_field", None)
        missing = properties - wire_names - {tag}
        assert not missing, f"{cls.__name__} lacks {sorted(missing)}"


def _case_classes(alias: Any) -> list[Any]:
    import typing

    import idlc_acp

    base = alias
    info = getattr(base, "__idlc_variant__", None)
    if info is not None:
        cases = [*info.cases.values(), *([info.default] if info.default else [])]
        # A case that is a union of records maps its tag to the union's base class, whose
        # alternatives are the case classes (docs/language.md, "Variants").
        return [
            alternative
            for case in cases
            for alternative in (
                case.__idlc_union__.alternatives if "__idlc_union__" in vars(case) else (case,)
            )
        ]
    union = getattr(base, "__idlc_union__", None)
    if union is not None:
        return list(union.alternatives)
    del idlc_acp
    return [arg for arg in typing.get_args(alias) if isinstance(arg, type)]


def _marked(mark: str) -> list[tuple[str, str]]:
    """(definition, property) of every property the schema marks with `mark`."""
    return [
        (name, prop)
        for name, node in schema()["$defs"].items()
        for prop, value in node.get("properties", {}).items()
        if value.get(mark)
    ]


@pytest.mark.parametrize(
    ("mark", "modifier", "count"),
    [
        ("x-deserialize-default-on-error", "lenient", 245),
        ("x-deserialize-skip-invalid-items", "skip_invalid", 19),
    ],
)
def test_every_forward_compatible_place_of_the_schema_is_lenient(
    mark: str, modifier: str, count: int
) -> None:
    """Each place the schema marks decodes as the official SDKs decode it: `lenient` for
    default-on-error, `skip-invalid` for skip-invalid-items (docs/acp.md, "Messages from
    newer peers"), on every generated class of that definition."""
    import idlc_acp
    from idlc_runtime.codec.lenient import leniency_of

    marked = _marked(mark)
    assert len(marked) == count  # the vendored schema's number: a schema update shows here
    reach = reachable()
    checked = 0
    for name, prop in marked:
        if (name, prop) == ("Error", "data"):
            # The JSON-RPC error object is the runtime's: its `data` is any JSON value
            # (RpcError.data), which always decodes.
            checked += 1
            continue
        assert name in reach, f"{name}.{prop} is marked but no method reaches {name}"
        generated = getattr(idlc_acp, name)
        # A variant's or union's base class (not a class that merely derives from one).
        own = vars(generated) if isinstance(generated, type) else {}
        plain = isinstance(generated, type) and not {"__idlc_variant__", "__idlc_union__"} & set(
            own
        )
        classes = [generated] if plain else _case_classes(generated)
        structs = [c for c in classes if isinstance(c, type) and issubclass(c, msgspec.Struct)]
        assert structs, name
        for cls in structs:
            attribute = next(f.name for f in msgspec.structs.fields(cls) if f.encode_name == prop)
            assert attribute in getattr(leniency_of(cls), modifier), (cls.__name__, prop)
        checked += 1
    assert checked == count


def test_every_default_on_null_place_reads_null_as_nothing_or_the_empty_list() -> None:
    """x-deserialize-default-on-null (14 places): a field that is optional in Python reads
    `null` as None already; every other one is `null-default` (docs/acp.md, "Messages from
    newer peers")."""
    import idlc_acp
    from idlc_runtime.codec.lenient import leniency_of

    marked = _marked("x-deserialize-default-on-null")
    assert len(marked) == 14
    modified = 0
    for name, prop in marked:
        generated = getattr(idlc_acp, name)
        own = vars(generated) if isinstance(generated, type) else {}
        plain = isinstance(generated, type) and not {"__idlc_variant__", "__idlc_union__"} & set(
            own
        )
        classes = [generated] if plain else _case_classes(generated)
        for cls in [c for c in classes if isinstance(c, type) and issubclass(c, msgspec.Struct)]:
            field = next(f for f in msgspec.structs.fields(cls) if f.encode_name == prop)
            if field.default is None:
                continue  # optional: `null` is None
            assert field.name in leniency_of(cls).null_default, (cls.__name__, prop)
            modified += 1
    assert modified == 6  # mcpServers (new, load), headers (http, sse), args and env (stdio)
