"""The static tables that generated code hands to the runtime.

This module is the contract between `idlc.codegen` (which writes one `InterfaceSpec` per
interface into the generated package) and the peer (which serves and calls through them).
Nothing here is looked up by reflection per call: the generated `invoke` adapters call the
implementation's method directly.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any


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
    #: By wire name (binding id).
    methods: Mapping[str, MethodSpec]
    #: The generated skeleton class; implementations subclass it.
    skeleton: type


#: Generated skeleton classes carry their spec under this class attribute.
SPEC_ATTRIBUTE = "__idlc_interface__"


def spec_of(implementation: object) -> InterfaceSpec:
    """The `InterfaceSpec` of an object whose class derives from a generated skeleton."""
    spec = getattr(type(implementation), SPEC_ATTRIBUTE, None)
    if not isinstance(spec, InterfaceSpec):
        raise TypeError(
            f"{type(implementation).__name__} does not derive from an idlc-generated interface"
        )
    return spec


def implemented_members(implementation: object) -> frozenset[str]:
    """The wire names of the members `implementation` answers itself.

    A member counts when its class overrides the skeleton's default body, so an ACP agent
    can declare in `initialize` exactly what it answers.
    """
    spec = spec_of(implementation)
    cls = type(implementation)
    return frozenset(
        method.wire
        for method in spec.methods.values()
        if method.required
        or getattr(cls, method.member, None) is not getattr(spec.skeleton, method.member, None)
    )
