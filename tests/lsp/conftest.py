"""A real LSP client (pytest-lsp) talking to `python -m idlc lsp` over stdio, on a
two-file workspace: a type declared in one file, used and misspelt in the other."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest_asyncio
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

#: Upper bound for the server to answer (a bound against hangs, not a speed check).
PATIENCE = 30.0

DECLARING = """\
/// A person's public profile.
type Profile = record {
  name : string;
};

external atom Note id "atom:test:note";
"""

USING = """\
interface Directory id "interface:test:directory" revision "interface:test:directory@1" {
  /// Looks a profile up.
  operation lookup id "directory:lookup" : record { id : string; } -> Proflie { call id "directory:lookup:call" execution snapshot; }
  operation fetch id "directory:fetch" : atom-ref<Note> -> Profile { call id "directory:fetch:call" execution snapshot; }
}
"""

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "idlc", "lsp"])


class Workspace:
    """The files of one test and the client that edits them."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client = client
        self.root = root
        self.versions: dict[str, int] = {}

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    def open(self, name: str, text: str | None = None) -> str:
        uri = self.uri(name)
        if text is None:
            text = (self.root / name).read_text(encoding="utf-8")
        self.versions[uri] = 1
        self.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "idl", 1, text))
        )
        return uri

    def replace_all(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(self.versions[uri], uri),
                [lsp.TextDocumentContentChangeWholeDocument(text)],
            )
        )

    def edit(self, uri: str, start: lsp.Position, end: lsp.Position, text: str) -> None:
        self.versions[uri] += 1
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(self.versions[uri], uri),
                [lsp.TextDocumentContentChangePartial(lsp.Range(start, end), text)],
            )
        )

    async def diagnostics(
        self, uri: str, until: Callable[[Sequence[lsp.Diagnostic]], bool]
    ) -> Sequence[lsp.Diagnostic]:
        """The diagnostics of `uri` once they satisfy `until` (published, debounced)."""

        async def wait() -> Sequence[lsp.Diagnostic]:
            while True:
                found = self.client.diagnostics.get(uri)
                if found is not None and until(found):
                    return list(found)
                await self.client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

        return await asyncio.wait_for(wait(), PATIENCE)


def position_of(text: str, needle: str, occurrence: int = 0, delta: int = 0) -> lsp.Position:
    """The LSP position of the `occurrence`-th `needle` in `text` (ASCII), plus `delta`."""
    offset = -1
    for _ in range(occurrence + 1):
        offset = text.index(needle, offset + 1)
    offset += delta
    line = text.count("\n", 0, offset)
    return lsp.Position(line, offset - (text.rfind("\n", 0, offset) + 1))


def initialize_params(
    root: Path | None, encodings: list[str] | None = None
) -> lsp.InitializeParams:
    return lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(
            general=(
                lsp.GeneralClientCapabilities(position_encodings=encodings) if encodings else None
            ),
            text_document=lsp.TextDocumentClientCapabilities(
                hover=lsp.HoverClientCapabilities(content_format=[lsp.MarkupKind.Markdown]),
                completion=lsp.CompletionClientCapabilities(
                    completion_item=lsp.ClientCompletionItemOptions(
                        documentation_format=[lsp.MarkupKind.Markdown]
                    )
                ),
                rename=lsp.RenameClientCapabilities(prepare_support=True),
                publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(
                    related_information=True, code_description_support=True, data_support=True
                ),
            ),
            workspace=lsp.WorkspaceClientCapabilities(workspace_folders=True),
        ),
        root_uri=root.as_uri() if root is not None else None,
        workspace_folders=(
            [lsp.WorkspaceFolder(root.as_uri(), root.name)] if root is not None else []
        ),
    )


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """One server for a module's tests (starting one takes a while on a small machine);
    each test gives it a workspace folder of its own."""
    await lsp_client.initialize_session(initialize_params(None))
    yield
    await lsp_client.shutdown_session()


def _folders(client: LanguageClient, added: list[Path], removed: list[Path]) -> None:
    client.workspace_did_change_workspace_folders(
        lsp.DidChangeWorkspaceFoldersParams(
            lsp.WorkspaceFoldersChangeEvent(
                added=[lsp.WorkspaceFolder(path.as_uri(), path.name) for path in added],
                removed=[lsp.WorkspaceFolder(path.as_uri(), path.name) for path in removed],
            )
        )
    )


@pytest_asyncio.fixture(loop_scope="module")
async def workspace(client: LanguageClient, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The two-file workspace, a workspace folder of the running server for one test."""
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "a.idl").write_text(DECLARING, encoding="utf-8")
    (root / "b.idl").write_text(USING, encoding="utf-8")
    _folders(client, [root], [])
    opened = Workspace(client, root)
    yield opened
    for uri in opened.versions:
        client.text_document_did_close(
            lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri))
        )
    _folders(client, [], [root])


@pytest_asyncio.fixture(loop_scope="module")
async def lsp_client_factory(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Starts servers whose client asks for a position encoding; stops them afterwards."""
    started: list[LanguageClient] = []
    root = tmp_path / "workspace"
    root.mkdir(exist_ok=True)

    async def start(encoding: str) -> LanguageClient:
        client = await SERVER.start()
        assert isinstance(client, LanguageClient)
        started.append(client)
        response = await client.initialize_session(initialize_params(root, [encoding]))
        assert response.capabilities.position_encoding == encoding
        return client

    yield start
    for client in started:
        await client.shutdown_session()
        await client.stop()
