"""Which generated classes register forward-compatible fields with the runtime, and which
attributes (docs/language.md, "Forward-compatible fields").

A record class with `lenient`, `skip-invalid` or `null-default` fields is registered with the
runtime by one module-level statement naming the Python attributes of those fields; the
runtime's decoder uses it only when the fast, strict msgspec decode of a message fails
(docs/wire.md, "Forward-compatible decoding"). The runtime takes the first registration
along a class's MRO, so a case class that declares its variant's shared fields registers
the fields it inherits from its record's class too. Kept in the plan
(`Plan.forward_compatible`); code generation writes the statements.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, assert_never

from idlc.nodes import node
from idlc.semantics import model as m
from idlc.targets.python.definitions import (
    AliasDefinition,
    Definition,
    EnumDefinition,
    RecordDefinition,
    UnionDefinition,
    VariantDefinition,
)

if TYPE_CHECKING:
    from idlc.targets.python.mapping import CaseClass, CaseNames, Plan


@node
class ForwardCompatible:
    """The attributes of one class's forward-compatible fields, by modifier, in field order
    (a list may be empty)."""

    lenient: tuple[str, ...]
    skip_invalid: tuple[str, ...]
    null_default: tuple[str, ...]


def forward_compatible(plan: Plan) -> dict[str, ForwardCompatible]:
    """Class name → its registration, for every class of `plan`'s definitions that has
    forward-compatible fields."""
    found = _Finder(plan)
    for definitions in (*plan.typedef_definitions.values(), *plan.interface_definitions.values()):
        found.definitions(definitions)
    return found.registrations


class _Finder:
    def __init__(self, plan: Plan) -> None:
        self.attributes = plan.attributes
        self.registrations: dict[str, ForwardCompatible] = {}

    def register(
        self,
        name: str,
        shared: tuple[m.Field, ...],
        record: m.Record | None,
        inherited: tuple[m.Field, ...] = (),
    ) -> None:
        """Class `name`, declaring `shared` and `record`'s fields and inheriting
        `inherited` from its parent."""
        written = shared + (record.fields if record is not None else ())
        if not written:
            return
        registered = written + (inherited if shared else ())
        # One pass over every field first: most classes have none of these (`idlc check`
        # runs this too).
        marked = [
            f
            for f in registered
            if f.lenient is not None or f.skip_invalid is not None or f.null_default is not None
        ]
        if marked:
            attributes = self.attributes
            self.registrations[name] = ForwardCompatible(
                tuple(attributes[f.name] for f in marked if f.lenient is not None),
                tuple(attributes[f.name] for f in marked if f.skip_invalid is not None),
                tuple(attributes[f.name] for f in marked if f.null_default is not None),
            )

    def definitions(self, definitions: Iterable[Definition]) -> None:
        for definition in definitions:
            match definition:
                case RecordDefinition(name, record, fields_class):
                    # An open record's declared fields are its private struct's.
                    self.register(name if fields_class is None else fields_class, (), record)
                case VariantDefinition():
                    self.variant(definition)
                case UnionDefinition():
                    self.definitions(definition.alternatives)
                case EnumDefinition() | AliasDefinition():
                    pass
                case _:
                    assert_never(definition)

    def case_class(self, case_class: CaseClass, shared: tuple[m.Field, ...]) -> None:
        self.register(case_class.name, shared, case_class.record, case_class.inherited)

    def variant(self, definition: VariantDefinition) -> None:
        """The classes of a variant (`idlc.codegen.build_types.TypeBuilder.define_variant`):
        each case's, each carrying the variant's shared fields, and the struct of the shared
        fields its unknown case keeps."""
        variant, names = definition.variant, definition.classes
        assert names is not None  # (the mapping names every variant it notes)
        shared = variant.shared.fields if variant.shared is not None else ()
        self.cases(names.cases, shared)
        if names.unknown is not None and names.shared_fields is not None:
            self.register(names.shared_fields, shared, None)

    def cases(self, cases: Iterable[CaseNames], shared: tuple[m.Field, ...]) -> None:
        """The classes of `cases`, each carrying `shared`; a variant case's carry the inner
        variant's shared fields too, at any depth."""
        for case in cases:
            case_shared = shared
            if case.variant is not None:  # the inner variant's shared fields too
                inner = case.variant.shared
                case_shared = shared + (inner.fields if inner is not None else ())
                self.cases(case.cases, case_shared)
            for case_class in case.classes:
                self.case_class(case_class, case_shared)
            if case.unknown is not None and case.shared_fields is not None:
                self.register(case.shared_fields, case_shared, None)
