"""Where a peer's answers go: straight out, or into the batch being read (docs/wire.md §7)."""

from __future__ import annotations

from collections.abc import Callable

from idlc_runtime.rpc.outbox import Outbox


class Batch:
    """The answers to one batch, sent as one array once the last is in (docs/wire.md §7).

    Members answered while the batch is read (errors, handlers that finish at once) are
    added as they come; a handler that has to wait is expected, and answers later.
    """

    def __init__(self, write: Callable[[bytes], None]) -> None:
        self._write = write
        self._answers: list[bytes] = []
        self._expected = 0
        self._sealed = False

    def add(self, message: bytes) -> None:
        self._answers.append(message)

    def expect(self) -> None:
        self._expected += 1

    def answer(self, message: bytes) -> None:
        """The answer of a handler that `expect()` announced."""
        self._answers.append(message)
        self._expected -= 1
        self._send_when_complete()

    def seal(self) -> None:
        """Every member has been read: send once the expected answers are in."""
        self._sealed = True
        self._send_when_complete()

    def _send_when_complete(self) -> None:
        if not self._sealed or self._expected or not self._answers:
            return  # a batch of notifications only gets no answer at all
        # Each message is one encoded object followed by its newline.
        body = b",".join(message[:-1] for message in self._answers)
        self._answers = []
        self._write(b"[" + body + b"]\n")


class Replies:
    """Sends the answers found while a line is read, and those of handlers.

    While a batch is read, `batch` is set and what is found then joins it; otherwise it
    goes out at once, unless the peer is closing.
    """

    def __init__(self, outbox: Outbox) -> None:
        self._outbox = outbox
        #: The batch whose members are being handled: their answers are collected there.
        self.batch: Batch | None = None

    def write(self, message: bytes) -> None:
        batch = self.batch
        if batch is not None:
            batch.add(message)
        else:
            self.write_out(message)

    def write_out(self, message: bytes) -> None:
        if not self._outbox.closed:
            self._outbox.write(message)
