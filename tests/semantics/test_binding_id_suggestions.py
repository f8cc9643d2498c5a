"""W0002 never suggests a binding id another binding of the compilation already has: applying
every suggestion at once leaves no binding id used twice (E0111)."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.semantics.lints import suggested_binding_id
from idlc.semantics.resolver import resolve
from idlc.source import SourceFile
from idlc.syntax.parser import parse

_WRITE = re.compile(r'write ("(?:[^"\\]|\\.)*")')

_IDS = st.sets(
    st.sampled_from(["a:get", "a:get-2", "a:get-3", "a:get-5", "b:get", "a", "x"]), max_size=7
)


@given(_IDS, st.sampled_from(["a", "a:get", "a:get-2", "a:get-3", "zzz"]))
def test_the_suggestion_is_free_deterministic_and_conventional_first(
    in_use: set[str], own: str
) -> None:
    others = in_use - {own}
    suggestion = suggested_binding_id("a:get", own, others.__contains__)
    assert suggestion == suggested_binding_id("a:get", own, sorted(others).__contains__)
    if "a:get" not in others:
        assert suggestion == "a:get"
    elif suggestion is None:
        # Only its own id would do: freeing the conventional one is the fix.
        assert own.startswith("a:get-") and own not in others
    else:
        assert suggestion not in others and suggestion.startswith("a:get-")
        # The first free one: every smaller number is taken.
        number = int(suggestion.rsplit("-", 1)[1])
        assert all(f"a:get-{n}" in others for n in range(2, number))


_MEMBER_IDS = ["m0", "m1", "m2", "m3"]
_BINDING_IDS = [f"{member}:get{suffix}" for member in _MEMBER_IDS for suffix in ("", "-2")] + [
    "plain"
]


def _interface(bindings: list[str]) -> str:
    members = "".join(
        f'  queryable value v{index} id "{_MEMBER_IDS[index]}" : uint32 '
        f'{{ get id "{binding}" execution snapshot; }}\n'
        for index, binding in enumerate(bindings)
    )
    return f'interface I id "i" revision "i@1" {{\n{members}}}\n'


def _diagnostics(text: str) -> Diagnostics:
    diagnostics = Diagnostics()
    tree = parse(SourceFile("i.idl", text), diagnostics)
    assert tree is not None
    resolve([tree], diagnostics)
    return diagnostics


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(_BINDING_IDS), min_size=1, max_size=4, unique=True).filter(
        lambda ids: len(ids) <= len(_MEMBER_IDS)
    )
)
def test_applying_every_suggestion_at_once_uses_no_id_twice(bindings: list[str]) -> None:
    text = _interface(bindings)
    found = _diagnostics(text)
    assert {d.code.id for d in found} <= {"W0002"}
    fixed = list(bindings)
    for diagnostic in found:
        assert diagnostic.span is not None and diagnostic.help is not None
        index = bindings.index(json.loads(text[diagnostic.span.start : diagnostic.span.end]))
        match = _WRITE.match(diagnostic.help)
        if match is None:
            assert f'"{_MEMBER_IDS[index]}:get" is the binding id of' in diagnostic.help
            continue
        suggestion = json.loads(match.group(1))
        assert suggestion not in bindings, (bindings, diagnostic.help)
        fixed[index] = suggestion
    assert [d.code.id for d in _diagnostics(_interface(fixed))].count("E0111") == 0


def test_the_help_names_who_has_the_conventional_id() -> None:
    found = _diagnostics(_interface(["plain", "m0:get"]))
    assert [d.help for d in found] == [
        'write "m0:get-2" ("m0:get" is the binding id of `v1` in `I`: give that one its own '
        "id to free it)",
        'write "m1:get"',
    ]
