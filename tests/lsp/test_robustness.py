"""Random edits of a seed never break the server: it keeps answering every request, logs
no internal error, and its diagnostics for the edited text are what `idlc check` reports for
that text (hypothesis, a bounded budget).

Hypothesis drives a synchronous test, so the client runs on an event loop in a thread of
its own, and one server serves every example.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import threading
from collections.abc import Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from idlc.pipeline import compile_files
from tests.conftest import SEEDS
from tests.lsp.conftest import PATIENCE, SERVER, initialize_params

_T = TypeVar("_T")

#: Pieces of IDL (and of what is not IDL) that random edits insert.
_FRAGMENTS = [
    "{", "}", ";", "<", ">", ":", "->", '"', "=", "-", "type ", "interface ", "atom-ref<",
    "interface-ref<", "record {", "/// doc\n", "/*", "*/", "//", "\n", "\r\n", " ", "é", "😀",
    "RequestData", "queryable value v id \"v\" : ", "operation o id \"o\" : unit -> unit ",
    "{ call id \"o:call\" execution snapshot; }", "external atom A id \"a\";", "\\u12",
    "optional<", "list<", "map<string, ", "0", "-1.5e3", "@", "\t", "\x00",
]  # fmt: skip


class Session:
    """One client and server, driven from synchronous code."""

    def __init__(self, root: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client: LanguageClient = self.run(SERVER.start())  # type: ignore[arg-type]
        self.run(self.client.initialize_session(initialize_params(root)))

    def run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(PATIENCE)

    def close(self) -> None:
        try:
            self.run(self.client.shutdown_session())
            self.run(self.client.stop())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(PATIENCE)


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where `idlc check`'s view of the edited text is written: the seeds, one edited."""
    root = tmp_path_factory.mktemp("seed-mirror")
    for seed in SEEDS:
        shutil.copy(seed, root / seed.name)
    return root


def _checked(mirror: Path, text: str) -> list[tuple[str, str, int, int]]:
    """What `idlc check` reports in the edited file: code, message and help, start (LSP)."""
    edited = mirror / SEEDS[1].name
    edited.write_bytes(text.encode("utf-8", "surrogatepass"))
    compilation = compile_files([mirror / seed.name for seed in SEEDS])
    found = []
    for item in compilation.diagnostics:
        if item.span is None or not item.span.file.endswith(SEEDS[1].name):
            continue
        message = item.message + (f"\nhelp: {item.help}" if item.help else "")
        start = _position(text, item.span.start)
        found.append((item.code.id, message, start.line, start.character))
    return sorted(found)


def _published(diagnostics: Sequence[lsp.Diagnostic] | None) -> list[tuple[str, str, int, int]]:
    return sorted(
        (str(item.code), item.message, item.range.start.line, item.range.start.character)
        for item in diagnostics or []
    )


async def _settled(
    client: LanguageClient, uri: str, expected: list[tuple[str, str, int, int]]
) -> list[tuple[str, str, int, int]]:
    """The server's diagnostics of `uri` once they are `expected`, or the last ones seen."""
    while True:
        seen = _published(client.diagnostics.get(uri))
        if seen == expected:
            return seen
        try:
            await asyncio.wait_for(
                client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), PATIENCE / 3
            )
        except TimeoutError:
            return seen


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Session, str, str]]:
    root = tmp_path_factory.mktemp("seed-workspace")
    for seed in SEEDS:
        shutil.copy(seed, root / seed.name)
    opened = root / SEEDS[1].name
    text = opened.read_text(encoding="utf-8")
    running = Session(root)
    uri = opened.as_uri()
    running.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "idl", 1, text))
    )
    yield running, uri, text
    running.close()


def _position(text: str, offset: int) -> lsp.Position:
    """The LSP position (UTF-16 columns) of a character offset, computed independently.

    LSP lines end at `\r\n`, `\n` or `\r`, and nowhere else (not at a form feed)."""
    breaks = list(re.finditer(r"\r\n|\r|\n", text[:offset]))
    column = text[breaks[-1].end() if breaks else 0 : offset]
    return lsp.Position(len(breaks), len(column.encode("utf-16-le", "surrogatepass")) // 2)


def _outside_line_breaks(text: str, offset: int) -> int:
    """No position lies between the `\r` and the `\n` of a line break: move before it."""
    return offset - 1 if text[offset - 1 : offset + 1] == "\r\n" else offset


_edit = st.tuples(
    st.integers(min_value=0),
    st.integers(min_value=0, max_value=60),
    st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=8)),
)

_version = iter(range(2, 10**9))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits=st.lists(_edit, min_size=1, max_size=5),
    probes=st.lists(st.integers(min_value=0), max_size=3),
)
def test_random_edits_never_break_the_server(
    session: tuple[Session, str, str],
    mirror: Path,
    edits: list[tuple[int, int, str]],
    probes: list[int],
) -> None:
    running, uri, seed = session
    client = running.client
    document = lsp.TextDocumentIdentifier(uri)
    text = seed
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(next(_version), uri),
            [lsp.TextDocumentContentChangeWholeDocument(text)],
        )
    )
    for start, length, inserted in edits:
        start = _outside_line_breaks(text, start % (len(text) + 1))
        end = _outside_line_breaks(text, min(len(text), start + length))
        change = lsp.TextDocumentContentChangePartial(
            lsp.Range(_position(text, start), _position(text, end)), inserted
        )
        text = text[:start] + inserted + text[end:]
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(next(_version), uri), [change]
            )
        )
    for probe in probes:
        at = _position(text, probe % (len(text) + 1))
        running.run(client.text_document_hover_async(lsp.HoverParams(document, at)))
        running.run(client.text_document_completion_async(lsp.CompletionParams(document, at)))
        running.run(client.text_document_definition_async(lsp.DefinitionParams(document, at)))
        running.run(
            client.text_document_references_async(
                lsp.ReferenceParams(
                    text_document=document,
                    position=at,
                    context=lsp.ReferenceContext(include_declaration=True),
                )
            )
        )
    running.run(
        client.text_document_formatting_async(
            lsp.DocumentFormattingParams(document, lsp.FormattingOptions(2, True))
        )
    )
    symbols = running.run(
        client.text_document_document_symbol_async(lsp.DocumentSymbolParams(document))
    )
    assert symbols is not None  # answered, not failed
    expected = _checked(mirror, text)
    assert running.run(_settled(client, uri, expected)) == expected
    assert client.error is None
    errors = [m.message for m in client.log_messages if m.type == lsp.MessageType.Error]
    assert errors == []
