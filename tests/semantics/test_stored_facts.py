"""The node facts the arena stores once (idlc/semantics/cases.py, idlc/semantics/defaults.py).

Each variant case's records, each `unknown:` case's records and fields, and what each field
default stands for (with its problem) used to be worked out on every ask, by walks kept
here as they were. The stored facts are checked against those walks over random typedefs
(chains and cycles of names, cycles through `optional<…>` and unions, names no typedef
has: models with errors), over the corpus, and for both views of a file with unstable
items (each model stores its own, keyed by its own nodes).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.pipeline import compile_files
from idlc.semantics import defaults, queries
from idlc.semantics import model as m
from idlc.semantics.facts import Typedefs
from idlc.semantics.resolver import resolve_unsorted
from idlc.source import SourceFile
from idlc.syntax.parser import parse
from idlc.targets.python import hints
from tests.conftest import REPO

_SPAN = SourceFile("f.idl", "x").span(0, 1)
_NAMES = ["A", "B", "C", "D", "E"]
_PRIMITIVES = [
    m.PrimitiveKind.STRING,
    m.PrimitiveKind.INT8,
    m.PrimitiveKind.UINT64,
    m.PrimitiveKind.FLOAT64,
    m.PrimitiveKind.BYTES,
    m.PrimitiveKind.JSON,
    m.PrimitiveKind.UNIT,
    m.PrimitiveKind.BOOL,
]
#: Literals of every kind, some fitting some types (`"eA=="` is base64, `300` no `int8`).
_LITERALS: list[tuple[bool | int | float | str | tuple[()] | m.EmptyObject, str]] = [
    (True, "true"),
    (7, "7"),
    (300, "300"),
    (2.0, "2.0"),
    (1.5, "1.5"),
    ("x", '"x"'),
    ("eA==", '"eA=="'),
    ((), "[]"),
    (m.EMPTY_OBJECT, "{}"),
    ((), "[]"),  # (the empty ones again: most of what a default stands for is theirs)
    (m.EMPTY_OBJECT, "{}"),
    (m.EMPTY_OBJECT, "{}"),
]


def _literal() -> st.SearchStrategy[m.Literal | None]:
    return st.one_of(
        st.none(),
        st.sampled_from(_LITERALS).map(lambda item: m.Literal(item[0], item[1], _SPAN)),
    )


def _record(inner: st.SearchStrategy[m.Type]) -> st.SearchStrategy[m.Record]:
    field_type = st.one_of(inner, st.sampled_from(_NAMES).map(_ref))
    field = st.tuples(st.sampled_from(["a", "b", "kind"]), field_type, _literal()).map(
        lambda t: m.Field(t[0], t[1], t[2], None, _SPAN)
    )
    return st.tuples(st.lists(field, max_size=3), st.booleans()).map(
        lambda t: m.Record(tuple(t[0]), _SPAN, t[1])
    )


def _variant(inner: st.SearchStrategy[m.Type], names: list[str]) -> st.SearchStrategy[m.Variant]:
    """A variant with every kind of case (a record, a name, a union, `unit`, `default:`),
    shared fields and `unknown:`."""
    case_type = st.one_of(inner, _record(inner), st.sampled_from(names).map(_ref))
    case = st.tuples(st.sampled_from(["x", "y", None]), case_type).map(
        lambda t: m.Case(t[0], t[1], None, _SPAN)
    )
    unknown = st.one_of(
        st.none(), case_type.map(lambda t: m.Case(None, t, None, _SPAN, unknown=True))
    )
    return st.tuples(
        st.booleans(), st.lists(case, max_size=3), st.one_of(st.none(), _record(inner)), unknown
    ).map(lambda t: m.Variant(t[0], "kind", tuple(t[1]), _SPAN, t[2], t[3]))


def _ref(name: str) -> m.TypeRef:
    return m.TypeRef(name, _SPAN)


def _types(names: list[str]) -> st.SearchStrategy[m.Type]:
    """Types whose records have fields with defaults, and variants of every kind of case."""
    leaves: st.SearchStrategy[m.Type] = st.one_of(
        st.sampled_from(_PRIMITIVES).map(lambda kind: m.Primitive(kind, _SPAN)),
        st.sampled_from(names).map(_ref),
        st.booleans().map(lambda open_: m.Record((), _SPAN, open_)),
        st.booleans().map(
            lambda open_: m.Enum(open_, (m.EnumValue("x", None, _SPAN, '"x"'),), _SPAN)
        ),
    )

    def composite(inner: st.SearchStrategy[m.Type]) -> st.SearchStrategy[m.Type]:
        return st.one_of(
            st.tuples(inner, st.booleans()).map(lambda t: m.Optional(t[0], _SPAN, t[1])),
            inner.map(lambda t: m.List(t, _SPAN)),
            inner.map(lambda t: m.Map(t, _SPAN)),
            st.lists(inner, max_size=3).map(lambda alts: m.Union_(tuple(alts), _SPAN)),
            _record(inner),
            _variant(inner, names),
        )

    return st.recursive(leaves, composite, max_leaves=8)


def _typedefs(names: list[str], referable: list[str]) -> st.SearchStrategy[dict[str, m.Typedef]]:
    """Typedefs of `names`: aliases of another name (chains and cycles of them), records,
    variants, unions of names (so that cases name variants and unions of records often),
    other types; referring to `referable` (some maybe defined nowhere)."""
    inner = _types(referable)
    alternative = st.one_of(
        st.sampled_from(referable).map(_ref),
        _record(inner),
        inner.map(lambda t: m.Map(t, _SPAN)),
        inner.map(lambda t: m.List(t, _SPAN)),
    )
    union = st.lists(alternative, min_size=1, max_size=3).map(
        lambda alts: m.Union_(tuple(alts), _SPAN)
    )
    type_ = st.one_of(
        st.sampled_from(referable).map(_ref),
        _record(inner),
        _variant(inner, referable),
        union,
        inner,
    )
    return st.fixed_dictionaries(
        {name: type_.map(lambda t, n=name: m.Typedef(n, t, None, _SPAN)) for name in names}
    )


def _scopes(types: list[m.Type]) -> list[m.Record | m.Enum | m.Variant]:
    """Every record, enum and variant written inside `types` (a variant's shared record
    too), each once, inner ones first: what the resolver lists as `Model.scopes`."""
    found: dict[int, m.Record | m.Enum | m.Variant] = {}

    def visit(type_: m.Type) -> None:
        for child in queries.children(type_):
            visit(child)
        if isinstance(type_, m.Variant) and type_.shared is not None:
            visit(type_.shared)
        if isinstance(type_, (m.Record, m.Enum, m.Variant)):
            found.setdefault(id(type_), type_)

    for type_ in types:
        visit(type_)
    return list(found.values())


# -- the walks the stored facts replaced -----------------------------------------------------


def _old_record_alternatives(
    type_: m.Type | None, typedefs: Mapping[str, m.Typedef]
) -> list[m.Record] | None:
    if not isinstance(type_, m.Union_) or not type_.alternatives:
        return None
    records = [queries.follow_typedefs(alternative, typedefs) for alternative in type_.alternatives]
    if all(isinstance(record, m.Record) for record in records):
        return records  # type: ignore[return-value]
    return None


def _old_unknown_case_records(
    variant: m.Variant, typedefs: Mapping[str, m.Typedef]
) -> list[m.Record] | None:
    if variant.unknown is None:
        return None
    resolved = queries.follow_typedefs(variant.unknown.type, typedefs)
    if isinstance(resolved, m.Record):
        return [resolved]
    return _old_record_alternatives(resolved, typedefs)


def _old_unknown_case_fields(
    variant: m.Variant, typedefs: Mapping[str, m.Typedef]
) -> tuple[m.Field, ...]:
    key = queries.type_key
    records = _old_unknown_case_records(variant, typedefs)
    if not records:
        return ()
    first, *others = records
    return tuple(
        field
        for field in first.fields
        if all(
            any(o.name == field.name and key(o.type) == key(field.type) for o in r.fields)
            for r in others
        )
    )


def _old_case_records(
    case: m.Case, typedefs: Mapping[str, m.Typedef], within: tuple[m.Variant, ...] = ()
) -> list[m.Record]:
    resolved = queries.follow_typedefs(case.type, typedefs)
    if case.tag is not None:
        records = _old_record_alternatives(resolved, typedefs)
        if records is not None:
            return records
        if isinstance(resolved, m.Variant) and isinstance(case.type, m.TypeRef):
            if any(met is resolved for met in within):
                return []  # a variant inside itself (E0119)
            inner = [resolved.shared] if resolved.shared is not None else []
            inner += _old_unknown_case_records(resolved, typedefs) or []
            for inner_case in resolved.cases:
                record = queries.follow_typedefs(inner_case.type, typedefs)
                if isinstance(record, m.Record):
                    inner.append(record)
                elif isinstance(record, m.Variant):  # a variant again, at any depth (G18)
                    inner += _old_case_records(inner_case, typedefs, (*within, resolved))
            return inner
    return [resolved] if isinstance(resolved, m.Record) else []


# The checks' default walk, following names per literal with a `seen` set of its own (its
# leaves, `_primitive_default_problem` and `_empty_record_problem`, are unchanged and taken
# from where they are now).
def _old_default_problem(
    literal: m.Literal,
    type_: m.Type,
    typedefs: Mapping[str, m.Typedef],
    _seen: frozenset[int] = frozenset(),
) -> tuple[str, str | None] | None:
    arena = queries.arena(typedefs)
    kind = defaults._literal_kind(literal)
    resolved = queries.follow_typedefs(type_, typedefs)
    if resolved is None:
        return None
    if id(resolved) in _seen:
        return f"{kind} fits no value of this type", None
    value = literal.value
    match resolved:
        case m.Optional():
            return _old_default_problem(literal, resolved.inner, typedefs, _seen | {id(resolved)})
        case m.Primitive():
            return defaults._primitive_default_problem(literal, resolved.kind)
        case m.Enum():
            if not isinstance(value, str):
                return f"{kind} is not a value of the enum", "write one of its values"
            if resolved.open or any(item.value == value for item in resolved.values):
                return None
            listed = ", ".join(f'"{item.value}"' for item in resolved.values[:6])
            more = ", …" if len(resolved.values) > 6 else ""
            return f"{literal.raw} is not a value of the enum", f"its values are {listed}{more}"
        case m.List():
            if value == ():
                return None
            return f"{kind} is not a list", "the only list default is `[]`"
        case m.Map():
            if value == () or value is m.EMPTY_OBJECT:
                return None
            return f"{kind} is not a map", "the only map default is `{}`"
        case m.Record():
            if value is m.EMPTY_OBJECT:
                return defaults._empty_record_problem(resolved, arena)
            return f"{kind} is not a record", "the only record default is `{}`"
        case m.Union_():
            for alternative in resolved.alternatives:
                inner = _old_default_problem(literal, alternative, typedefs, _seen | {id(resolved)})
                if inner is None:
                    return None
            return f"{kind} fits no alternative of the union", None
        case _:
            return (
                f"a field holding {queries.describe_kind(resolved)} cannot have a default",
                "defaults are for booleans, numbers, strings, enums, lists, maps and records; "
                "remove it",
            )


def _old_check_problem(
    field: m.Field, typedefs: Mapping[str, m.Typedef]
) -> tuple[str, str | None] | None:
    assert field.default is not None
    problem = _old_default_problem(field.default, field.type, typedefs)
    if queries.is_tristate(field.type, typedefs):
        problem = (
            "a field that tells absent from `null` cannot have a default: absent is a state "
            "of its own",
            "remove the default, or write `nullable<…>` with it",
        )
    return problem


def _old_without_optional(model: m.Model, type_: m.Type) -> m.Type:
    present, _ = queries.present_chain(type_, model.typedefs)
    return type_ if present is None else present


def _old_takes_empty_list(type_: m.Type) -> bool:
    if isinstance(type_, (m.List, m.Map, m.Union_)):
        return True
    return isinstance(type_, m.Primitive) and type_.kind is m.PrimitiveKind.JSON


def _old_empty_container(model: m.Model, type_: m.Type) -> str:
    resolved = _old_without_optional(model, type_)
    if isinstance(resolved, m.Map):
        return "dict"
    if isinstance(resolved, m.Union_):
        for alternative in resolved.alternatives:
            if _old_takes_empty_list(_old_without_optional(model, alternative)):
                return _old_empty_container(model, alternative)
    return "list"


def _old_empty_object_record(model: m.Model, type_: m.Type, literal: m.Literal) -> m.Type | None:
    present, name = queries.present_chain(type_, model.typedefs)
    if isinstance(present, m.Record):
        if name is not None and model.typedefs[name].type is present:
            return m.TypeRef(name, type_.span)
        return present
    if isinstance(present, m.Union_):
        for alternative in present.alternatives:
            if _old_default_problem(literal, alternative, model.typedefs) is None:
                return _old_empty_object_record(model, alternative, literal)
    return None


def _old_default_of(model: m.Model, type_: m.Type, literal: m.Literal) -> hints.Default:
    value = literal.value
    if value == ():
        return hints.Default(_old_empty_container(model, type_))  # type: ignore[arg-type]
    if value is m.EMPTY_OBJECT:
        record = _old_empty_object_record(model, type_, literal)
        return hints.Default("dict") if record is None else hints.Default("record", record)
    resolved = _old_without_optional(model, type_)
    if isinstance(resolved, m.Enum) and isinstance(value, str):
        declared = any(enum_value.value == value for enum_value in resolved.values)
        return hints.Default("member" if declared else "value", queries.strip_optional(type_))
    if isinstance(value, bool):
        return hints.Default("plain")
    if (
        isinstance(value, int)
        and isinstance(resolved, m.Primitive)
        and resolved.kind is m.PrimitiveKind.FLOAT64
    ):
        return hints.Default("float")
    if (
        isinstance(value, str)
        and isinstance(resolved, m.Primitive)
        and resolved.kind is m.PrimitiveKind.BYTES
    ):
        return hints.Default("bytes")
    return hints.Default("plain")


# -- the stored facts agree with them ----------------------------------------------------------


def _fields(scopes: list[m.Record | m.Enum | m.Variant]) -> Iterator[m.Field]:
    for scope in scopes:
        if isinstance(scope, m.Record):
            yield from (field for field in scope.fields if field.default is not None)


def _old_or_endless(walk: object, *arguments: object) -> object:
    """What an old walk answers, or `_ENDLESS` where it never ended (a union holding
    itself, through names: the models where the Python target never asked it)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(400)  # an endless walk fails fast
    try:
        return walk(*arguments)  # type: ignore[operator]
    except RecursionError:
        return _ENDLESS
    finally:
        sys.setrecursionlimit(limit)


