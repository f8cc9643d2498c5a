"""Bytes → `SourceFile`, reporting what is not UTF-8 instead of failing on it."""

from __future__ import annotations

import _thread
import codecs
import hashlib

from idlc.diagnostics import Diagnostics, codes
from idlc.source import SourceFile

#: Invalid sequences reported per file; the rest are counted in one last message.
MAX_REPORTED = 5

_runs: list[tuple[int, int]] = []  # filled by the error handler during one decode
# The error handler is process-wide: one repair at a time. (`_thread`'s lock is
# `threading.Lock`; `threading` itself is more of `idlc check`'s start-up than it needs.)
_decoding = _thread.allocate_lock()


def _collect(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)
    if len(_runs) > MAX_REPORTED:
        # Enough to report: skip the rest rather than spend seconds on binary junk.
        return "", len(error.object)
    if _runs and _runs[-1][1] == error.start:
        _runs[-1] = (_runs[-1][0], error.end)
    else:
        _runs.append((error.start, error.end))
    return "\ufffd", error.end


codecs.register_error("idlc-collect", _collect)


def decode(path: str, data: bytes, diagnostics: Diagnostics) -> SourceFile | None:
    """Decode a file's bytes. Returns None (with diagnostics) when they are not UTF-8."""
    try:
        return SourceFile(path, data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    with _decoding:
        _runs.clear()
        repaired = SourceFile(path, data.decode("utf-8", errors="idlc-collect"))
        runs = list(_runs)
    for start, end in runs[:MAX_REPORTED]:
        # The character offset of the bad bytes in the repaired text, for line and column.
        offset = len(data[:start].decode("utf-8", errors="replace"))
        shown = " ".join(f"{byte:02x}" for byte in data[start : min(end, start + 4)])
        diagnostics.add(
            codes.INVALID_UTF8,
            f"invalid UTF-8 (bytes {shown}{' …' if end - start > 4 else ''} at byte offset {start})",
            repaired.span(offset, offset + 1),
            help="save the file as UTF-8",
        )
    if len(runs) > MAX_REPORTED:
        diagnostics.add(
            codes.INVALID_UTF8,
            f"more invalid UTF-8 follows in {path}; is it a text file?",
            None,
        )
    return None


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
