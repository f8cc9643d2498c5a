"""The arena of typedefs and the facts it works out once (idlc/semantics/facts.py).

Each fact is checked against the walk it replaced — following names one at a time with a
`seen` set, as `queries`, `shapes` and `decoding` did — over random typedefs: chains,
cycles of aliases, cycles through `optional<…>` and unions, names no typedef has.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.semantics import model as m
from idlc.semantics import queries, shapes
from idlc.semantics.facts import Typedefs
from idlc.semantics.resolver import resolve_unsorted
from idlc.source import SourceFile
from idlc.syntax.parser import parse
from idlc.targets.python import decoding, hints

_SPAN = SourceFile("f.idl", "x").span(0, 1)
_NAMES = ["A", "B", "C", "D", "E"]
_PRIMITIVES = [
    m.PrimitiveKind.STRING,
    m.PrimitiveKind.INT32,
    m.PrimitiveKind.UINT64,
    m.PrimitiveKind.JSON,
    m.PrimitiveKind.UNIT,
    m.PrimitiveKind.BOOL,
]


def _types(names: list[str]) -> st.SearchStrategy[m.Type]:
    leaves: st.SearchStrategy[m.Type] = st.one_of(
        st.sampled_from(_PRIMITIVES).map(lambda kind: m.Primitive(kind, _SPAN)),
        st.sampled_from(names).map(lambda name: m.TypeRef(name, _SPAN)),
        st.booleans().map(lambda open_: m.Record((), _SPAN, open_)),
        st.just(m.Enum(False, (), _SPAN)),
    )

    def composite(inner: st.SearchStrategy[m.Type]) -> st.SearchStrategy[m.Type]:
        return st.one_of(
            st.tuples(inner, st.booleans()).map(lambda t: m.Optional(t[0], _SPAN, t[1])),
            inner.map(lambda t: m.List(t, _SPAN)),
            inner.map(lambda t: m.Map(t, _SPAN)),
            st.lists(inner, max_size=3).map(lambda alts: m.Union_(tuple(alts), _SPAN)),
            st.tuples(st.booleans(), inner).map(
                lambda t: m.Variant(t[0], "kind", (m.Case("x", t[1], None, _SPAN),), _SPAN)
            ),
        )

    return st.recursive(leaves, composite, max_leaves=6)


def _typedefs(names: list[str], referable: list[str]) -> st.SearchStrategy[dict[str, m.Typedef]]:
    """Typedefs of `names`, half of them aliases of another name (so chains and cycles of
    aliases are common), referring to `referable` (some maybe defined nowhere)."""
    alias = st.sampled_from(referable).map(lambda name: m.TypeRef(name, _SPAN))
    return st.fixed_dictionaries(
        {
            name: st.one_of(alias, _types(referable)).map(
                lambda t, n=name: m.Typedef(n, t, None, _SPAN)
            )
            for name in names
        }
    )


# -- the walks the facts replaced ----------------------------------------------------------


def _naive_chain(
    type_: m.Type, typedefs: Mapping[str, m.Typedef], through_optional: bool = False
) -> tuple[m.Type | None, str | None]:
    seen: set[str] = set()
    name: str | None = None
    while True:
        while through_optional and isinstance(type_, m.Optional):
            type_ = type_.inner
        if not isinstance(type_, m.TypeRef):
            return type_, name
        name = type_.name
        if name in seen or name not in typedefs:
            return None, name
        seen.add(name)
        type_ = typedefs[name].type


_PRIMITIVE_KINDS = {
    m.PrimitiveKind.STRING: "str",
    m.PrimitiveKind.UNIT: "null",
    m.PrimitiveKind.JSON: "any",
    m.PrimitiveKind.BOOL: "bool",
}


def _naive_kinds(
    typedefs: Mapping[str, m.Typedef], type_: m.Type, seen: frozenset[str] = frozenset()
) -> set[str]:
    match type_:
        case m.TypeRef():
            if type_.name in seen:
                return {"any"}
            return _naive_kinds(typedefs, typedefs[type_.name].type, seen | {type_.name})
        case m.Primitive():
            return {_PRIMITIVE_KINDS.get(type_.kind, "int")}
        case m.Optional():
            return _naive_kinds(typedefs, type_.inner, seen) | {"null"}
        case m.List():
            return {"array"}
        case m.Enum():
            return {"str"}
        case m.Union_():
            kinds: set[str] = set()
            for alternative in type_.alternatives:
                kinds |= _naive_kinds(typedefs, alternative, seen)
            return kinds
        case _:
            return {"object"}


def _naive_hooked(model: m.Model, type_: m.Type, seen: frozenset[str] = frozenset()) -> bool:
    typedefs = model.typedefs
    while isinstance(type_, m.TypeRef):
        if type_.name in seen:
            return False
        seen |= {type_.name}
        type_ = typedefs[type_.name].type
    match type_:
        case m.Primitive():
            return type_.kind is m.PrimitiveKind.UINT64
        case m.Optional():
            return _naive_hooked(model, type_.inner, seen)
        case m.Variant():
            return type_.open or any(
                case.tag is None
                or shapes.union_case(model, case) is not None
                or shapes.variant_case(model, case) is not None
                for case in type_.cases
            )
        case m.Union_():
            kinds_seen: set[str] = set()
            for alternative in type_.alternatives:
                if _naive_hooked(model, alternative, seen):
                    return True
                kinds = _naive_kinds(typedefs, alternative, seen)
                if "any" in kinds or kinds & kinds_seen:
                    return True
                kinds_seen |= kinds
            return False
        case m.Record():
            return type_.open
        case _:
            return False


def _naive_is_none(model: m.Model, type_: m.Type, seen: frozenset[str] = frozenset()) -> bool:
    if isinstance(type_, m.TypeRef):
        if type_.name in seen or type_.name not in model.typedefs:
            return False
        return _naive_is_none(model, model.typedefs[type_.name].type, seen | {type_.name})
    if isinstance(type_, m.Primitive):
        return type_.kind is m.PrimitiveKind.UNIT
    if isinstance(type_, m.Optional):
        return _naive_is_none(model, type_.inner, seen)
    if isinstance(type_, m.Union_):
        return all(_naive_is_none(model, item, seen) for item in type_.alternatives)
    return False


def _model(typedefs: dict[str, m.Typedef]) -> m.Model:
    return m.Model((), {}, Typedefs(typedefs), {}, {}, ())


# -- the facts agree with them -------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(_typedefs(_NAMES, _NAMES + ["Missing"]))
def test_following_a_name_is_the_naive_follow(typedefs: dict[str, m.Typedef]) -> None:
    """Chains, cycles of aliases and dangling names (a model with errors) alike, from
    every name (a walk from one name ends on names another walk has met)."""
    arena = Typedefs(typedefs)
    for start in [*_NAMES, "Missing"]:
        ref = m.TypeRef(start, _SPAN)
        assert queries.typedef_chain(ref, arena) == _naive_chain(ref, typedefs)
        assert queries.follow_typedefs(ref, arena) == _naive_chain(ref, typedefs)[0]
        assert queries.present_chain(ref, arena) == _naive_chain(ref, typedefs, True)


@settings(max_examples=300, deadline=None)
@given(_typedefs(_NAMES, _NAMES), _types(_NAMES))
def test_json_kinds_and_hooked_are_the_naive_walks(
    typedefs: dict[str, m.Typedef], type_: m.Type
) -> None:
    """Every name defined (the walks they replaced raised on a dangling one), cycles
    through `optional<…>` and unions included."""
    model = _model(typedefs)
    for written in [type_, *(m.TypeRef(name, _SPAN) for name in _NAMES)]:
        assert set(queries.json_kinds(written, model.typedefs)) == _naive_kinds(typedefs, written)
        assert decoding.hooked(model, written) == _naive_hooked(model, written)
        if isinstance(written, m.Union_):
            assert decoding.native_union(model, written) == (not _naive_hooked(model, written))


@settings(max_examples=300, deadline=None)
@given(_typedefs(_NAMES, _NAMES + ["Missing"]), _types(_NAMES + ["Missing"]))
def test_is_none_is_the_naive_walk(typedefs: dict[str, m.Typedef], type_: m.Type) -> None:
    """The Python target's question through names (`idlc.targets.python.hints`), cycles
    and dangling names included: it ends, and answers as the recursive walk did."""
    model = _model(typedefs)
    for written in [type_, *(m.TypeRef(name, _SPAN) for name in [*_NAMES, "Missing"])]:
        assert hints.is_none(model, written) == _naive_is_none(model, written)


@settings(max_examples=200, deadline=None)
@given(_typedefs(_NAMES, _NAMES + ["Missing"]), _types(_NAMES + ["Missing"]))
def test_nothing_raises_on_a_model_with_errors(
    typedefs: dict[str, m.Typedef], type_: m.Type
) -> None:
    model = _model(typedefs)
    queries.json_kinds(type_, model.typedefs)
    decoding.hooked(model, type_)
    literal = m.Literal(m.EMPTY_OBJECT, "{}", _SPAN)
    hints.default_of(model, m.Field("f", type_, literal, None, _SPAN))


def test_the_arena_is_a_mapping_in_declaration_order() -> None:
    string = m.Primitive(m.PrimitiveKind.STRING, _SPAN)
    entries = {
        "B": m.Typedef("B", m.TypeRef("A", _SPAN), None, _SPAN),
        "A": m.Typedef("A", string, None, _SPAN),
    }
    arena = Typedefs(entries)
    assert list(arena) == ["B", "A"] and dict(arena.items()) == entries and arena == entries
    assert "A" in arena and arena.get("Missing") is None and len(arena) == 2
    facts = arena.facts("B")
    assert facts is not None and facts.target is string and facts.last == "A"
    assert facts.kinds == {"str"} and facts.looked_through == (string,)
    assert arena.facts("Missing") is None


# -- a dangling name on the way to a default `{}` (codegen's hints used to raise KeyError) --


def _resolved_with_errors(tmp_path: Path, text: str) -> tuple[m.Model, Diagnostics]:
    source = SourceFile(str(tmp_path / "bad.idl"), text)
    found = Diagnostics()
    tree = parse(source, found)
    assert tree is not None
    diagnostics = Diagnostics()
    return resolve_unsorted([tree], diagnostics), diagnostics


def test_a_default_through_a_dangling_name_is_reported_not_raised(tmp_path: Path) -> None:
    model, diagnostics = _resolved_with_errors(
        tmp_path,
        "type Alias = optional<Missing>;\n"
        "type Loop = optional<Loop>;\n"
        "type Holder = record { a : Alias = {}; b : Loop = {}; };\n",
    )
    assert diagnostics.has_errors  # the unknown name, and `{}` fitting no value of `Loop`
    holder = model.typedefs["Holder"].type
    assert isinstance(holder, m.Record)
    for field in holder.fields:
        assert hints.default_of(model, field) == hints.Default("dict")