_ENDLESS = object()


def assert_stored_as_asked(model: m.Model) -> int:
    """Every variant case's records, `unknown:` case's records and fields, and default's
    problem and Python form, as the old walks give them; how many facts were compared."""
    typedefs = model.typedefs
    compared = 0
    for scope in model.scopes:
        if not isinstance(scope, m.Variant):
            continue
        assert (scope in typedefs.unknown_cases) == (scope.unknown is not None)
        old_records = _old_unknown_case_records(scope, typedefs)
        stored = queries.unknown_case_records(scope, typedefs)
        assert stored == (None if old_records is None else tuple(old_records))
        assert queries.unknown_case_fields(scope, typedefs) == _old_unknown_case_fields(
            scope, typedefs
        )
        for case in scope.cases:
            assert case in typedefs.case_records
            assert queries.case_records(case, typedefs) == tuple(_old_case_records(case, typedefs))
            compared += 1
    for field in _fields(list(model.scopes)):
        assert field in typedefs.defaults
        facts = queries.default_facts(field, typedefs)
        assert facts is not None and field.default is not None
        assert facts.problem == _old_check_problem(field, typedefs)
        old = _old_or_endless(_old_default_of, model, field.type, field.default)
        if old is not _ENDLESS:
            assert hints.default_of(model, field) == old
        compared += 1
    return compared


