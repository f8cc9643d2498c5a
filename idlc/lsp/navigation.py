"""The requests that find things: hover, definition, references, highlight, rename and
symbols, answered from the unit's analysis (`service`) and name index (`index`)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidRequest

from idlc import pipeline
from idlc.boundedread import read_input, text_over_limit
from idlc.lsp import hover as hovering
from idlc.lsp.analysis import Analysis
from idlc.lsp.index import (
    ATOM,
    IMPORTED,
    INTERFACE,
    OPERATION,
    RELATION,
    TYPEDEF,
    VALUE,
    Declaration,
    build_index,
)
from idlc.lsp.positions import Lines
from idlc.lsp.rename import RenameRefused, rename_edits
from idlc.lsp.server import IdlLanguageServer, guarded, path_of, range_of, server
from idlc.source import SourceFile

_SYMBOL_KINDS = {
    ATOM: lsp.SymbolKind.Constant,
    TYPEDEF: lsp.SymbolKind.Struct,
    INTERFACE: lsp.SymbolKind.Interface,
    IMPORTED: lsp.SymbolKind.Interface,
    VALUE: lsp.SymbolKind.Property,
    RELATION: lsp.SymbolKind.Field,
    OPERATION: lsp.SymbolKind.Method,
}


# -- navigation -------------------------------------------------------------------------


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
@guarded()
async def hover(ls: IdlLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
    analysis, found = await ls.at(params.text_document.uri, params.position)
    if found is None:
        return None
    declared = analysis.index.declared(found.key)
    if not declared:
        return None
    # On a declaration, that declaration (a name declared twice has two); elsewhere the first.
    shown = next((decl for decl in declared if decl.span == found.span), declared[0])
    text = hovering.hover_markdown(shown, analysis.index, analysis.compilation.sources)
    return lsp.Hover(
        lsp.MarkupContent(lsp.MarkupKind.Markdown, text), ls.range(found.span, analysis)
    )


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
@guarded()
async def definition(
    ls: IdlLanguageServer, params: lsp.DefinitionParams
) -> list[lsp.Location] | None:
    analysis, found = await ls.at(params.text_document.uri, params.position)
    if found is None:
        return None
    declared = analysis.index.declared(found.key)
    # An interface declared in the unit is where its imports lead; only an opaque one's
    # imports are its declarations.
    real = [decl for decl in declared if decl.kind != IMPORTED] or declared
    locations = [ls.location(decl.span, analysis) for decl in real]
    return [location for location in locations if location is not None] or None


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
@guarded()
async def references(
    ls: IdlLanguageServer, params: lsp.ReferenceParams
) -> list[lsp.Location] | None:
    analysis, found = await ls.at(params.text_document.uri, params.position)
    if found is None:
        return None
    include = params.context.include_declaration
    locations = [
        ls.location(item.span, analysis)
        for item in analysis.index.occurrences.get(found.key, [])
        if include or not item.declaration
    ]
    return [location for location in locations if location is not None]


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
@guarded()
async def highlight(
    ls: IdlLanguageServer, params: lsp.DocumentHighlightParams
) -> list[lsp.DocumentHighlight] | None:
    analysis, found = await ls.at(params.text_document.uri, params.position)
    if found is None:
        return None
    return [
        lsp.DocumentHighlight(
            ls.range(item.span, analysis),
            lsp.DocumentHighlightKind.Write if item.declaration else lsp.DocumentHighlightKind.Read,
        )
        for item in analysis.index.occurrences.get(found.key, [])
        if item.span.file == found.span.file
    ]


@server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
@guarded()
async def prepare_rename(
    ls: IdlLanguageServer, params: lsp.PrepareRenameParams
) -> lsp.PrepareRenamePlaceholder | None:
    analysis, found = await ls.at(params.text_document.uri, params.position)
    if found is None or not analysis.index.declared(found.key):
        raise JsonRpcInvalidRequest(
            "only declared names (atoms, types, interfaces, members) can be renamed here"
        )
    return lsp.PrepareRenamePlaceholder(ls.range(found.span, analysis), found.key[-1])


@server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
@guarded()
async def rename(ls: IdlLanguageServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
    analysis, found = await ls.at(params.text_document.uri, params.position)
    if found is None:
        raise JsonRpcInvalidRequest("there is no declared name here to rename")
    try:
        places = rename_edits(analysis.index, found.key, params.new_name)
    except RenameRefused as refused:
        raise JsonRpcInvalidRequest(str(refused)) from None
    changes: dict[str, list[lsp.TextEdit]] = {}
    for place in places:
        location = ls.location(place.span, analysis)
        if location is not None:
            changes.setdefault(location.uri, []).append(
                lsp.TextEdit(location.range, params.new_name)
            )
    return lsp.WorkspaceEdit(changes=changes)


# -- symbols ------------------------------------------------------------------------------


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded()
async def document_symbols(
    ls: IdlLanguageServer, params: lsp.DocumentSymbolParams
) -> list[lsp.DocumentSymbol] | None:
    path = path_of(params.text_document.uri)
    analysis = await ls.service.for_request(path)
    display = analysis.display(path)
    if display is None:
        return None
    index = analysis.index
    symbols: list[lsp.DocumentSymbol] = []
    for key, decls in index.declarations.items():
        if key[0] != "name":
            continue
        for decl in decls:
            if decl.span.file != display:
                continue
            children = [
                _document_symbol(ls, member, analysis, [])
                for member in index.members(decl.name)
                if decl.kind == INTERFACE
                and member.span.file == display
                and decl.node.span.start <= member.span.start < decl.node.span.end
            ]
            symbols.append(_document_symbol(ls, decl, analysis, children))
    symbols.sort(key=lambda symbol: (symbol.range.start.line, symbol.range.start.character))
    return symbols


def _document_symbol(
    ls: IdlLanguageServer,
    decl: Declaration,
    analysis: Analysis,
    children: list[lsp.DocumentSymbol],
) -> lsp.DocumentSymbol:
    return lsp.DocumentSymbol(
        name=decl.name,
        kind=_SYMBOL_KINDS[decl.kind],
        range=ls.range(decl.node.span, analysis),
        selection_range=ls.range(decl.span, analysis),
        detail=decl.kind,
        children=children or None,
    )


@server.feature(lsp.WORKSPACE_SYMBOL)
@guarded()
async def workspace_symbols(
    ls: IdlLanguageServer, params: lsp.WorkspaceSymbolParams
) -> list[lsp.SymbolInformation] | None:
    files = await ls.service.workspace_files()
    texts = dict(ls.service.texts)
    cache = ls.service.cache
    query = params.query.lower()
    encoding = ls.encoding

    def collect() -> list[tuple[Declaration, Path, lsp.Range]]:
        parsed = []
        paths: dict[str, Path] = {}
        sources: dict[str, SourceFile] = {}
        for path in files:
            text = texts.get(path)
            if text is not None and text_over_limit(text):
                continue  # not parsed: its diagnostic says so
            try:
                data = (
                    text.encode("utf-8", "surrogatepass") if text is not None else read_input(path)
                )
            except OSError:
                continue
            display = pipeline.display_path(path)
            result = cache.parse(display, data)
            if result.file is not None and result.source is not None:
                parsed.append(result.file)
                paths[display] = path
                sources[display] = result.source
        index = build_index(parsed)
        lines: dict[str, Lines] = {}
        found = []
        for decls in index.declarations.values():
            for decl in decls:
                if query in decl.name.lower():
                    file = decl.span.file
                    if file not in lines:
                        lines[file] = Lines(sources[file].text, encoding)
                    found.append((decl, paths[file], range_of(lines[file], decl.span)))
        return found

    found = await ls.service.run(collect)
    assert isinstance(found, list)
    return [
        lsp.SymbolInformation(
            name=decl.name,
            kind=_SYMBOL_KINDS[decl.kind],
            location=lsp.Location(ls.uri(path), where),
            container_name=decl.container,
        )
        for decl, path, where in found
    ]
