"""The requests that change text: formatting, completion and quick fixes."""

from __future__ import annotations

import asyncio

from lsprotocol import types as lsp

from idlc import pipeline
from idlc.diagnostics import Diagnostics
from idlc.lsp import complete as completion
from idlc.lsp.index import ATOM, IMPORTED, INTERFACE, TYPEDEF
from idlc.lsp.positions import Lines
from idlc.lsp.server import IdlLanguageServer, guarded, path_of, server
from idlc.source import SourceFile
from idlc.syntax import parser
from idlc.syntax.format import format_file

_COMPLETION_KINDS = {
    "keyword": lsp.CompletionItemKind.Keyword,
    ATOM: lsp.CompletionItemKind.Constant,
    TYPEDEF: lsp.CompletionItemKind.Struct,
    INTERFACE: lsp.CompletionItemKind.Interface,
    IMPORTED: lsp.CompletionItemKind.Interface,
}

# -- editing ------------------------------------------------------------------------------


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
@guarded()
async def formatting(
    ls: IdlLanguageServer, params: lsp.DocumentFormattingParams
) -> list[lsp.TextEdit] | None:
    uri = params.text_document.uri
    path = path_of(uri)
    text = ls.text(uri)
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
    return [lsp.TextEdit(lsp.Range(lsp.Position(0, 0), lsp.Position(end[0], end[1])), formatted)]


@server.feature(
    lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["<", ":", "{"])
)
@guarded()
async def completions(
    ls: IdlLanguageServer, params: lsp.CompletionParams
) -> lsp.CompletionList | None:
    uri = params.text_document.uri
    path = path_of(uri)
    text = ls.text(uri)
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
@guarded()
async def code_actions(
    ls: IdlLanguageServer, params: lsp.CodeActionParams
) -> list[lsp.CodeAction] | None:
    actions: list[lsp.CodeAction] = []
    known: dict[tuple[object, ...], object] | None = None
    for diagnostic in params.context.diagnostics:
        fix = _fix_of(diagnostic.data)
        if fix is None and diagnostic.source == "idlc":
            # A client that does not keep diagnostics' `data`: find the fix again from the
            # document's diagnostics, by code and range.
            if known is None:
                known = await _published_fixes(ls, params.text_document.uri)
            fix = _fix_of(known.get(_place(diagnostic)))
        if fix is None:
            continue
        title, new_text = fix
        actions.append(
            lsp.CodeAction(
                title=title,
                kind=lsp.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                is_preferred=True,
                edit=lsp.WorkspaceEdit(
                    changes={params.text_document.uri: [lsp.TextEdit(diagnostic.range, new_text)]}
                ),
            )
        )
    return actions


def _place(diagnostic: lsp.Diagnostic) -> tuple[object, ...]:
    start, end = diagnostic.range.start, diagnostic.range.end
    return (diagnostic.code, start.line, start.character, end.line, end.character)


def _fix_of(data: object) -> tuple[str, str] | None:
    """(title, new text) of the fix a published diagnostic carries in its `data`."""
    fix = data.get("fix") if isinstance(data, dict) else None
    if not (isinstance(fix, dict) and isinstance(fix.get("newText"), str)):
        return None
    return str(fix.get("title") or "Apply the suggested fix"), fix["newText"]


async def _published_fixes(ls: IdlLanguageServer, uri: str) -> dict[tuple[object, ...], object]:
    path = path_of(uri)
    analysis = await ls.service.for_request(path)
    display = analysis.display(path)
    found: dict[tuple[object, ...], object] = {}
    for diagnostic in analysis.diagnostics:
        if diagnostic.span is not None and diagnostic.span.file == display:
            published = ls.diagnostic(diagnostic, analysis)
            found[_place(published)] = published.data
    return found
