"""`idlc.nodes.node` behaves as `@dataclass(frozen=True, slots=True)` did for the syntax tree
and the model: construction, equality, hashing, repr, immutability, pattern matching,
copying and pickling; `@node(frozen=False)` as `@dataclass(slots=True)` did for the code
generator's view models."""

from __future__ import annotations

import copy
import dataclasses
import keyword
import pickle
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.codegen import views
from idlc.nodes import ByNode, FrozenInstanceError, NodeSet, field, fields_of, is_node, node
from idlc.semantics import model
from idlc.syntax import ast


@node
class Pair:
    """Two values, the second optional."""

    left: object
    right: object = None

    @property
    def both(self) -> tuple[object, object]:
        return (self.left, self.right)


@dataclasses.dataclass(frozen=True, slots=True)
class PairDataclass:
    left: object
    right: object = None


@node
class Other:
    left: object
    right: object = None


@node
class One:
    value: object


@dataclasses.dataclass(frozen=True, slots=True)
class OneDataclass:
    value: object


def test_one_field_compares_as_a_dataclass_does() -> None:
    nan = float("nan")
    for value in (nan, 1, None, (nan,)):
        assert (One(value) == One(value)) == (OneDataclass(value) == OneDataclass(value))
    assert One(nan) == One(nan) and One(1) != One(2)
    assert pickle.loads(pickle.dumps(One(3))) == One(3) and copy.copy(One(3)) == One(3)


def test_what_a_dataclass_would_do_differently_is_refused() -> None:
    with pytest.raises(TypeError, match="derive"):

        @node
        class Derived(Other):  # a dataclass would inherit `left` and `right`
            extra: object = None

    with pytest.raises(TypeError, match="__post_init__"):

        @node(frozen=False)
        class WithPostInit:
            value: object = None

            def __post_init__(self) -> None:
                self.value = 1

    with pytest.raises(TypeError, match="class variables"):

        @node
        class WithClassVar:
            kind: typing.ClassVar[str] = "x"
            value: object = None


values = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.tuples(st.integers()))


@settings(max_examples=200, deadline=None)
@given(values, values, values, values)
def test_equality_hash_and_repr_are_the_dataclass_ones(
    a: object, b: object, c: object, d: object
) -> None:
    ours, theirs = Pair(a, b), PairDataclass(a, b)
    other_ours, other_theirs = Pair(c, right=d), PairDataclass(c, right=d)
    assert (ours == other_ours) == (theirs == other_theirs)
    assert (ours != other_ours) == (theirs != other_theirs)
    if ours == other_ours:
        assert hash(ours) == hash(other_ours)
    assert repr(ours) == repr(theirs).replace("PairDataclass", "Pair")
    assert ours.both == (a, b)


def test_another_class_with_the_same_fields_is_not_equal() -> None:
    assert Pair(1, 2) != Other(1, 2)
    assert Pair(1, 2).__eq__(Other(1, 2)) is NotImplemented


