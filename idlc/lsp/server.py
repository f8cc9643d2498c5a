"""`idlc lsp`: the Language Server Protocol over stdio, on pygls.

Handlers translate between LSP and the modules beside this one, which know nothing of LSP:
`service` (units and analyses), `index` (names), `hover`, `complete`, `fixes`, `rename`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from idlc import __version__, pipeline
from idlc.diagnostics import Diagnostic, Diagnostics, Severity
from idlc.lsp import complete as completion
from idlc.lsp import hover as hovering
from idlc.lsp.analysis import Analysis
from idlc.lsp.fixes import fix_for
from idlc.lsp.index import (
    ATOM,
    IMPORTED,
    INTERFACE,
    OPERATION,
    RELATION,
    TYPEDEF,
    VALUE,
    Declaration,
    Index,
    Occurrence,
    build_index,
)
from idlc.lsp.positions import Lines
from idlc.lsp.rename import RenameRefused, rename_edits
from idlc.lsp.service import Service
from idlc.lsp.units import resolved
from idlc.resources import data_dir
from idlc.source import SourceFile, Span
from idlc.syntax import parser
from idlc.syntax.format import format_file

_log = logging.getLogger(__name__)

_SYMBOL_KINDS = {
    ATOM: lsp.SymbolKind.Constant,
    TYPEDEF: lsp.SymbolKind.Struct,
    INTERFACE: lsp.SymbolKind.Interface,
    IMPORTED: lsp.SymbolKind.Interface,
    VALUE: lsp.SymbolKind.Property,
    RELATION: lsp.SymbolKind.Field,
    OPERATION: lsp.SymbolKind.Method,
}
_COMPLETION_KINDS = {
    "keyword": lsp.CompletionItemKind.Keyword,
    ATOM: lsp.CompletionItemKind.Constant,
    TYPEDEF: lsp.CompletionItemKind.Struct,
    INTERFACE: lsp.CompletionItemKind.Interface,
    IMPORTED: lsp.CompletionItemKind.Interface,
}

_Result = TypeVar("_Result")


def _default_docs_url() -> str | None:
    """docs/language.md as installed with idlc (a wheel carries it under `_data`)."""
    try:
        return (data_dir("docs") / "language.md").as_uri()
    except FileNotFoundError:
        return None


class IdlLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("idlc", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.service = Service()
        self.service.report_bug = self.report_bug
        self.docs_url: str | None = _default_docs_url()
        #: resolved path → the URI the editor uses for it (its spelling wins when open)
        self.uris: dict[Path, str] = {}
        #: unit key → URIs last given diagnostics, so fixed files get theirs cleared
        self.published: dict[tuple[str, ...], set[str]] = {}

    def report_bug(self, trace: str) -> None:
        self.window_log_message(
            lsp.LogMessageParams(
                lsp.MessageType.Error,
                "idlc: internal error (a bug in idlc; please report it):\n" + trace,
            )
        )

    @property
    def encoding(self) -> str:
        """The position encoding agreed with the client: "utf-8", "utf-16" or "utf-32"."""
        agreed = self.workspace.position_encoding
        if isinstance(agreed, lsp.PositionEncodingKind):
            return agreed.value  # str() of the enum member is its qualified name
        return agreed or "utf-16"

    # -- paths, URIs and positions -------------------------------------------------------

    def uri(self, path: Path) -> str:
        return self.uris.get(resolved(path)) or from_fs_path(str(path)) or path.as_uri()

    def range(self, span: Span, analysis: Analysis) -> lsp.Range:
        source = analysis.compilation.sources.get(span.file)
        lines = Lines(source.text if source is not None else "", self.encoding)
        return _range(lines, span)

    def location(self, span: Span, analysis: Analysis) -> lsp.Location | None:
        path = analysis.paths.get(span.file)
        if path is None:
            return None
        return lsp.Location(self.uri(path), self.range(span, analysis))

    # -- diagnostics ----------------------------------------------------------------------

    def publish(self, analysis: Analysis, origin: Path) -> None:
        by_uri: dict[str, list[lsp.Diagnostic]] = {}
        for diagnostic in analysis.diagnostics:
            converted = self.diagnostic(diagnostic, analysis)
            if diagnostic.span is not None and diagnostic.span.file in analysis.paths:
                uri = self.uri(analysis.paths[diagnostic.span.file])
            else:
                uri = self.uri(origin)  # a problem of the unit, not of one place
            by_uri.setdefault(uri, []).append(converted)
        # Files with nothing to report are told only if they had something before (a big
        # unit's clean files are not sent an empty list on every keystroke), and the
        # documents the editor has open always are, so their state is never left unknown.
        key = analysis.unit.key
        for uri in self.published.get(key, set()) | self.open_uris(analysis):
            by_uri.setdefault(uri, [])
        self.published[key] = {uri for uri, items in by_uri.items() if items}
        for uri, items in by_uri.items():
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri, items))

    def open_uris(self, analysis: Analysis) -> set[str]:
        open_paths = self.service.texts
        return {self.uri(path) for path in analysis.paths.values() if path in open_paths}

    def diagnostic(self, diagnostic: Diagnostic, analysis: Analysis) -> lsp.Diagnostic:
        span = diagnostic.span
        where = (
            self.range(span, analysis)
            if span is not None and span.file in analysis.paths
            else lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
        )
        message = diagnostic.message
        if diagnostic.help:
            message += f"\nhelp: {diagnostic.help}"
        related = [
            lsp.DiagnosticRelatedInformation(location, item.message)
            for item in diagnostic.related
            if (location := self.location(item.span, analysis)) is not None
        ]
        fix = fix_for(diagnostic)
        return lsp.Diagnostic(
            range=where,
            message=message,
            severity=(
                lsp.DiagnosticSeverity.Warning
                if diagnostic.severity is Severity.WARNING
                else lsp.DiagnosticSeverity.Error
            ),
            code=diagnostic.code.id,
            code_description=(
                lsp.CodeDescription(f"{self.docs_url}#{diagnostic.code.id.lower()}")
                if self.docs_url
                else None
            ),
            source="idlc",
            related_information=related or None,
            data={"fix": {"title": fix.title, "newText": fix.new_text}} if fix else None,
        )

    # -- finding what is under the cursor --------------------------------------------------

    async def at(
        self, uri: str, position: lsp.Position
    ) -> tuple[Analysis, Occurrence | None]:
        path = _path(uri)
        analysis = await self.service.for_request(path)
        display = analysis.display(path)
        source = analysis.source(path)
        if display is None or source is None:
            return analysis, None
        offset = Lines(source.text, self.encoding).offset(position.line, position.character)
        return analysis, analysis.index.at(display, offset)


def _range(lines: Lines, span: Span) -> lsp.Range:
    (line, character), (end_line, end_character) = lines.span_range(span)
    return lsp.Range(lsp.Position(line, character), lsp.Position(end_line, end_character))


def _path(uri: str) -> Path:
    path = to_fs_path(uri)
    if path is None:
        raise JsonRpcInvalidRequest(f"idlc works on files, not on {uri}")
    return Path(path)


server = IdlLanguageServer()


def _guarded(
    default: Any = None,
) -> Callable[[Callable[..., Awaitable[_Result]]], Callable[..., Awaitable[_Result]]]:
    """A bug in idlc is logged to the editor with its traceback; the server goes on."""

    def decorate(handler: Callable[..., Awaitable[_Result]]) -> Callable[..., Awaitable[_Result]]:
        @functools.wraps(handler)
        async def guarded(ls: IdlLanguageServer, params: Any) -> Any:
            try:
                return await handler(ls, params)
            except (RenameRefused, JsonRpcInvalidRequest):
                raise
            except Exception:  # noqa: BLE001 - the last line of defence
                ls.report_bug(traceback.format_exc())
                return default

        return guarded

    return decorate


# -- life cycle -------------------------------------------------------------------------


@server.feature(lsp.INITIALIZE)
def initialize(ls: IdlLanguageServer, params: lsp.InitializeParams) -> None:
    folders = [Path(p) for f in params.workspace_folders or [] if (p := to_fs_path(f.uri))]
    if not folders and params.root_uri and (root := to_fs_path(params.root_uri)):
        folders = [Path(root)]
    ls.service.units.set_folders(folders)
    options = params.initialization_options
    if isinstance(options, dict) and isinstance(options.get("docsUrl"), str):
        ls.docs_url = options["docsUrl"] or None


@server.feature(lsp.INITIALIZED)
def initialized(ls: IdlLanguageServer, params: lsp.InitializedParams) -> None:
    capabilities = ls.client_capabilities.workspace
    watched = capabilities.did_change_watched_files if capabilities else None
    if watched is not None and watched.dynamic_registration:
        ls.client_register_capability(
            lsp.RegistrationParams(
                [
                    lsp.Registration(
                        "idlc-watch",
                        lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        lsp.DidChangeWatchedFilesRegistrationOptions(
                            [
                                lsp.FileSystemWatcher("**/*.idl"),
                                lsp.FileSystemWatcher("**/pyproject.toml"),
                            ]
                        ),
                    )
                ]
            )
        )


@server.feature(lsp.SHUTDOWN)
def shutdown(ls: IdlLanguageServer, params: None) -> None:
    ls.service.close()


# -- documents --------------------------------------------------------------------------


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
@_guarded()
async def did_open(ls: IdlLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
    path = to_fs_path(params.text_document.uri)
    if path is None:
        return
    ls.uris[resolved(Path(path))] = params.text_document.uri
    ls.service.opened(Path(path), params.text_document.text)
    ls.service.schedule(Path(path), ls.publish)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
@_guarded()
async def did_change(ls: IdlLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
    path = to_fs_path(params.text_document.uri)
    if path is None:
        return
    document = ls.workspace.get_text_document(params.text_document.uri)
    ls.service.changed(Path(path), document.source)
    ls.service.schedule(Path(path), ls.publish)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
@_guarded()
async def did_close(ls: IdlLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
    path = to_fs_path(params.text_document.uri)
    if path is None:
        return
    ls.service.closed(Path(path))
    ls.service.schedule(Path(path), ls.publish)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
@_guarded()
async def did_save(ls: IdlLanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
    ls.service.files_changed()
    ls.service.refresh_all(ls.publish)


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@_guarded()
async def did_change_watched_files(
    ls: IdlLanguageServer, params: lsp.DidChangeWatchedFilesParams
) -> None:
    ls.service.files_changed()
    ls.service.refresh_all(ls.publish)


# -- navigation -------------------------------------------------------------------------


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
@_guarded()
async def hover(ls: IdlLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
    analysis, found = await ls.at(params.text_document.uri, params.position)
    if found is None:
        return None
    declared = analysis.index.declared(found.key)
    if not declared:
        return None
    text = hovering.hover_markdown(declared[0], analysis.index, analysis.compilation.sources)
    return lsp.Hover(
        lsp.MarkupContent(lsp.MarkupKind.Markdown, text), ls.range(found.span, analysis)
    )


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
@_guarded()
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
@_guarded()
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
@_guarded()
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
@_guarded()
async def prepare_rename(
    ls: IdlLanguageServer, params: lsp.PrepareRenameParams
) -> lsp.PrepareRenamePlaceholder | None:
    analysis, found = await ls.at(params.text_document.uri, params.position)
    if found is None or not analysis.index.declared(found.key):
        raise JsonRpcInvalidRequest("only declared names (atoms, types, interfaces, members) can be renamed here")
    return lsp.PrepareRenamePlaceholder(ls.range(found.span, analysis), found.key[-1])


@server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
@_guarded()
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
            changes.setdefault(location.uri, []).append(lsp.TextEdit(location.range, params.new_name))
    return lsp.WorkspaceEdit(changes=changes)


# -- symbols ------------------------------------------------------------------------------


def _symbol_range(decl: Declaration) -> Span:
    return decl.node.span


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@_guarded()
async def document_symbols(
    ls: IdlLanguageServer, params: lsp.DocumentSymbolParams
) -> list[lsp.DocumentSymbol] | None:
    path = _path(params.text_document.uri)
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
                if decl.kind == INTERFACE and member.span.file == display
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
        range=ls.range(_symbol_range(decl), analysis),
        selection_range=ls.range(decl.span, analysis),
        detail=decl.kind,
        children=children or None,
    )


@server.feature(lsp.WORKSPACE_SYMBOL)
@_guarded()
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
            try:
                data = text.encode("utf-8", "surrogatepass") if text is not None else path.read_bytes()
            except OSError:
                continue
            display = pipeline.display_path(path)
            result = cache.parse(display, data)
            if result.file is not None and result.source is not None:
                parsed.append(result.file)
                paths[display] = path
                sources[display] = result.source
        index = build_index(parsed)
        found = []
        for decls in index.declarations.values():
            for decl in decls:
                if query in decl.name.lower():
                    lines = Lines(sources[decl.span.file].text, encoding)
                    found.append((decl, paths[decl.span.file], _range(lines, decl.span)))
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


# -- editing ------------------------------------------------------------------------------


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
@_guarded()
async def formatting(
    ls: IdlLanguageServer, params: lsp.DocumentFormattingParams
) -> list[lsp.TextEdit] | None:
    uri = params.text_document.uri
    path = _path(uri)
    text = ls.workspace.get_text_document(uri).source
    display = pipeline.display_path(path)

    def format_text() -> str | None:
        source = SourceFile(display, text)
        file = parser.parse(source, Diagnostics())
        return format_file(file, source) if file is not None else None

    formatted = await ls.service.run(format_text)
    if not isinstance(formatted, str) or formatted == text:
        return [] if formatted == text else None  # None: syntax errors, nothing to format
    lines = Lines(text, ls.encoding)
    end = lines.position(len(text))
    return [
        lsp.TextEdit(
            lsp.Range(lsp.Position(0, 0), lsp.Position(end[0], end[1])), formatted
        )
    ]


@server.feature(
    lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["<", ":", "{"])
)
@_guarded()
async def completions(
    ls: IdlLanguageServer, params: lsp.CompletionParams
) -> lsp.CompletionList | None:
    uri = params.text_document.uri
    path = _path(uri)
    text = ls.workspace.get_text_document(uri).source
    analysis = await ls.service.names(path)
    lines = Lines(text, ls.encoding)
    cursor = lines.offset(params.position.line, params.position.character)
    # Off the event loop, beside the worker (this parse is re-entrant, the compiler's is
    # not): a long file's prefix takes a while to parse.
    found = await asyncio.to_thread(completion.complete, text, cursor, analysis.index)
    start = lines.position(found.start)
    replaced = lsp.Range(lsp.Position(*start), params.position)
    items = [
        lsp.CompletionItem(
            label=candidate.label,
            kind=_COMPLETION_KINDS.get(candidate.kind, lsp.CompletionItemKind.Text),
            detail=candidate.detail,
            documentation=(
                lsp.MarkupContent(lsp.MarkupKind.Markdown, candidate.documentation)
                if candidate.documentation
                else None
            ),
            text_edit=lsp.TextEdit(replaced, candidate.label),
            sort_text=("1" if candidate.kind == "keyword" else "0") + candidate.label,
        )
        for candidate in found.candidates
    ]
    return lsp.CompletionList(is_incomplete=False, items=items)


@server.feature(
    lsp.TEXT_DOCUMENT_CODE_ACTION,
    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]),
)
@_guarded()
async def code_actions(
    ls: IdlLanguageServer, params: lsp.CodeActionParams
) -> list[lsp.CodeAction] | None:
    actions: list[lsp.CodeAction] = []
    for diagnostic in params.context.diagnostics:
        data = diagnostic.data
        fix = data.get("fix") if isinstance(data, dict) else None
        if not (isinstance(fix, dict) and isinstance(fix.get("newText"), str)):
            continue
        actions.append(
            lsp.CodeAction(
                title=str(fix.get("title") or "Apply the suggested fix"),
                kind=lsp.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                is_preferred=True,
                edit=lsp.WorkspaceEdit(
                    changes={
                        params.text_document.uri: [lsp.TextEdit(diagnostic.range, fix["newText"])]
                    }
                ),
            )
        )
    return actions


def serve() -> None:
    """Serve on stdin/stdout until the editor says `exit`."""
    logging.basicConfig(level=logging.WARNING)
    server.start_io()


__all__ = ["server", "serve", "Index"]
