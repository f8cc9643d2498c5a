"""The width-dependent layout rules of `idlc.codegen.filters` write what black writes: for
names of every length around the limit, black leaves their output as it is (no formatter
runs at generation time, so these rules alone decide the layout)."""

from __future__ import annotations

import black
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.codegen.filters import assign_call, bracket_body, union_value

_NAME = st.integers(1, 90).map(lambda n: "N" * n)
_NAMES = st.lists(st.integers(1, 40).map(lambda n: "A" * n), min_size=1, max_size=8)
_INDENT = st.sampled_from([0, 4])


def _black_keeps(statement: str, indent: int) -> None:
    source = ("class Holder:\n" if indent else "") + " " * indent + statement + "\n"
    assert black.format_str(source, mode=black.Mode()) == source


@settings(max_examples=200, deadline=None)
@given(_NAME, _NAMES, _INDENT)
def test_a_union_value_is_as_black_writes_it(
    target: str, alternatives: list[str], indent: int
) -> None:
    # Distinct alternatives, as a union's are.
    alternatives = [f"{name}{number}" for number, name in enumerate(alternatives)]
    statement = union_value(target + ": typing.TypeAlias", alternatives, indent)
    if len(target) + indent + 22 <= 88:  # `target: typing.TypeAlias = (` fits: black's case
        _black_keeps(statement, indent)


@settings(max_examples=200, deadline=None)
@given(_NAME, _NAMES)
def test_class_bases_are_as_black_writes_them(name: str, bases: list[str]) -> None:
    bases = [f"{base}{number}" for number, base in enumerate(bases)]
    if len(name) + 7 <= 88:  # `class Name(` fits
        _black_keeps(bracket_body(f"class {name}(", bases, "):") + "\n    pass", 0)


@settings(max_examples=200, deadline=None)
@given(_NAME, st.lists(st.integers(1, 30).map(lambda n: "v" * n), min_size=1, max_size=3))
def test_a_field_call_is_as_black_writes_it(name: str, values: list[str]) -> None:
    target = f"{name}: Type | None"
    items = [f"k{number}={value}" for number, value in enumerate(values)]
    if len(target) + 4 + 4 <= 88:  # `target = (` fits
        _black_keeps(assign_call(target, "msgspec.field(", items, ")", 4), 4)