def test_fields_defaults_keywords_and_errors() -> None:
    assert fields_of(Pair) == ("left", "right") == Pair.__match_args__
    assert Pair(1).right is None
    assert Pair(right=2, left=1) == Pair(1, 2)
    with pytest.raises(TypeError):
        Pair()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Pair(1, 2, 3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Pair(1, wrong=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="without a default"):

        @node
        class Broken:
            first: int = 0
            second: int


def test_nodes_are_frozen_and_slotted() -> None:
    pair = Pair(1, 2)
    with pytest.raises(FrozenInstanceError):
        pair.left = 3  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del pair.left  # type: ignore[misc]
    with pytest.raises(AttributeError):
        pair.extra = 1  # type: ignore[attr-defined]
    assert not hasattr(pair, "__dict__")
    assert issubclass(FrozenInstanceError, AttributeError)


def test_match_copy_and_pickle() -> None:
    pair = Pair(1, (2, 3))
    match pair:
        case Pair(1, (2, right)):
            assert right == 3
        case _:
            raise AssertionError("positional patterns follow the fields")
    assert copy.copy(pair) == pair
    assert copy.deepcopy(pair) == pair
    restored = pickle.loads(pickle.dumps(model.Primitive(model.PrimitiveKind.BOOL, None)))  # type: ignore[arg-type]
    assert restored == model.Primitive(model.PrimitiveKind.BOOL, None)  # type: ignore[arg-type]


def test_the_tree_and_the_model_are_made_of_nodes() -> None:
    for module in (ast, model):
        classes = [
            value
            for value in vars(module).values()
            if isinstance(value, type) and value.__module__ == module.__name__
        ]
        made = [cls for cls in classes if hasattr(cls, "__node_fields__")]
        assert len(made) > 20, module.__name__
        assert not any(dataclasses.is_dataclass(cls) for cls in classes)
    assert is_node(ast.Name("x", None))  # type: ignore[arg-type]
    assert not is_node("x")


@node(frozen=False)
class Bag:
    name: object
    items: list[object] = field(default_factory=list)
    extra: object = None


@dataclasses.dataclass(slots=True)
class BagDataclass:
    name: object
    items: list[object] = dataclasses.field(default_factory=list)
    extra: object = None


@settings(max_examples=100, deadline=None)
@given(values, values, values, values)
def test_a_mutable_node_is_the_dataclass_one(a: object, b: object, c: object, d: object) -> None:
    ours, theirs = Bag(a, [b]), BagDataclass(a, [b])
    other_ours, other_theirs = Bag(c, extra=d), BagDataclass(c, extra=d)
    assert (ours == other_ours) == (theirs == other_theirs)
    assert repr(ours) == repr(theirs).replace("BagDataclass", "Bag")
    assert repr(other_ours) == repr(other_theirs).replace("BagDataclass", "Bag")
    ours.extra, theirs.extra = c, c  # assignment is allowed
    assert repr(ours) == repr(theirs).replace("BagDataclass", "Bag")


def test_a_mutable_nodes_factory_default_is_new_for_each_object() -> None:
    first, second = Bag(1), Bag(2)
    first.items.append("x")
    assert second.items == [] and first.items == ["x"]
    given: list[object] = []
    assert Bag(3, given).items is given
    assert Bag(4, items=None).items is None  # given, even if falsy or None: no factory call
    assert Bag.__hash__ is None and BagDataclass.__hash__ is None  # unhashable, as a dataclass
    with pytest.raises(TypeError):
        hash(Bag(1))
    with pytest.raises(AttributeError):
        Bag(1).unknown = 2  # type: ignore[attr-defined]
    assert copy.deepcopy(Bag(1, [2])) == Bag(1, [2])
    assert pickle.loads(pickle.dumps(Bag(1, [2], 3))) == Bag(1, [2], 3)
    assert fields_of(Bag) == ("name", "items", "extra") == Bag.__match_args__


def test_the_view_models_are_made_of_nodes() -> None:
    classes = [
        value
        for value in vars(views).values()
        if isinstance(value, type) and value.__module__ == views.__name__
    ]
    assert len([cls for cls in classes if hasattr(cls, "__node_fields__")]) > 10
    assert not any(dataclasses.is_dataclass(cls) for cls in classes)


# -- ByNode and NodeSet: keyed by identity ---------------------------------------------------


@node
class _Leaf:
    value: int


def test_by_node_tells_equal_nodes_apart_and_holds_its_keys() -> None:
    first, twin = _Leaf(1), _Leaf(1)
    assert first == twin and first is not twin
    facts: ByNode[_Leaf, str] = ByNode()
    facts[first] = "first"
    assert twin not in facts and facts.get(twin) is None and facts.get(twin, "none") == "none"
    facts[twin] = "twin"
    assert (facts[first], facts[twin], len(facts)) == ("first", "twin", 2)
    # A key taken from a node nobody else holds stays valid: the map holds the node, so no
    # later node can be given its id.
    facts[_Leaf(2)] = "held"
    later = [_Leaf(2) for _ in range(1000)]
    assert all(leaf not in facts for leaf in later)
    assert sorted(facts.values()) == ["first", "held", "twin"]
    assert [key.value for key in facts] == [1, 1, 2]
    with pytest.raises(KeyError):
        facts[_Leaf(1)]


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.booleans()), max_size=40))
def test_by_node_and_node_set_behave_as_lists_searched_with_is(
    steps: list[tuple[int, int, bool]],
) -> None:
    """Drawn writes and reads over a pool of equal-valued, distinct nodes, against the
    obvious reference: a list of (node, value) pairs searched by `is`."""
    pool = [_Leaf(index % 2) for index in range(6)]
    facts: ByNode[_Leaf, int] = ByNode()
    members: NodeSet[_Leaf] = NodeSet(pool[:1])
    reference: list[tuple[_Leaf, int]] = []
    reference_members = [pool[0]]
    for index, value, write in steps:
        leaf = pool[index]
        if write:
            reference = [(k, v) for k, v in reference if k is not leaf] + [(leaf, value)]
            reference_members += [] if any(m is leaf for m in reference_members) else [leaf]
            facts[leaf] = value
            members.add(leaf)
        expected = next((v for k, v in reference if k is leaf), None)
        assert facts.get(leaf) == expected
        assert (leaf in facts) == (expected is not None)
        assert (leaf in members) == any(m is leaf for m in reference_members)
    assert len(facts) == len(reference) and len(members) == len(reference_members)
    assert sorted(id(k) for k in facts) == sorted(id(k) for k, _ in reference)
    assert sorted(id(m) for m in members) == sorted(id(m) for m in reference_members)