@settings(max_examples=400, deadline=None)
@given(_typedefs(_NAMES, _NAMES + ["Missing"]), _types(_NAMES + ["Missing"]))
def test_stored_facts_are_the_old_walks(typedefs: dict[str, m.Typedef], extra: m.Type) -> None:
    """Random typedefs, cycles and dangling names included: every fact is stored, nothing
    raises, and each is what the walk it replaced answered."""
    scopes = _scopes([*(typedef.type for typedef in typedefs.values()), extra])
    model = m.Model((), {}, Typedefs(typedefs, scopes), {}, {}, tuple(scopes))
    assert_stored_as_asked(model)


def _resolved(path: Path) -> m.Model | None:
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None  # (the corpus's unreadable file)
    source = SourceFile(str(path), text)
    tree = parse(source, Diagnostics())
    if tree is None:
        return None
    return resolve_unsorted([tree], Diagnostics())


_CORPUS = sorted((REPO / "tests" / "corpus").rglob("*.idl")) + sorted((REPO / "idl").glob("*.idl"))


def test_the_corpus_stores_what_the_old_walks_asked() -> None:
    """The corpus (models with errors among them) and the checked-in schemas."""
    compared = 0
    for path in _CORPUS:
        resolved = _resolved(path)
        if resolved is not None:
            compared += assert_stored_as_asked(resolved)
    assert compared > 100  # the corpus has cases and defaults to compare


