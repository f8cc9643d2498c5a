"""The input limit applies to what the editor sends (issue 21 item 5): a document opened or
edited past 16 MiB is not parsed and gets one E0012 diagnostic worded as for a file on disk;
a message longer than the transport's bound is dropped with a message to the editor, and a
header claiming an enormous length allocates nothing. The server answers throughout.

The servers are real `idlc lsp` processes; the last test runs one under an address-space
limit, so a regression fails instead of exhausting the machine."""

from __future__ import annotations

import asyncio
import resource
import subprocess
import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from idlc.boundedread import MAX_INPUT_BYTES, text_over_limit
from idlc.lsp.stdio import MAX_MESSAGE_BYTES
from tests.lsp.conftest import PATIENCE
from tests.lsp.test_robustness import Session

GOOD = "type T = string;\n"
#: Just over the limit, in a comment: the text would parse, were it read.
OVER = "// " + "x" * (MAX_INPUT_BYTES - 3) + "\n" + GOOD
ADDRESS_SPACE = 2 * 1024**3


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    root = tmp_path_factory.mktemp("limits-workspace")
    (root / "good.idl").write_text(GOOD, encoding="utf-8")
    running = Session(root)
    running.root = root  # type: ignore[attr-defined]
    yield running
    running.close()


def _diagnostics(session: Session, uri: str, code: str | None) -> list[lsp.Diagnostic]:
    """The diagnostics of `uri` once one with `code` is there (or none at all: None)."""
    client = session.client

    async def wait() -> list[lsp.Diagnostic]:
        while True:
            found = client.diagnostics.get(uri)
            if found is not None:
                codes = [str(item.code) for item in found]
                if (code is None and not codes) or (code is not None and code in codes):
                    return list(found)
            await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return session.run(asyncio.wait_for(wait(), PATIENCE))


def _answers(session: Session, uri: str) -> None:
    """The server answers a request about `uri` (hover: nothing to say, or something)."""
    document = lsp.TextDocumentIdentifier(uri)
    session.run(
        session.client.text_document_hover_async(lsp.HoverParams(document, lsp.Position(0, 5)))
    )


def test_a_document_over_the_limit_is_one_e0012_and_is_not_parsed(session: Session) -> None:
    client = session.client
    uri = (session.root / "big.idl").as_uri()  # type: ignore[attr-defined]
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "idl", 1, OVER))
    )
    found = _diagnostics(session, uri, "E0012")
    assert [str(item.code) for item in found] == ["E0012"]
    assert "big.idl: is larger than 16 MiB: not read" in found[0].message
    # Formatting and completion would parse it: they are refused, clearly.
    document = lsp.TextDocumentIdentifier(uri)
    for request in (
        client.text_document_formatting_async(
            lsp.DocumentFormattingParams(document, lsp.FormattingOptions(2, True))
        ),
        client.text_document_completion_async(lsp.CompletionParams(document, lsp.Position(1, 3))),
    ):
        with pytest.raises(JsonRpcException) as raised:
            session.run(request)
        assert "larger than 16 MiB" in str(raised.value)
    _answers(session, uri)
    # Back under the limit by an edit that removes the comment: read and checked again.
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(2, uri),
            [
                lsp.TextDocumentContentChangePartial(
                    lsp.Range(lsp.Position(0, 0), lsp.Position(1, 0)), ""
                )
            ],
        )
    )
    assert _diagnostics(session, uri, None) == []
    # And over it again by an edit that adds a byte.
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(3, uri),
            [lsp.TextDocumentContentChangeWholeDocument(OVER)],
        )
    )
    assert [str(item.code) for item in _diagnostics(session, uri, "E0012")] == ["E0012"]
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(document))


def test_a_message_over_the_transport_bound_is_dropped_and_reported(session: Session) -> None:
    client = session.client
    shown = len(client.messages)
    size = MAX_MESSAGE_BYTES + 1

    async def send() -> None:
        # On the client's loop, as bytes: the client would never send such a message.
        writer = client.protocol.writer
        assert writer is not None
        writer.write(b"Content-Length: %d\r\n\r\n" % size + b" " * size)

    session.run(send())

    async def reported() -> None:
        while len(client.messages) == shown:
            await client.wait_for_notification(lsp.WINDOW_SHOW_MESSAGE)

    session.run(asyncio.wait_for(reported(), PATIENCE))
    message = client.messages[-1]
    assert message.type == lsp.MessageType.Error
    assert f"{size} bytes" in message.message and "not read" in message.message
    _answers(session, (session.root / "good.idl").as_uri())  # type: ignore[attr-defined]


@given(
    length=st.integers(MAX_INPUT_BYTES // 4 - 2, MAX_INPUT_BYTES // 4 + 2),
    character=st.sampled_from(["a", "é", "€", "😀", "\udcff"]),
    extra=st.integers(0, 8),
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_text_limit_is_the_utf8_size_of_the_text(
    length: int, character: str, extra: int
) -> None:
    text = character * length + "a" * extra
    size = len(text.encode("utf-8", "surrogatepass"))
    assert text_over_limit(text) == (size > MAX_INPUT_BYTES)


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def test_an_enormous_content_length_allocates_nothing() -> None:
    """A header claiming a petabyte, then a little data and the end of input: the server
    reads and drops what came and exits at the end of its input, without `MemoryError`
    (pygls alone asks its buffered stdin for the whole length at once)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "idlc", "lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limited,
    )
    out, err = process.communicate(
        b"Content-Length: 1000000000000000\r\n\r\n" + b"x" * (4 * 1024 * 1024), timeout=PATIENCE
    )
    assert process.returncode == 0, err.decode(errors="replace")
    assert b"MemoryError" not in err and b"Traceback" not in err, err.decode(errors="replace")
