"""The static tables that generated code hands to the runtime.

This module is the contract between `idlc.codegen` (which writes one `InterfaceSpec` per
interface into the generated package) and the peer (which serves and calls through them).
Nothing here is looked up by reflection per call: the generated `invoke` adapters call the
implementation's method directly.
"""

from __future__ import annotations

import enum
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final, TypeVar


class InputShape(enum.Enum):
    """How an operation's input travels in `params` (docs/wire.md §4)."""

    #: No params (`{}` and absent are both accepted).
    UNIT = "unit"
    #: The params object is the record itself.
    RECORD = "record"
    #: Any other input: `{"input": value}`.
    WRAPPED = "wrapped"


class Execution(enum.Enum):
    SNAPSHOT = "snapshot"
    TRANSACTION = "transaction"


@dataclass(frozen=True, slots=True, init=False)
class MethodSpec:
    """One member of an interface as it is served and called on the wire."""

    #: The binding id: the JSON-RPC method name.
    wire: str
    #: The Python method name on the skeleton and the proxy.
    member: str
    shape: InputShape
    #: What `params` decodes into: the record's class for RECORD, a generated one-field
    #: class with the attribute `input` (wire name "input") for WRAPPED, None for UNIT.
    params_type: Any
    #: The output's type, for decoding a result on the calling side (`None` for unit).
    result_type: Any
    #: `await invoke(implementation, decoded_params)` calls the member; for UNIT the
    #: decoded params are None. Generated, so no reflection happens per call.
    invoke: Callable[[Any, Any], Awaitable[Any]]
    #: None for `notify` members.
    execution: Execution | None
    #: A one-way message: no response travels back.
    notify: bool
    #: The skeleton has no default body for it.
    required: bool

    def __init__(
        self,
        wire: str,
        member: str,
        shape: InputShape,
        params_type: Any,
        result_type: Any,
        invoke: Callable[[Any, Any], Awaitable[Any]],
        execution: Execution | None,
        notify: bool,
        required: bool,
    ) -> None:
        # The dataclass's own frozen __init__, field by field through object.__setattr__:
        # 2.7 µs, and a generated package makes one spec per member as it is imported
        # (docs/benchmarks.md, "Import of a generated package"). The slots' descriptors
        # store the same fields in a third of the time.
        _set_wire(self, wire)
        _set_member(self, member)
        _set_shape(self, shape)
        _set_params_type(self, params_type)
        _set_result_type(self, result_type)
        _set_invoke(self, invoke)
        _set_execution(self, execution)
        _set_notify(self, notify)
        _set_required(self, required)


(
    _set_wire,
    _set_member,
    _set_shape,
    _set_params_type,
    _set_result_type,
    _set_invoke,
    _set_execution,
    _set_notify,
    _set_required,
) = (MethodSpec.__dict__[field.name].__set__ for field in fields(MethodSpec))


