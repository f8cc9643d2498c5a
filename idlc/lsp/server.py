"""`idlc lsp`: the Language Server Protocol over stdio, on pygls.

This module has the server itself: its state, conversions between spans and LSP locations,
the life cycle, document synchronisation and diagnostics. The requests are answered in
`navigation` and `editing`. All three translate between LSP and the modules beside them,
which know nothing of LSP: `service` (units and analyses), `index` (names), `hover`,
`complete`, `fixes`, `rename`.
"""

from __future__ import annotations

import functools
import logging
import sys
import traceback
from collections.abc import Awaitable, Callable, Generator
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import from_fs_path, to_fs_path

from idlc import __version__
from idlc.boundedread import MAX_INPUT_BYTES, read_input, size_text, text_over_limit
from idlc.diagnostics import Diagnostic, Severity
from idlc.lsp.analysis import Analysis
from idlc.lsp.fixes import fix_for
from idlc.lsp.index import Occurrence
from idlc.lsp.positions import Lines
from idlc.lsp.rename import RenameRefused
from idlc.lsp.service import Service
from idlc.lsp.stdio import MAX_MESSAGE_BYTES, TOO_LARGE_METHOD, BoundedStdin
from idlc.lsp.units import resolved
from idlc.resources import data_dir
from idlc.source import SourceFile, Span

#: How many files' `Lines` are kept (those of the latest analyses' files).
_LINES_KEPT = 4096

_Result = TypeVar("_Result")
_Params = TypeVar("_Params")


def _default_docs_url() -> str | None:
    """docs/language.md as installed with idlc (a wheel carries it under `_data`)."""
    try:
        return (data_dir("docs") / "language.md").as_uri()
    except FileNotFoundError:
        return None


#: What `structure_message` gives for a request it has answered with an error itself.
_ANSWERED = object()


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, except that it does not apply edits to documents of its own.

    pygls splits lines as Python's `str.splitlines` does (at form feeds, `\x1c`, `\u2028`
    …), not as LSP says (`\r\n`, `\n`, `\r`), so its copy of a document drifts from the
    editor's; the server keeps the texts itself (`Service.texts`, edited with `Lines`).
    """

    def structure_message(self, data: dict[str, Any]) -> Any:
        """pygls's, except that a request whose params do not fit its method (rename
        without `newName`, hover without `position`, `params: null`) is answered with an
        error. pygls raises from inside `json.loads` there, where the request's id is lost,
        and the request is never answered: the editor waits for ever."""
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            method = data.get("method")
            request_id = data.get("id")
            is_request = isinstance(method, str) and "error" not in data
            if (
                not is_request
                or not isinstance(request_id, (str, int))
                or isinstance(request_id, bool)
            ):
                raise  # a malformed notification or response: there is no one to answer
            code = (
                JsonRpcInvalidParams.CODE
                if isinstance(error, JsonRpcInvalidParams)
                else JsonRpcInvalidRequest.CODE
            )
            explained = f"the params of {method} do not have the members and types LSP says"
            self._send_response(request_id, error=lsp.ResponseError(code, explained))
            return _ANSWERED

    def handle_message(self, message: Any) -> None:
        if message is not _ANSWERED:
            super().handle_message(message)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: lsp.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None


class IdlLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "idlc",
            __version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            protocol_cls=_Protocol,
        )
        self.service = Service()
        self.service.report_bug = self.report_bug
        self.docs_url: str | None = _default_docs_url()
        #: resolved path → the URI the editor uses for it (its spelling wins when open)
        self.uris: dict[Path, str] = {}
        #: unit key → URIs last given diagnostics, so fixed files get theirs cleared
        self.published: dict[tuple[str, ...], set[str]] = {}
        self._lines: dict[tuple[int, str], tuple[SourceFile, Lines]] = {}

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

    def lines(self, source: SourceFile | None) -> Lines:
        """The `Lines` of a file's text, made once per text (a unit's files' spans are
        converted many at a time: every diagnostic, every reference)."""
        if source is None:
            return Lines("", self.encoding)
        key = (id(source), self.encoding)
        known = self._lines.get(key)
        if known is None or known[0] is not source:
            if len(self._lines) >= _LINES_KEPT:
                self._lines.clear()
            known = self._lines[key] = (source, Lines(source.text, self.encoding))
        return known[1]

    def range(self, span: Span, analysis: Analysis) -> lsp.Range:
        return range_of(self.lines(analysis.compilation.sources.get(span.file)), span)

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

    def text(self, uri: str) -> str:
        """The editor's text of an open document (its text on disk if it is not open)."""
        path = resolved(path_of(uri))
        text = self.service.texts.get(path)
        if text is None:
            try:
                text = read_input(path).decode("utf-8", errors="replace")
            except OSError:
                raise JsonRpcInvalidRequest(f"{uri} is neither open nor readable") from None
        elif text_over_limit(text):
            # Never parsed (formatting, completion), as a file on disk over it is not.
            raise JsonRpcInvalidRequest(
                f"{uri} is larger than {size_text(MAX_INPUT_BYTES)}: not read"
            )
        return text

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

    async def at(self, uri: str, position: lsp.Position) -> tuple[Analysis, Occurrence | None]:
        path = path_of(uri)
        analysis = await self.service.for_request(path)
        display = analysis.display(path)
        source = analysis.source(path)
        if display is None or source is None:
            return analysis, None
        offset = self.lines(source).offset(position.line, position.character)
        return analysis, analysis.index.at(display, offset)


