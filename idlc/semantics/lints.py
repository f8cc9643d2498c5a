"""Conventions worth a warning (`idlc check`), never an error (docs/language.md, the W codes)."""

from __future__ import annotations

import re

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


def check_binding_id(member: ast.Member, diagnostics: Diagnostics) -> None:
    binding = member.binding
    expected = f"{member.id.value}:{binding.verb.value}"
    if binding.id.value == expected:
        return
    diagnostics.add(
        codes.BINDING_ID_FORMAT,
        f"binding id {binding.id.raw} of `{member.name.value}` is not `<member id>:<verb>`",
        binding.id.span,
        label="unconventional binding id",
        help=f"write {_literal(expected)}",
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
