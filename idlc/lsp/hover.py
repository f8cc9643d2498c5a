"""What hovering a name shows: its declaration in IDL, its kind, its docs and, for
members, how it goes over the wire (docs/language.md, "Bindings")."""

from __future__ import annotations

import re

from idlc.lsp.index import (
    ATOM,
    IMPORTED,
    INTERFACE,
    TYPEDEF,
    Declaration,
    Index,
)
from idlc.source import SourceMap, Span
from idlc.syntax import ast

#: Longer type expressions are cut (a big record would fill the screen).
_MAX_TYPE_TEXT = 240
_SPACE = re.compile(r"\s+")
_MAX_ALIAS_STEPS = 64


def type_text(node: ast.TypeExpr, sources: SourceMap) -> str:
    """A type expression as written, on one line."""
    return _text(node.span, sources)


def _text(span: Span, sources: SourceMap) -> str:
    source = sources.get(span.file)
    if source is None:
        return "…"
    text = _SPACE.sub(" ", source.text[span.start : span.end]).strip()
    return text if len(text) <= _MAX_TYPE_TEXT else text[: _MAX_TYPE_TEXT - 1] + "…"


def resolved_type(node: ast.TypeExpr, index: Index, sources: SourceMap) -> str | None:
    """What a chain of aliases ends in, when `node` names a typedef; None otherwise."""
    steps = 0
    while isinstance(node, ast.NamedType) and steps < _MAX_ALIAS_STEPS:
        decls = index.declared(("name", node.name.value))
        if not decls or not isinstance(decls[0].node, ast.TypeDecl):
            return None
        node = decls[0].node.type
        steps += 1
    if steps == 0 or isinstance(node, ast.NamedType):
        return None
    return type_text(node, sources)


def hover_markdown(decl: Declaration, index: Index, sources: SourceMap) -> str:
    node = decl.node
    lines: list[str] = []
    signature, facts = _describe(decl, index, sources)
    lines.append(f"```idl\n{signature}\n```")
    lines.append(" · ".join(facts))
    doc = getattr(node, "doc", None)
    if isinstance(doc, ast.Doc) and doc.text.strip():
        lines.append(doc.text)
    return "\n\n".join(lines)


def _describe(decl: Declaration, index: Index, sources: SourceMap) -> tuple[str, list[str]]:
    node = decl.node
    where = f"declared in `{decl.span.file}`"
    if decl.kind == ATOM and isinstance(node, ast.AtomDecl):
        return f"external atom {decl.name} id {node.id.raw}", ["*atom*", where]
    if decl.kind == TYPEDEF and isinstance(node, ast.TypeDecl):
        facts = ["*typedef*"]
        resolved = resolved_type(node.type, index, sources)
        if resolved is not None:
            facts.append(f"resolves to `{resolved}`")
        facts.append(where)
        return f"type {decl.name} = {type_text(node.type, sources)}", facts
    if decl.kind == INTERFACE and isinstance(node, ast.InterfaceDecl):
        count = len(node.members)
        return (
            f"interface {decl.name} id {node.id.raw} revision {node.revision.raw}",
            ["*interface*", f"{count} member{'s' if count != 1 else ''}", where],
        )
    if decl.kind == IMPORTED:
        return (
            f"import interface {decl.name}",
            ["*imported interface*, defined in no file of this compilation (opaque)", where],
        )
    return _member(decl, index, sources)


def _member(decl: Declaration, index: Index, sources: SourceMap) -> tuple[str, list[str]]:
    node = decl.node
    required = "required " if getattr(node, "required", False) else ""
    facts = [f"*{decl.kind}* of interface `{decl.container}`"]
    if isinstance(node, ast.ValueMember):
        signature = f"{required}queryable value {decl.name} : {type_text(node.type, sources)}"
        resolved = resolved_type(node.type, index, sources)
        if resolved is not None:
            facts.append(f"type resolves to `{resolved}`")
    elif isinstance(node, ast.RelationMember):
        target = node.target
        signature = (
            f"{required}queryable relation {decl.name} : {node.cardinality.value} "
            f"{target.kind.value} {target.name.value}"
        )
    elif isinstance(node, ast.OperationMember):
        signature = (
            f"{required}operation {decl.name} : {type_text(node.input, sources)} -> "
            f"{type_text(node.output, sources)}"
        )
    else:  # pragma: no cover - every member kind is above
        return decl.name, facts
    binding = node.binding
    facts.append(f"wire method `{binding.id.value}` ({binding.verb.value})")
    if binding.execution is not None:
        facts.append(f"execution {binding.execution.value}")
    else:
        facts.append("a notification: no response")
    facts.append(f"member id {node.id.raw}")
    return signature, facts
