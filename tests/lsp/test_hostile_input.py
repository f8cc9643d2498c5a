"""Hostile input never freezes, crashes or starves the language server: malformed requests
get a JSON-RPC error, a URI with `%00` is a refusal (not an internal error), FIFOs and
`/dev/zero` links in the workspace are diagnostics, and completion, hover and formatting
stay linear in the length of a line (hypothesis: the time for a run of 4n characters is
compared with that for n, within one run; no absolute time is asserted)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import PATIENCE
from tests.lsp.test_robustness import Session

GOOD = "type T = string;\n"

#: A run of n characters is timed against one of 4n: linear work takes ~4 times as long,
#: quadratic ~16. The bound sits between, generously above linear for a noisy machine.
_RATIO_BOUND = 10.0
_RUN = 12_000


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile-workspace")
    (root / "good.idl").write_text(GOOD, encoding="utf-8")
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "x.idl")
    (root / "zero.idl").symlink_to("/dev/zero")
    return root


@pytest.fixture(scope="module")
def session(workspace: Path) -> Iterator[Session]:
    running = Session(workspace)
    yield running
    running.close()


def _internal_errors(session: Session) -> list[str]:
    return [
        message.message
        for message in session.client.log_messages
        if message.type == lsp.MessageType.Error and "internal error" in message.message
    ]


def _raw(session: Session, method: str, params: Any) -> Any:
    """Send `params` as they are, as bytes on the server's stdin: the client would
    structure them (and refuse to send what does not fit)."""
    protocol = session.client.protocol
    request_id = f"raw-{next(_versions)}"

    async def send() -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        protocol._request_futures[request_id] = future
        body = json.dumps(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        ).encode()
        assert protocol.writer is not None
        protocol.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return await asyncio.wait_for(future, PATIENCE)

    return session.run(send())


def _document(workspace: Path) -> dict[str, str]:
    return {"uri": (workspace / "good.idl").as_uri()}


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("textDocument/rename", {"position": {"line": 0, "character": 5}}),
        ("textDocument/hover", {}),
        ("textDocument/hover", None),
        ("textDocument/completion", None),
        ("textDocument/definition", {"position": {"line": 0, "character": "x"}}),
        ("textDocument/formatting", {}),
        ("textDocument/references", {"position": {"line": 0, "character": 5}}),
        ("workspace/symbol", None),
    ],
)
def test_malformed_params_get_an_error_answer(
    session: Session, workspace: Path, method: str, params: Any
) -> None:
    if isinstance(params, dict) and method != "workspace/symbol":
        params = {"textDocument": _document(workspace), **params}
    with pytest.raises(JsonRpcException) as raised:
        _raw(session, method, params)
    assert raised.value.code == -32602
    # The server goes on answering.
    document = lsp.TextDocumentIdentifier(_document(workspace)["uri"])
    session.run(
        session.client.text_document_hover_async(lsp.HoverParams(document, lsp.Position(0, 5)))
    )
    assert _internal_errors(session) == []


@pytest.mark.parametrize("uri", ["file:///tmp/a%00b.idl", "file:///%00", "file:///tmp/%00/x.idl"])
def test_a_nul_in_a_uri_is_refused_not_an_internal_error(session: Session, uri: str) -> None:
    client = session.client
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "idl", 1, GOOD))
    )
    document = lsp.TextDocumentIdentifier(uri)
    for request in (
        client.text_document_hover_async(lsp.HoverParams(document, lsp.Position(0, 5))),
        client.text_document_completion_async(lsp.CompletionParams(document, lsp.Position(0, 5))),
        client.text_document_formatting_async(
            lsp.DocumentFormattingParams(document, lsp.FormattingOptions(2, True))
        ),
    ):
        with pytest.raises(JsonRpcException) as raised:
            session.run(request)
        assert raised.value.code == -32600
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(document))
    assert _internal_errors(session) == []


def test_fifos_and_devices_in_the_workspace_are_diagnostics(
    session: Session, workspace: Path
) -> None:
    client = session.client
    symbols = session.run(client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="T")))
    assert symbols is not None and any(symbol.name == "T" for symbol in symbols)
    for name in ("x.idl", "zero.idl"):
        if not (workspace / name).exists() and not (workspace / name).is_symlink():
            continue
        uri = (workspace / name).as_uri()
        document = lsp.TextDocumentIdentifier(uri)
        # Asked about a file that is not open: it is read from disk, which it must not be.
        with pytest.raises(JsonRpcException):
            session.run(
                client.text_document_formatting_async(
                    lsp.DocumentFormattingParams(document, lsp.FormattingOptions(2, True))
                )
            )
        session.run(client.text_document_hover_async(lsp.HoverParams(document, lsp.Position(0, 0))))
    messages = " ".join(item.message for items in client.diagnostics.values() for item in items)
    assert "not a regular file" in messages or not client.diagnostics
    assert _internal_errors(session) == []


def _timed(session: Session, uri: str, text: str, request: str) -> float:
    """The shortest of three answers to `request` at the end of `text` (open as `uri`)."""
    client = session.client
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(next(_versions), uri),
            [lsp.TextDocumentContentChangeWholeDocument(text)],
        )
    )
    document = lsp.TextDocumentIdentifier(uri)
    lines = text.split("\n")
    end = lsp.Position(len(lines) - 1, len(lines[-1]))
    middle = lsp.Position(len(lines) - 1, len(lines[-1]) // 2)
    best = float("inf")
    for _ in range(3):
        if request == "completion":
            call = client.text_document_completion_async(lsp.CompletionParams(document, end))
        elif request == "hover":
            call = client.text_document_hover_async(lsp.HoverParams(document, middle))
        else:
            call = client.text_document_formatting_async(
                lsp.DocumentFormattingParams(document, lsp.FormattingOptions(2, True))
            )
        started = time.perf_counter()
        session.run(call)
        best = min(best, time.perf_counter() - started)
    return best


_versions = iter(range(2, 10**9))

_pieces = st.sampled_from(["a", "a-", "1", "a1-", "_", "é", "-", " a", "x.", '"', "/", "<"])


@pytest.fixture(scope="module")
def long_line(session: Session, workspace: Path) -> str:
    uri = (workspace / "long.idl").as_uri()
    session.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "idl", 1, GOOD))
    )
    return uri


@pytest.mark.parametrize("request_kind", ["completion", "hover", "formatting"])
@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    piece=_pieces,
    prefix=st.sampled_from(["type T = ", "", 'interface I id "i" revision "i@1" { ', "// "]),
    suffix=st.sampled_from(["", " ", ".", "--", "-a-", ";"]),
)
# A word run and then the cursor after a space: completion was quadratic in the run.
@example(piece="a", prefix="type T = ", suffix=" ")
@example(piece="a", prefix="", suffix="--")
def test_long_runs_take_linear_time(
    session: Session, long_line: str, piece: str, prefix: str, suffix: str, request_kind: str
) -> None:
    request = request_kind

    def text(length: int) -> str:
        return GOOD + prefix + piece * (length // len(piece)) + suffix

    # Warm up once (the first parse of a new shape), then n and 4n. A busy machine can slow
    # one measurement (the suite runs a worker more than cores); a quadratic request, 16
    # times slower at 4n, fails every attempt.
    _timed(session, long_line, text(_RUN // 8), request)
    for _attempt in range(3):
        short = _timed(session, long_line, text(_RUN), request)
        long = _timed(session, long_line, text(4 * _RUN), request)
        if long < max(short, 0.005) * _RATIO_BOUND:
            break
    assert long < max(short, 0.005) * _RATIO_BOUND, (piece, prefix, request, short, long)
    assert long < PATIENCE
