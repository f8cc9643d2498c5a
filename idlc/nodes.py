"""`@node`: the frozen, slotted value classes of the syntax tree and the model, made cheaply.

`@dataclass(frozen=True, slots=True)` costs 0.5–0.7 ms per class on Python 3.11 (six
methods generated as source and compiled one by one, the class built twice, a signature
computed for its docstring), and `idlc check` defines about 55 such classes before it
reads a byte: a third of its start-up (docs/benchmarks.md, "Front end"). `@node` makes the
same kind of class — fields from the annotations, in order, defaults allowed; `__init__`
by position or keyword; `__eq__` and `__hash__` over the fields, for the same class only;
the dataclass `__repr__`; assignment refused with an AttributeError (`FrozenInstanceError`); `__match_args__`;
pickling and copying — compiling only `__init__`, whose speed matters (the parser and the
resolver make hundreds of thousands of nodes): it stores each field through its slot's
descriptor, which is quicker than the `object.__setattr__` a frozen dataclass goes through.
The other methods are shared closures. Type checkers read it as a frozen dataclass
(`dataclass_transform`). `fields_of` lists a node class's fields.

`ByNode` and `NodeSet` are a mapping and a set keyed by a node's identity, for the facts a
later stage works out about particular nodes (the model's arena, the Python plan).

`@node(frozen=False)` makes the mutable kind, as `@dataclass(slots=True)` does (assignment
allowed, no hash), for the code generator's view models (`idlc.codegen.views`), which
`idlc generate` defines at start-up too; `field(default_factory=…)` gives a field a new
default value for each object, as `dataclasses.field` does.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter
from types import CodeType, FunctionType
from typing import Any, Generic, TypeVar, dataclass_transform, overload

__all__ = [
    "ByNode",
    "FrozenInstanceError",
    "NodeSet",
    "node",
    "field",
    "fields_of",
    "is_node",
    "replace",
]

_Class = TypeVar("_Class", bound=type)
_Value = TypeVar("_Value")
_Key = TypeVar("_Key")
_Default = TypeVar("_Default")


class _Factory:
    """The default of a field made anew for each object (`field(default_factory=…)`)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], _Value]) -> _Value:
    """A field whose default is `default_factory()`, called for each object made without
    it (`dataclasses.field(default_factory=…)`)."""
    return _Factory(default_factory)  # type: ignore[return-value]


