"""Conventions worth a warning (`idlc check`), never an error (docs/language.md, the W codes)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from idlc.diagnostics import Diagnostics, codes
from idlc.source import SourceFile, Span
from idlc.syntax import ast

_INTEGER = re.compile(r"0|[1-9][0-9]*")


def check_revision(decl: ast.InterfaceDecl, diagnostics: Diagnostics) -> None:
    revision = decl.revision.value
    prefix = decl.id.value + "@"
    if revision.startswith(prefix) and _INTEGER.fullmatch(revision, len(prefix)):
        return
    diagnostics.add(
        codes.REVISION_FORMAT,
        f"revision {decl.revision.raw} of interface `{decl.name.value}` is not "
        "`<interface id>@<integer>`",
        decl.revision.span,
        label="unconventional revision",
        help=f"write {_literal(decl.id.value + '@1')}, and raise the number on every incompatible change",
    )


class BindingIds:
    """Every binding id of a compilation and whose it is, so that W0002 never suggests one
    another binding already has (the quick fix would turn a warning into E0111)."""

    def __init__(self, files: Iterable[ast.File]) -> None:
        #: binding id → the (member, interface) names of the bindings that have it
        self.owners: dict[str, list[tuple[str, str]]] = {}
        for file in files:
            for decl in file.decls:
                if isinstance(decl, ast.InterfaceDecl):
                    for member in decl.members:
                        owner = (member.name.value, decl.name.value)
                        self.owners.setdefault(member.binding.id.value, []).append(owner)

    def others(self, value: str, own: str) -> int:
        """How many bindings other than the one whose id is `own` have the id `value`."""
        return len(self.owners.get(value, ())) - (value == own)


def suggested_binding_id(conventional: str, own: str, in_use: Callable[[str], bool]) -> str | None:
    """The id W0002 suggests: the conventional one when no other binding has it, else the
    first of `<conventional>-2`, `-3`, … that none has (found within as many tries as there
    are ids in use, plus one). None when that is the binding's own id already: then only
    freeing the conventional id helps, and suggesting the same id again would go round."""
    candidate, number = conventional, 1
    while in_use(candidate):
        number += 1
        candidate = f"{conventional}-{number}"
    return None if candidate == own and number > 1 else candidate


def check_binding_id(member: ast.Member, ids: BindingIds, diagnostics: Diagnostics) -> None:
    binding = member.binding
    own = binding.id.value
    expected = f"{member.id.value}:{binding.verb.value}"
    if own == expected:
        return
    suggestion = suggested_binding_id(expected, own, lambda value: ids.others(value, own) > 0)
    if suggestion == expected:
        help = f"write {_literal(expected)}"
    else:
        holders = ids.owners[expected]
        named = ", ".join(f"`{name}` in `{owner}`" for name, owner in holders)
        taken = f"{_literal(expected)} is the binding id of {named}"
        that = "that one its" if len(holders) == 1 else "those their"
        help = (
            f"write {_literal(suggestion)} ({taken}: give {that} own id to free it)"
            if suggestion is not None
            else f"{taken}: give {that} own id, then write {_literal(expected)}"
        )
    diagnostics.add(
        codes.BINDING_ID_FORMAT,
        f"binding id {binding.id.raw} of `{member.name.value}` is not `<member id>:<verb>`",
        binding.id.span,
        label="unconventional binding id",
        help=help,
    )


_EXECUTION_WORD = re.compile(r"\btransaction\b")


def check_queryable_execution(
    member: ast.ValueMember | ast.RelationMember,
    source: SourceFile | None,
    diagnostics: Diagnostics,
) -> None:
    binding = member.binding
    if binding.execution is not ast.Execution.TRANSACTION:
        return
    diagnostics.add(
        codes.QUERYABLE_NOT_SNAPSHOT,
        f"queryable member `{member.name.value}` uses `execution transaction`",
        _execution_span(binding, source),
        label="a queryable member only reads",
        help="write `execution snapshot`, or make the member an `operation`",
    )


def _execution_span(binding: ast.Binding, source: SourceFile | None) -> Span:
    """The `transaction` keyword of a binding (the AST keeps only the whole binding)."""
    if source is not None:
        match = _EXECUTION_WORD.search(source.text, binding.id.span.end, binding.span.end)
        if match is not None:
            return source.span(match.start(), match.end())
    return binding.span


def _literal(value: str) -> str:
    """`value` as an IDL string literal (JSON escapes), ready to paste into the file."""
    import json  # only when a lint fires: `idlc check` does not import json otherwise

    return json.dumps(value, ensure_ascii=False)