_VIEWS = """\
type Base = record { a : string = "x"; };
type Event = open variant tag "kind" fields { id : string; } {
  "paid" : record { amount : float64 = 1; };
  @unstable(feature = late)
  "late" : record { why : optional<string>; };
  unknown : union { Base; record { a : string; b : int32; }; };
};
@unstable(feature = late)
type Later = record { items : list<string> = []; base : Base = {}; };
"""


def test_each_view_stores_its_own_facts_keyed_by_its_own_nodes(tmp_path: Path) -> None:
    """The stable view of a file with unstable items is resolved again, to new nodes: its
    model's arena stores the facts of those, made the same way as the whole model's."""
    path = tmp_path / "views.idl"
    path.write_text(_VIEWS, encoding="utf-8")
    compilation = compile_files([path])
    whole, stable = compilation.model, compilation.stable
    assert whole is not None and stable is not None, list(compilation.diagnostics)
    assert whole.typedefs is not stable.typedefs
    for resolved, other in ((whole, stable), (stable, whole)):
        assert assert_stored_as_asked(resolved) > 0
        own = {id(node) for node in resolved.scopes}
        for case in resolved.typedefs.case_records:
            assert case not in other.typedefs.case_records
        for variant in resolved.typedefs.unknown_cases:
            assert id(variant) in own
        for field in resolved.typedefs.defaults:
            assert field not in other.typedefs.defaults
    event = stable.typedefs["Event"].type
    assert isinstance(event, m.Variant) and [case.tag for case in event.cases] == ["paid"]
    fields = queries.unknown_case_fields(event, stable.typedefs)
    assert [field.name for field in fields] == ["a"]
    assert len(whole.typedefs.defaults) == 4 and len(stable.typedefs.defaults) == 2


