"""AST → resolved model: the one public entry point of the semantic stage is `resolve`.

The work is linear in the size of the input: one pass builds the namespace (`scope.py`),
one converts every declaration (`types.py` for type expressions), then the checks that
look through typedefs (`checks.py`, `cycles.py`) and the lints (`lints.py`). Suggestions
for unknown names are computed only when a name is unknown. Nothing here knows of a target
language: what a model becomes in Python, and what cannot, is `idlc.targets.python`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

from idlc.diagnostics import Diagnostic, Diagnostics, Related, codes
from idlc.gcpause import paused_gc
from idlc.semantics import checks, lints, model, queries
from idlc.semantics.cycles import check_cycles
from idlc.semantics.facts import Typedefs
from idlc.semantics.scope import Entry, Kind, Scope, build_scope
from idlc.semantics.stability import check_references, unstable_of
from idlc.semantics.types import TypeConverter
from idlc.semantics.unique import UniqueNames, Wording
from idlc.source import SourceMap, Span
from idlc.syntax import ast

__all__ = ["resolve"]

_VERBS_FOR = {
    ast.ValueMember: (ast.Verb.GET,),
    ast.RelationMember: (ast.Verb.RESOLVE,),
    ast.OperationMember: (ast.Verb.CALL, ast.Verb.NOTIFY),
}
_VERBS = {verb: model.Verb(verb.value) for verb in ast.Verb}
_EXECUTIONS = {execution: model.Execution(execution.value) for execution in ast.Execution}
_CARDINALITIES = {kind: model.Cardinality(kind.value) for kind in ast.Cardinality}
_MEMBER_WORD = {
    ast.ValueMember: "a queryable value",
    ast.RelationMember: "a queryable relation",
    ast.OperationMember: "an operation",
}


def resolve(
    files: Sequence[ast.File],
    diagnostics: Diagnostics,
    *,
    sources: Sequence[model.SourceInfo] = (),
    source_map: SourceMap | None = None,
) -> model.Model | None:
    """Resolve the files of one compilation into a model.

    Every problem found is added to `diagnostics`, errors and lint warnings sorted by file
    (in the order of `files`) and position. Returns None when there is any error.
    """
    found = Diagnostics()
    result = resolve_unsorted(files, found, sources=sources, source_map=source_map)
    diagnostics.extend(sort_diagnostics(found, files))
    return None if found.has_errors else result


def resolve_unsorted(
    files: Sequence[ast.File],
    diagnostics: Diagnostics,
    *,
    sources: Sequence[model.SourceInfo] = (),
    source_map: SourceMap | None = None,
) -> model.Model:
    """The model of `files`, also when there are errors (then some names in it may not
    resolve, and declarations that lost to another of the same name are not in it), with
    every problem added to `diagnostics` in the order found: for a later stage that checks
    more of it before the problems are sorted together (`sort_diagnostics`)."""
    with paused_gc():
        return _Resolver(files, diagnostics, source_map).run(sources)


def sort_diagnostics(found: Diagnostics, files: Sequence[ast.File]) -> list[Diagnostic]:
    """`found` by file (in the order of `files`) and position; those without a place last."""
    order = {file.path: index for index, file in enumerate(files)}
    return sorted(found, key=lambda item: _sort_key(item, order))


def _sort_key(diagnostic: Diagnostic, order: dict[str, int]) -> tuple[int, int, int]:
    span = diagnostic.span
    if span is None:
        return (len(order), 0, 0)
    return (order.get(span.file, len(order)), span.start, span.end)


class _Resolver:
    def __init__(
        self, files: Sequence[ast.File], diagnostics: Diagnostics, source_map: SourceMap | None
    ) -> None:
        self.files = files
        self.diagnostics = diagnostics
        self.source_map = source_map
        self.scope: Scope = build_scope(files, diagnostics)
        self.types = TypeConverter(self.scope, diagnostics)
        # ids seen so far, each kind in its own table: id → span of its first use
        self.atom_ids: dict[str, tuple[str, Span]] = {}
        self.interface_ids: dict[str, Span] = {}
        self.member_ids: dict[str, Span] = {}
        #: binding id → its uses so far: (interface, whether a `notify` binding, span)
        self.binding_ids: dict[str, list[tuple[str, bool, Span]]] = {}
        #: every binding id of the compilation, for W0002's suggestions
        self.all_binding_ids = lints.BindingIds(files)
        #: `notify` operations and their outputs, checked once typedefs are known
        self.notifications: list[tuple[ast.OperationMember, model.Type]] = []

    def run(self, sources: Sequence[model.SourceInfo]) -> model.Model:
        atoms: dict[str, model.Atom] = {}
        entries: dict[str, model.Typedef] = {}
        interfaces: dict[str, model.Interface] = {}
        opaque: dict[str, model.OpaqueInterface] = {}
        for entry in self.scope.entries.values():
            if entry.kind is Kind.ATOM:
                atoms[entry.name] = self._atom(entry)
            elif entry.kind is Kind.OPAQUE:
                opaque[entry.name] = model.OpaqueInterface(
                    entry.name, tuple(decl.name.span for decl in entry.decls)
                )
        # Declarations that lost to an earlier one of the same name (E0105) are still
        # checked inside, so one run reports everything; only the winner enters the model.
        for file in self.files:
            for decl in file.decls:
                if isinstance(decl, ast.TypeDecl):
                    typedef = model.Typedef(
                        decl.name.value,
                        self.types.convert(decl.type),
                        _doc(decl.doc),
                        decl.span,
                        decl.name.span,
                        unstable_of(decl.attributes, self.diagnostics),
                    )
                    if self._wins(decl):
                        entries[typedef.name] = typedef
                elif isinstance(decl, ast.InterfaceDecl):
                    interface = self._interface(decl)
                    if self._wins(decl):
                        interfaces[interface.name] = interface
        check_cycles(
            entries,
            {name: self.scope.entries[name].span for name in entries},
            self.diagnostics,
        )
        # Every name's target and shape, every variant case's records and every default's
        # meaning worked out once, before the checks that ask them.
        typedefs = Typedefs(entries, self.types.scopes)
        checks.check_defaults(self.types.fields_with_defaults, typedefs, self.diagnostics)
        checks.check_forward_compatible(
            self.types.forward_compatible_fields, typedefs, self.diagnostics
        )
        for variant in self.types.variants:
            checks.check_variant(variant, typedefs, self.diagnostics)
        for union in self.types.unions:
            checks.check_union(union, typedefs, self.diagnostics)
        for nullable in self.types.nullables:
            checks.check_nullable(nullable, typedefs, self.diagnostics)
        self._check_notify(typedefs)
        resolved = model.Model(
            tuple(sources), atoms, typedefs, interfaces, opaque, tuple(self.types.scopes)
        )
        if any(file.has_attributes for file in self.files):
            # (Without an attribute no item is unstable, and no use can be of one: the walk
            # over every type would find nothing.)
            check_references(resolved, self.diagnostics)
        return resolved

    def _wins(self, decl: ast.TypeDecl | ast.InterfaceDecl) -> bool:
        entry = self.scope.get(decl.name.value)
        return entry is not None and entry.decls[0] is decl

    # -- atoms --------------------------------------------------------------------------

    def _atom(self, entry: Entry) -> model.Atom:
        decls = [decl for decl in entry.decls if isinstance(decl, ast.AtomDecl)]
        first = decls[0]
        earlier = self.atom_ids.get(first.id.value)
        if earlier is not None:
            self.diagnostics.add(
                codes.DUPLICATE_ID,
                f"atoms `{earlier[0]}` and `{entry.name}` have the same id {first.id.raw}",
                first.id.span,
                label="id already used",
                help="every atom needs its own id",
                related=[Related(f"`{earlier[0]}` has this id", earlier[1])],
            )
        else:
            self.atom_ids[first.id.value] = (entry.name, first.id.span)
        doc = next((decl.doc.text for decl in decls if decl.doc is not None), None)
        return model.Atom(
            entry.name,
            first.id.value,
            doc,
            tuple(decl.span for decl in decls),
            first.name.span,
            unstable_of(first.attributes, self.diagnostics),
        )

    # -- interfaces ---------------------------------------------------------------------

    def _interface(self, decl: ast.InterfaceDecl) -> model.Interface:
        self._unique_id(
            self.interface_ids, decl.id, codes.DUPLICATE_ID, "interface id", "interface"
        )
        lints.check_revision(decl, self.diagnostics)
        members: list[model.Member] = []
        names = UniqueNames(
            Wording(
                codes.DUPLICATE_MEMBER,
                lambda shown: f"member {shown} is declared twice in interface `{decl.name.value}`",
                "declared again here",
                "rename or remove one of the two members",
                "first declared here",
            ),
            self.diagnostics,
        )
        for member in decl.members:
            name = member.name
            names.add(name.value, f"`{name.value}`", name.span)
            members.append(self._member(member, decl.name.value))
        return model.Interface(
            decl.name.value,
            decl.id.value,
            decl.revision.value,
            tuple(members),
            _doc(decl.doc),
            decl.span,
            decl.name.span,
            unstable_of(decl.attributes, self.diagnostics),
        )

    def _member(self, member: ast.Member, interface: str) -> model.Member:
        self._unique_id(self.member_ids, member.id, codes.DUPLICATE_ID, "member id", "member")
        binding = self._binding(member, interface)
        lints.check_binding_id(member, self.all_binding_ids, self.diagnostics)
        unstable = unstable_of(member.attributes, self.diagnostics)
        if isinstance(member, ast.ValueMember):
            self._lint_queryable(member)
            return model.Value(
                member.name.value,
                member.id.value,
                member.required,
                self.types.convert(member.type),
                binding,
                _doc(member.doc),
                member.span,
                member.name.span,
                unstable,
            )
        if isinstance(member, ast.RelationMember):
            self._lint_queryable(member)
            target = member.target
            resolved_target: model.AtomTarget | model.InterfaceTarget
            if target.kind is ast.TargetKind.ATOM:
                resolved_target = model.AtomTarget(
                    self.types.atom(target.name, "target atom"), target.span
                )
            else:
                resolved_target = model.InterfaceTarget(
                    self.types.interface(target.name, "target interface"), target.span
                )
            return model.Relation(
                member.name.value,
                member.id.value,
                member.required,
                _CARDINALITIES[member.cardinality],
                resolved_target,
                binding,
                _doc(member.doc),
                member.span,
                member.name.span,
                unstable,
            )
        output = self.types.convert(member.output)
        if binding.verb is model.Verb.NOTIFY:
            self.notifications.append((member, output))
        return model.Operation(
            member.name.value,
            member.id.value,
            member.required,
            self.types.convert(member.input),
            output,
            binding,
            _doc(member.doc),
            member.span,
            member.name.span,
            unstable,
        )

    def _lint_queryable(self, member: ast.ValueMember | ast.RelationMember) -> None:
        source = self.source_map.get(member.span.file) if self.source_map is not None else None
        lints.check_queryable_execution(member, source, self.diagnostics)

    def _binding(self, member: ast.Member, interface: str) -> model.Binding:
        binding = member.binding
        allowed = _VERBS_FOR[type(member)]
        if binding.verb not in allowed:
            words = " or ".join(f"`{verb.value}`" for verb in allowed)
            self.diagnostics.add(
                codes.BINDING_VERB_MISMATCH,
                f"`{binding.verb.value}` cannot bind {_MEMBER_WORD[type(member)]}",
                binding.verb_span,
                label=f"expected {words}",
                help=f"{_MEMBER_WORD[type(member)]} is bound with {words}",
            )
        self._unique_binding_id(binding, interface)
        return model.Binding(
            _VERBS[binding.verb],
            binding.id.value,
            _EXECUTIONS[binding.execution] if binding.execution is not None else None,
            binding.span,
        )

    def _unique_binding_id(self, binding: ast.Binding, interface: str) -> None:
        """A binding id is unique in a compilation, except that one request binding and one
        `notify` binding may share it, in one interface or two (docs/language.md,
        "Bindings"): JSON-RPC tells a request from a notification, and the dispatch tables
        have one entry per (method, kind)."""
        literal = binding.id
        notify = binding.verb is ast.Verb.NOTIFY
        uses = self.binding_ids.setdefault(literal.value, [])
        for other_interface, other_notify, span in uses:
            if other_notify != notify:
                continue
            kind = "notification" if notify else "request"
            self.diagnostics.add(
                codes.DUPLICATE_BINDING_ID,
                f"binding id {literal.raw} is used twice",
                literal.span,
                label="used again here",
                help=(
                    "binding ids are JSON-RPC method names: everything compiled together is "
                    f"served together, so one method can be one request and one notification "
                    f"at most (the first {kind} is in {other_interface})"
                ),
                related=[Related("first used here", span)],
            )
            return
        uses.append((interface, notify, literal.span))

    def _unique_id(
        self,
        seen: dict[str, Span],
        literal: ast.StringLiteral,
        code: codes.Code,
        what: str,
        owner: str,
    ) -> None:
        first = seen.get(literal.value)
        if first is None:
            seen[literal.value] = literal.span
            return
        help = f"every {owner} of a compilation needs its own id"
        self.diagnostics.add(
            code,
            f"{what} {literal.raw} is used twice",
            literal.span,
            label="used again here",
            help=help,
            related=[Related("first used here", first)],
        )

    def _check_notify(self, typedefs: Typedefs) -> None:
        for member, output_type in self.notifications:
            output = queries.follow_typedefs(output_type, typedefs)
            if output is None or (
                isinstance(output, model.Primitive) and output.kind is model.PrimitiveKind.UNIT
            ):
                continue
            self.diagnostics.add(
                codes.NOTIFY_WITH_OUTPUT,
                f"`notify` cannot bind operation `{member.name.value}`: its output is "
                f"{queries.describe_kind(output)}, not `unit`",
                member.binding.verb_span,
                label="a notification gets no response",
                help="make the output `unit`, or bind it with `call … execution transaction;`",
                related=[Related("the output is declared here", member.output.span)],
            )


def _doc(doc: ast.Doc | None) -> str | None:
    return doc.text if doc is not None else None