#: What a factory-made field's parameter defaults to: "not given".
_NOT_GIVEN: Any = object()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a node. Its own class, not `dataclasses`' (importing that
    module loads `inspect`, ~10 ms of `idlc check`'s start-up); an AttributeError all the
    same, as the dataclass one is."""


#: Where a node class keeps its field names (also its `__match_args__`).
_FIELDS = "__node_fields__"


def fields_of(cls_or_node: Any) -> tuple[str, ...]:
    """The field names of a node class (or of a node), in order."""
    fields: tuple[str, ...] = getattr(cls_or_node, _FIELDS)
    return fields


def is_node(value: Any) -> bool:
    """Whether `value` is a node (an instance of a class made by `@node`)."""
    return hasattr(type(value), _FIELDS)


_Node = TypeVar("_Node")


def replace(value: _Node, /, **changes: Any) -> _Node:
    """A copy of node `value` with the fields named in `changes` changed
    (`dataclasses.replace`); an unknown field name is a TypeError, as there."""
    cls = type(value)
    fields = {name: getattr(value, name) for name in fields_of(cls)}
    unknown = changes.keys() - fields.keys()
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    fields.update(changes)
    return cls(**fields)


@overload
def node(cls: _Class, /) -> _Class: ...


@overload
def node(*, frozen: bool = True) -> Callable[[_Class], _Class]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def node(cls: _Class | None = None, /, *, frozen: bool = True) -> Any:
    """Make `cls` a frozen value class with slots (see the module's docstring); with
    `frozen=False`, a mutable one."""
    if cls is None:
        return lambda cls: _make(cls, frozen)
    return _make(cls, frozen)


def _make(cls: _Class, frozen: bool) -> _Class:
    own = cls.__dict__
    if any(hasattr(base, _FIELDS) for base in cls.__mro__[1:]):
        # A dataclass would inherit the base's fields; nothing here needs that, so it is
        # refused rather than done differently.
        raise TypeError(f"{cls.__name__}: a node class cannot derive from another node class")
    if "__post_init__" in own:  # a dataclass would call it; `__init__` here does not
        raise TypeError(f"{cls.__name__}: __post_init__ is not supported in nodes")
    annotations = own.get("__annotations__", {})
    for name, annotation in annotations.items():
        if "ClassVar" in str(annotation):
            raise TypeError(f"{cls.__name__}.{name}: class variables are not supported in nodes")
    names = tuple(annotations)
    defaults = {name: own[name] for name in names if name in own}
    seen_default = False
    for name in names:
        if name in defaults:
            seen_default = True
        elif seen_default:
            raise TypeError(f"{cls.__name__}: field {name!r} without a default after one with")
    namespace = {
        key: value
        for key, value in own.items()
        if key not in defaults and key not in ("__dict__", "__weakref__")
    }
    # The fields as a tuple, as a dataclass compares and hashes them (a 1-tuple for one field:
    # `(nan,) == (nan,)` holds for the same object, a bare `nan == nan` does not).
    key: Callable[[Any], tuple[Any, ...]]
    if len(names) == 1:
        key = _single(names[0])
    else:
        key = attrgetter(*names) if names else (lambda _: ())
    namespace.update(
        __slots__=names,
        __match_args__=names,
        __node_fields__=names,
        __eq__=_equality(key),
        __hash__=_hashing(key) if frozen else None,  # as a dataclass: mutable, unhashable
        __repr__=_representation(names),
        __getstate__=_state(key),
        __setstate__=_restore(names),
    )
    if frozen:
        namespace.update(__setattr__=_refuse_assignment, __delattr__=_refuse_deletion)
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    made.__init__ = _initializer(made, names, defaults)  # type: ignore[misc]
    return made


#: The compiled `__init__` of each shape of fields (for each field in order: "p" plain, "d"
#: with a default, "f" made by a factory), its parameters named `p0`, `p1`, …: a class
#: takes the one of its shape with the parameters renamed after its fields and its own
#: setters, defaults and factories. The ~70 node classes a command defines at start-up
#: have ~26 shapes, so most of them compile nothing (docs/benchmarks.md, "Code generation").
_INIT_CODE: dict[tuple[str, ...], CodeType] = {}


def _initializer(cls: type, names: tuple[str, ...], defaults: dict[str, Any]) -> Any:
    if "self" in names:
        raise TypeError(f"{cls.__name__}: a node's field cannot be named 'self'")
    shape = tuple(
        ("f" if isinstance(defaults[name], _Factory) else "d") if name in defaults else "p"
        for name in names
    )
    code = _INIT_CODE.get(shape)
    if code is None:
        code = _INIT_CODE[shape] = _init_code(shape)
    # The function's globals: each field's slot setter (`_s<i>`), factory (`_m<i>`).
    scope: dict[str, Any] = {"__builtins__": builtins, "_NOT_GIVEN": _NOT_GIVEN}
    given_defaults = []
    for index, (name, kind) in enumerate(zip(names, shape, strict=True)):
        scope[f"_s{index}"] = cls.__dict__[name].__set__
        if kind == "f":
            scope[f"_m{index}"] = defaults[name].make
            given_defaults.append(_NOT_GIVEN)
        elif kind == "d":
            given_defaults.append(defaults[name])
    qualname = f"{cls.__qualname__}.__init__"
    # Renaming the parameters is renaming the first locals (the bytecode reads them by
    # index): keywords and error messages use the fields' names.
    renamed = code.replace(co_varnames=("self", *names), co_qualname=qualname)
    init = FunctionType(renamed, scope, "__init__", tuple(given_defaults) or None)
    init.__qualname__ = qualname
    return init


def _init_code(shape: tuple[str, ...]) -> CodeType:
    parameters = []
    lines = []
    for index, kind in enumerate(shape):
        parameter = f"p{index}"
        # (The defaults written here are placeholders: each class gives its own.)
        parameters.append(parameter if kind == "p" else f"{parameter}=None")
        value = f"_m{index}() if {parameter} is _NOT_GIVEN else {parameter}"
        lines.append(f"    _s{index}(self, {value if kind == 'f' else parameter})")
    source = f"def __init__(self, {', '.join(parameters)}):\n" + ("\n".join(lines) or "    pass")
    scope: dict[str, Any] = {}
    exec(source, scope)  # noqa: S102 - the source is made of placeholder names only
    code: CodeType = scope["__init__"].__code__
    return code


def _single(name: str) -> Callable[[Any], tuple[Any]]:
    get = attrgetter(name)

    def key(self: Any) -> tuple[Any]:
        return (get(self),)

    return key


def _equality(key: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    return __eq__


def _hashing(key: Callable[[Any], Any]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


def _representation(names: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({shown})"

    return __repr__


def _refuse_assignment(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_deletion(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _state(key: Callable[[Any], Any]) -> Callable[[Any], list[Any]]:
    def __getstate__(self: Any) -> list[Any]:
        return list(key(self))

    return __getstate__


def _restore(names: tuple[str, ...]) -> Callable[[Any, list[Any]], None]:
    def __setstate__(self: Any, state: list[Any]) -> None:
        cls = type(self)
        for name, value in zip(names, state, strict=True):
            getattr(cls, name).__set__(self, value)

    return __setstate__


class ByNode(Generic[_Key, _Value]):
    """A mapping from nodes, by identity, to what a later stage worked out about them.

    Not a dict keyed by the node itself: equal nodes are not the same definition (two
    stages' copies of one record, the stable view's rebuilt nodes), and hashing a node
    hashes its whole subtree again on every lookup. Not a dict keyed by `id(node)` either:
    such a key outlives the node it was taken from, and a later node may get the same id;
    this map holds each node it is given, so no id of a key is reused while it stands.
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[int, tuple[_Key, _Value]] = {}

    def __setitem__(self, key: _Key, value: _Value) -> None:
        self._entries[id(key)] = (key, value)

    def __getitem__(self, key: _Key) -> _Value:
        return self._entries[id(key)][1]

    @overload
    def get(self, key: _Key) -> _Value | None: ...

    @overload
    def get(self, key: _Key, default: _Default) -> _Value | _Default: ...

    def get(self, key: _Key, default: Any = None) -> Any:
        entry = self._entries.get(id(key))
        return default if entry is None else entry[1]

    def __contains__(self, key: object) -> bool:
        return id(key) in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[_Key]:
        return (key for key, _ in self._entries.values())

    def items(self) -> Iterator[tuple[_Key, _Value]]:
        return iter(self._entries.values())

    def values(self) -> Iterator[_Value]:
        return (value for _, value in self._entries.values())

    def __repr__(self) -> str:
        return f"ByNode({len(self._entries)} entries)"


class NodeSet(Generic[_Key]):
    """A set of nodes by identity, for the reasons `ByNode` gives."""

    __slots__ = ("_members",)

    def __init__(self, members: Iterable[_Key] = ()) -> None:
        self._members: dict[int, _Key] = {id(member): member for member in members}

    def add(self, member: _Key) -> None:
        self._members[id(member)] = member

    def __contains__(self, member: object) -> bool:
        return id(member) in self._members

    def __len__(self) -> int:
        return len(self._members)

    def __iter__(self) -> Iterator[_Key]:
        return iter(self._members.values())

    def __repr__(self) -> str:
        return f"NodeSet({len(self._members)} members)"