def test_a_node_not_of_the_model_is_worked_out_when_asked() -> None:
    """A test's variant or field, not among the arena's scopes: asked, not stored."""
    string = m.Optional(m.Primitive(m.PrimitiveKind.STRING, _SPAN), _SPAN)
    record = m.Record((m.Field("a", string, None, None, _SPAN),), _SPAN)
    typedefs = {"R": m.Typedef("R", record, None, _SPAN)}
    case = m.Case("x", m.TypeRef("R", _SPAN), None, _SPAN)
    unknown = m.Case(None, m.TypeRef("R", _SPAN), None, _SPAN, unknown=True)
    variant = m.Variant(True, "kind", (case,), _SPAN, None, unknown)
    assert queries.case_records(case, typedefs) == (record,)
    assert queries.unknown_case_records(variant, typedefs) == (record,)
    assert queries.unknown_case_fields(variant, typedefs) == record.fields
    literal = m.Literal(m.EMPTY_OBJECT, "{}", _SPAN)
    field = m.Field("r", m.TypeRef("R", _SPAN), literal, None, _SPAN)
    facts = queries.default_facts(field, typedefs)
    assert facts == defaults.DefaultFacts("empty-record", m.TypeRef("R", _SPAN), None)
    assert queries.default_facts(record.fields[0], typedefs) is None  # no default


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("type L = optional<L>; type H = record { a : L = 1; };", "a number fits no value"),
        (
            "type U = union { int32; U; }; type H = record { a : U = true; };",
            "a boolean fits no alternative of the union",
        ),
        ("type A = B; type B = A; type H = record { a : A = 1; };", None),
        ("type H = record { a : optional<Missing> = {}; };", None),
    ],
)
def test_a_default_through_a_cycle_or_a_dangling_name(
    tmp_path: Path, text: str, problem: str | None
) -> None:
    """Following names for a default meets cycles (through `optional<…>`, unions, aliases)
    and names no typedef has in a model with errors: stored all the same, no walk without
    end, and a problem only where the default fits no value."""
    path = tmp_path / "f.idl"
    path.write_text(text, encoding="utf-8")
    resolved = _resolved(path)
    assert resolved is not None
    holder = resolved.typedefs["H"].type
    assert isinstance(holder, m.Record)
    facts = queries.default_facts(holder.fields[0], resolved.typedefs)
    assert facts is not None
    if problem is None:
        assert facts.problem is None
    else:
        assert facts.problem is not None and facts.problem[0].startswith(problem)


