"""Values of the seeds' types as the Python runtime writes them decode in the TypeScript
validators and encode again to the same JSON; values Python refuses are refused at the same
path, for the same reason (hypothesis, time-bounded). The TypeScript side is the generated seed package compiled
by tsc, driven through one `node` process (roundtrip.mjs) reading JSON lines."""

from __future__ import annotations

import json
import sys
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc_runtime.codec.decoders import decoder_for
from idlc_runtime.codec.hooks import UInt64, enc_hook

from .conftest import Node
from .support import REPO

sys.path.insert(0, str(REPO / "generated"))
import quixos_agent  # noqa: E402

sys.path.remove(str(REPO / "generated"))

#: The seeds' records, by the name both packages give them.
RECORDS = sorted(
    name
    for name in quixos_agent.__all__
    if isinstance(getattr(quixos_agent, name), type)
    and issubclass(getattr(quixos_agent, name), msgspec.Struct)
    and not name.endswith("Params")
)


def strategy(info: msgspec.inspect.Type) -> st.SearchStrategy[Any]:
    """JSON values of a seed type, from msgspec's view of the Python class."""
    match info:
        case msgspec.inspect.StrType():
            return st.text(max_size=8)
        case msgspec.inspect.BoolType():
            return st.booleans()
        case msgspec.inspect.IntType():
            return st.integers(info.ge, info.le)
        case msgspec.inspect.CustomType() if info.cls is UInt64:
            return st.integers(0, 2**64 - 1) | st.sampled_from([2**53 - 1, 2**53, 2**64 - 1])
        case msgspec.inspect.NoneType():
            return st.none()
        case msgspec.inspect.UnionType():
            return st.one_of([strategy(inner) for inner in info.types])
        case msgspec.inspect.ListType() | msgspec.inspect.FrozenSetType():
            return st.lists(strategy(info.item_type), max_size=3)
        case msgspec.inspect.StructType():
            required = {f.encode_name: strategy(f.type) for f in info.fields if f.required}
            optional = {f.encode_name: strategy(f.type) for f in info.fields if not f.required}
            return st.fixed_dictionaries(required, optional=optional)
    raise AssertionError(f"no strategy for {info}")


def value_of(name: str) -> st.SearchStrategy[tuple[str, Any]]:
    info = msgspec.inspect.type_info(getattr(quixos_agent, name))
    return st.tuples(st.just(name), strategy(info))


VALUES = st.sampled_from(RECORDS).flatmap(value_of)

#: Values that break a field of the wrong kind: each is wrong for some seed field.
WRONG = st.sampled_from([None, True, "x", -1, 1.5, 2**64, [1], {"k": 1}])


def python_round_trip(name: str, text: str) -> bytes:
    decoded = decoder_for(getattr(quixos_agent, name)).decode(text)
    return msgspec.json.encode(decoded, enc_hook=enc_hook)


def python_error(name: str, text: str) -> tuple[str, str] | None:
    """The path (`$` for the top) and reason of Python's refusal, or None when it decodes."""
    try:
        decoder_for(getattr(quixos_agent, name)).decode(text)
    except msgspec.ValidationError as error:
        reason, marker, path = str(error).rpartition(" - at `")
        return (path.rstrip("`"), reason) if marker else ("$", str(error))
    return None


SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SETTINGS
@given(VALUES)
def test_python_values_round_trip_through_typescript(node: Node, value: tuple[str, Any]) -> None:
    name, data = value
    text = json.dumps(data)
    answer = node.ask(name + "Codec", text)
    assert "ok" in answer, answer
    assert json.loads(answer["ok"]) == json.loads(python_round_trip(name, text))


def mutate(data: Any, draw: st.DrawFn) -> Any:
    """`data` with one member replaced by a wrong value, or removed, somewhere inside."""
    if isinstance(data, dict) and data:
        key = draw(st.sampled_from(sorted(data)))
        copy = dict(data)
        action = draw(st.sampled_from(["replace", "remove", "descend"]))
        if action == "remove":
            del copy[key]
        elif action == "replace" or not isinstance(data[key], (dict, list)) or not data[key]:
            copy[key] = draw(WRONG)
        else:
            copy[key] = mutate(data[key], draw)
        return copy
    if isinstance(data, list) and data:
        index = draw(st.integers(0, len(data) - 1))
        copy_list = list(data)
        copy_list[index] = mutate(data[index], draw) if data[index] else draw(WRONG)
        return copy_list
    return draw(WRONG)


@st.composite
def invalid_values(draw: st.DrawFn) -> tuple[str, Any]:
    name, data = draw(VALUES)
    return name, mutate(data, draw)


@SETTINGS
@given(invalid_values())
def test_values_python_refuses_are_refused_at_the_same_path(
    node: Node, value: tuple[str, Any]
) -> None:
    name, data = value
    text = json.dumps(data)
    expected = python_error(name, text)
    answer = node.ask(name + "Codec", text)
    if expected is None:  # the change was still valid (null for an optional field)
        assert "ok" in answer, answer
        assert json.loads(answer["ok"]) == json.loads(python_round_trip(name, text))
    else:
        assert (answer.get("path"), answer.get("reason")) == expected