def range_of(lines: Lines, span: Span) -> lsp.Range:
    (line, character), (end_line, end_character) = lines.span_range(span)
    return lsp.Range(lsp.Position(line, character), lsp.Position(end_line, end_character))


def file_path(uri: str) -> str | None:
    """The local path a `file:` URI names; None for any other URI and for one whose path
    no file can have (a NUL byte, `%00`: every system call would refuse it)."""
    try:
        path = to_fs_path(uri)
    except (ValueError, TypeError):  # a malformed URI
        return None
    if path is None or "\x00" in path:
        return None
    return path


def path_of(uri: str) -> Path:
    path = file_path(uri)
    if path is None:
        raise JsonRpcInvalidRequest(f"idlc works on files, not on {uri!r}")
    return Path(path)


server = IdlLanguageServer()


def guarded(
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


def guarded_notification(
    handler: Callable[[IdlLanguageServer, _Params], None],
) -> Callable[[IdlLanguageServer, _Params], None]:
    """`guarded` for the document notifications, which stay synchronous: each is handled
    in full before the next message is read, so edits apply in the order they were sent."""

    @functools.wraps(handler)
    def guarded(ls: IdlLanguageServer, params: _Params) -> None:
        try:
            handler(ls, params)
        except Exception:  # noqa: BLE001 - the last line of defence
            ls.report_bug(traceback.format_exc())

    return guarded


# -- life cycle -------------------------------------------------------------------------


@server.feature(lsp.INITIALIZE)
def initialize(ls: IdlLanguageServer, params: lsp.InitializeParams) -> None:
    folders = [Path(p) for f in params.workspace_folders or [] if (p := file_path(f.uri))]
    if not folders and params.root_uri and (root := file_path(params.root_uri)):
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
@guarded_notification
def did_open(ls: IdlLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
    path = file_path(params.text_document.uri)
    if path is None:
        return
    ls.uris[resolved(Path(path))] = params.text_document.uri
    ls.service.opened(Path(path), params.text_document.text)
    ls.service.schedule(Path(path), ls.publish)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
@guarded_notification
def did_change(ls: IdlLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
    path = file_path(params.text_document.uri)
    if path is None:
        return
    text = ls.service.texts.get(resolved(Path(path)), "")
    for change in params.content_changes:
        if isinstance(change, lsp.TextDocumentContentChangePartial):
            start, end = change.range.start, change.range.end
            text = Lines(text, ls.encoding).apply(
                (start.line, start.character), (end.line, end.character), change.text
            )
        else:
            text = change.text
    ls.service.changed(Path(path), text)
    ls.service.schedule(Path(path), ls.publish)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
@guarded_notification
def did_close(ls: IdlLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
    path = file_path(params.text_document.uri)
    if path is None:
        return
    ls.service.closed(Path(path))
    ls.service.schedule(Path(path), ls.publish)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
@guarded()
async def did_save(ls: IdlLanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
    ls.service.files_changed()
    ls.service.refresh_all(ls.publish)


@server.feature(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
@guarded_notification
def did_change_workspace_folders(
    ls: IdlLanguageServer, params: lsp.DidChangeWorkspaceFoldersParams
) -> None:
    # pygls has updated `ls.workspace.folders` (and announces support for this to clients).
    folders = [file_path(folder.uri) for folder in ls.workspace.folders.values()]
    ls.service.units.set_folders(Path(folder) for folder in folders if folder)
    ls.service.files_changed()
    ls.service.refresh_all(ls.publish)


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@guarded()
async def did_change_watched_files(
    ls: IdlLanguageServer, params: lsp.DidChangeWatchedFilesParams
) -> None:
    ls.service.files_changed()
    ls.service.refresh_all(ls.publish)


@server.feature(TOO_LARGE_METHOD)
def message_too_large(ls: IdlLanguageServer, params: Any) -> None:
    """A message from the editor too long to read was dropped (`idlc.lsp.stdio`): say so,
    since the request in it is never answered and the edit in it never applied."""
    size = getattr(params, "size", "?")
    ls.window_show_message(
        lsp.ShowMessageParams(
            lsp.MessageType.Error,
            f"idlc: a message of {size} bytes from the editor is larger than "
            f"{size_text(MAX_MESSAGE_BYTES)}: not read (a request in it is not answered, "
            f"an edit in it not applied: close and reopen the document once it is within "
            f"the {size_text(MAX_INPUT_BYTES)} idlc reads)",
        )
    )


def serve() -> None:
    """Serve on stdin/stdout until the editor says `exit`."""
    # The request handlers register themselves on `server` as they are imported.
    from idlc.lsp import editing, navigation  # noqa: F401

    logging.basicConfig(level=logging.WARNING)
    server.start_io(stdin=BoundedStdin(sys.stdin.buffer))  # type: ignore[arg-type]


__all__ = ["server", "serve"]