def test_in_a_union_the_first_alternative_taking_the_default_decides(tmp_path: Path) -> None:
    """`[]` and `{}` build what the first alternative that takes them is, as decoding
    tries them in order: stored once, as the walk each ask made found it."""
    path = tmp_path / "f.idl"
    path.write_text(
        "type R = record { a : optional<string>; };\n"
        "type M = union { string; map<string, int32>; list<string>; };\n"
        "type H = record {\n"
        "  m : M = [];\n"
        "  r : union { string; map<string, int32>; } = {};\n"
        "  s : union { string; R; } = {};\n"
        "  l : optional<union { bool; list<string>; }> = [];\n"
        "};\n",
        encoding="utf-8",
    )
    resolved = _resolved(path)
    assert resolved is not None
    holder = resolved.typedefs["H"].type
    assert isinstance(holder, m.Record)
    stands_for = [queries.default_facts(field, resolved.typedefs) for field in holder.fields]
    assert [facts.stands_for if facts else None for facts in stands_for] == [
        "empty-map",
        "empty-map",
        "empty-record",
        "empty-list",
    ]
    union = holder.fields[2].type
    assert isinstance(union, m.Union_)
    assert [hints.default_of(resolved, field) for field in holder.fields] == [
        hints.Default("dict"),
        hints.Default("dict"),
        hints.Default("record", m.TypeRef("R", union.alternatives[1].span)),
        hints.Default("list"),
    ]
    assert assert_stored_as_asked(resolved) == 4