# -- one compiled `__init__` per shape of fields ------------------------------------------

_FIELD_NAMES = st.from_regex(r"\A[a-z][a-z0-9_]{0,6}\Z").filter(
    lambda name: name != "self" and not keyword.iskeyword(name)
)
#: A class's fields: plain ones first, then those with a default or a factory.
_SHAPES = st.tuples(st.integers(0, 3), st.lists(st.sampled_from("df"), max_size=3)).map(
    lambda parts: "p" * parts[0] + "".join(parts[1])
)


@settings(max_examples=150, deadline=None)
@given(
    shapes=st.lists(_SHAPES, min_size=1, max_size=4),
    data=st.data(),
)
def test_classes_sharing_a_shape_each_get_their_own_names_defaults_and_factories(
    shapes: list[str], data: st.DataObject
) -> None:
    # Classes of one shape share a compiled `__init__` whose parameters each renames
    # (idlc.nodes._INIT_CODE): each must still behave as the dataclass of its own fields
    # (keywords by its names, its defaults, a new factory value per object, its errors).
    for index, shape in enumerate(shapes * 2):  # every shape twice: the second one shared
        names = data.draw(
            st.lists(_FIELD_NAMES, min_size=len(shape), max_size=len(shape), unique=True)
        )
        namespace: dict[str, object] = {"__annotations__": {name: "object" for name in names}}
        for name, kind in zip(names, shape, strict=True):
            if kind == "d":
                namespace[name] = f"default of {name} in {index}"
            elif kind == "f":
                namespace[name] = field(default_factory=list)
        made = node(type(f"Made{index}", (), dict(namespace)))
        for name, kind in zip(names, shape, strict=True):
            if kind == "f":
                namespace[name] = dataclasses.field(default_factory=list)
        expected = dataclasses.dataclass(frozen=True)(type(f"Made{index}", (), namespace))
        values = [f"{name} given" for name in names]
        required = shape.count("p")
        for given_count in range(required, len(names) + 1):
            positional = values[:given_count]
            by_keyword = dict(zip(names[:given_count], positional, strict=True))
            for args, kwargs in ((positional, {}), ([], by_keyword)):
                got, want = made(*args, **kwargs), expected(*args, **kwargs)
                assert [getattr(got, name) for name in names] == [
                    getattr(want, name) for name in names
                ]
        if required:
            with pytest.raises(TypeError, match=names[required - 1]):
                made(*values[: required - 1])
        if "f" in shape:
            first, second = made(*values[:required]), made(*values[:required])
            factory_made = names[shape.index("f")]
            assert getattr(first, factory_made) == []
            assert getattr(first, factory_made) is not getattr(second, factory_made)


def test_a_field_named_self_is_refused() -> None:
    with pytest.raises(TypeError, match="self"):
        node(type("Selfish", (), {"__annotations__": {"self": "object"}}))