@dataclass(frozen=True, slots=True)
class InterfaceSpec:
    """Everything the runtime needs to serve or call one interface."""

    name: str
    id: str
    revision: str
    #: Every member, in declaration order.
    methods: Sequence[MethodSpec]
    #: The generated skeleton class; implementations subclass it.
    skeleton: type
    #: The request members by wire name (binding id), and the `notify` members: one method
    #: may be both, one member of each kind (docs/language.md, "Bindings").
    requests: Mapping[str, MethodSpec] = field(init=False, repr=False, compare=False)
    notifications: Mapping[str, MethodSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        given: Sequence[MethodSpec] | Mapping[str, MethodSpec] = self.methods
        # A mapping by wire name is what packages generated before the per-kind tables pass:
        # they keep importing (such a mapping cannot hold both kinds of one method anyway).
        methods = tuple(given.values() if isinstance(given, Mapping) else given)
        requests, notifications = method_tables((self.name, method) for method in methods)
        object.__setattr__(self, "methods", methods)
        object.__setattr__(self, "requests", requests)
        object.__setattr__(self, "notifications", notifications)


def method_tables(
    members: Iterable[tuple[str, MethodSpec]],
) -> tuple[dict[str, MethodSpec], dict[str, MethodSpec]]:
    """The request and notification tables of `(interface name, member)` pairs.

    An incoming message is looked up by its kind, which JSON-RPC says (a request has an
    id), so each (method, kind) may have one member only: two would be a `ValueError`
    naming both, raised as the interface is defined or a peer starts serving."""
    tables: tuple[dict[str, MethodSpec], dict[str, MethodSpec]] = ({}, {})
    owners: dict[tuple[str, bool], str] = {}
    for interface, method in members:
        if not isinstance(method, MethodSpec):
            raise TypeError(
                f"interface {interface}: a method table holds MethodSpec values, "
                f"not {type(method).__name__}"
            )
        table = tables[1 if method.notify else 0]
        key = (method.wire, method.notify)
        if method.wire in table:
            kind = "notification" if method.notify else "request"
            raise ValueError(
                f"the {kind} {method.wire!r} is answered twice: by `{table[method.wire].member}` "
                f"of {owners[key]} and by `{method.member}` of {interface}"
            )
        table[method.wire] = method
        owners[key] = interface
    return tables


#: Generated skeleton classes carry their spec under this class attribute.
SPEC_ATTRIBUTE = "__idlc_interface__"


def spec_of(implementation: object) -> InterfaceSpec:
    """The `InterfaceSpec` of an object whose class derives from a generated skeleton (the
    first one, when it derives from several: see `specs_of`)."""
    spec = getattr(type(implementation), SPEC_ATTRIBUTE, None)
    if not isinstance(spec, InterfaceSpec):
        raise TypeError(
            f"{type(implementation).__name__} does not derive from an idlc-generated interface"
        )
    return spec


def specs_of(implementation: object) -> tuple[InterfaceSpec, ...]:
    """Every interface an object answers: one per generated skeleton its class derives from
    (docs/serving.md, "Several interfaces on one object"), in method resolution order.

    A class may restate a skeleton's spec (its own dispatch table for the same skeleton, as
    `idlc_acp.Client` does); the most derived statement of each skeleton's spec counts."""
    found: dict[type, InterfaceSpec] = {}
    for cls in type(implementation).__mro__:
        spec = cls.__dict__.get(SPEC_ATTRIBUTE)
        if isinstance(spec, InterfaceSpec) and spec.skeleton not in found:
            found[spec.skeleton] = spec
    if not found:
        spec_of(implementation)  # raises the TypeError that says what is wrong
    return tuple(found.values())


@dataclass(frozen=True, slots=True)
class ServingTables:
    """What a peer serves an object with: the members of every interface its class
    answers, by wire method and kind, and which of them the class implements itself."""

    requests: Mapping[str, MethodSpec]
    notifications: Mapping[str, MethodSpec]
    implemented_requests: frozenset[str]
    implemented_notifications: frozenset[str]


#: By class: a peer that registers many objects of one class builds their tables once.
_tables_by_class: weakref.WeakKeyDictionary[type, ServingTables] = weakref.WeakKeyDictionary()


def serving_tables(implementation: object) -> ServingTables:
    """The tables of every interface `implementation` answers, merged (computed once per
    class); a `ValueError` when two interfaces claim one (method, kind) or one Python member
    name (one method of the object cannot answer both)."""
    cls = type(implementation)
    tables = _tables_by_class.get(cls)
    if tables is None:
        tables = _tables_by_class[cls] = _build_tables(implementation)
    return tables


def _build_tables(implementation: object) -> ServingTables:
    specs = specs_of(implementation)
    if len(specs) == 1:  # checked when the spec was made
        requests, notifications = specs[0].requests, specs[0].notifications
    else:
        members: dict[str, str] = {}
        for spec in specs:
            for method in spec.methods:
                owner = members.setdefault(method.member, spec.name)
                if owner != spec.name:
                    raise ValueError(
                        f"{type(implementation).__name__} answers {owner} and {spec.name}, "
                        f"which both have a member `{method.member}`: one method cannot "
                        "answer both"
                    )
        requests, notifications = method_tables(
            (spec.name, method) for spec in specs for method in spec.methods
        )
    implemented = implemented_methods(implementation)
    return ServingTables(
        requests,
        notifications,
        frozenset(method.wire for method in implemented if not method.notify),
        frozenset(method.wire for method in implemented if method.notify),
    )


def implemented_members(implementation: object) -> frozenset[str]:
    """The wire names of the members `implementation` answers itself.

    A member counts when its class overrides the skeleton's default body, so an ACP agent
    can declare in `initialize` exactly what it answers.
    """
    return frozenset(method.wire for method in implemented_methods(implementation))


def implemented_methods(implementation: object) -> tuple[MethodSpec, ...]:
    """The members of every interface `implementation` answers that it implements itself."""
    cls = type(implementation)
    found: list[MethodSpec] = []
    for spec in specs_of(implementation):
        for method in spec.methods:
            body = getattr(cls, method.member, None)
            if getattr(body, _STANDS_IN, False):
                continue
            if method.required or body is not getattr(spec.skeleton, method.member, None):
                found.append(method)
    return tuple(found)


_STANDS_IN: Final = "__idlc_stands_in__"

_Body = TypeVar("_Body", bound=Callable[..., Any])


def stand_in(body: _Body) -> _Body:
    """Mark `body` as standing in for a member it does not implement: the member counts as
    not implemented (`implemented_members`), so the peer answers it -32601, or hands it to
    its fallback with `PeerOptions.fallback_for_unimplemented`. A base class that forwards
    what its subclasses do not handle (`idlc_acp.proxy_chain.ChainProxy`) gives `required`
    members such bodies, so that it can be instantiated."""
    setattr(body, _STANDS_IN, True)
    return body
