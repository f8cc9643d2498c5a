"""Reading an input file: a regular file only, and never more than a size cap.

Everything idlc reads as input (IDL files for the loader, the include path, `idlc fmt`, the
language server's workspace; `pyproject.toml`) goes through `read_input`. A path that names
a FIFO, a device (`/dev/zero`), a socket or a link to one would otherwise block forever or
grow the process until the kernel kills it. The file is opened with `O_NONBLOCK`, so even
opening a FIFO cannot wait for a writer; what was opened is then checked with `fstat` (the
descriptor, not the name, so a swap between check and read changes nothing), and at most
`limit + 1` bytes are read whatever the file claims its size is.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = [
    "MAX_INPUT_BYTES",
    "InputTooLarge",
    "NotARegularFile",
    "read_input",
    "size_text",
    "text_over_limit",
]

#: The largest input file read: 16 MiB, far above any real schema (idl/acp.idl is ~0.1 MiB).
MAX_INPUT_BYTES = 16 * 1024 * 1024

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)

_CHUNK = 1024 * 1024


class NotARegularFile(OSError):
    """The path names something that is not a regular file (a FIFO, a device, a socket)."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(errno.EINVAL, f"is {kind}, not a regular file", str(path))
        self.kind = kind


class InputTooLarge(OSError):
    """The file holds more than the limit; nothing past the limit was read."""

    def __init__(self, path: Path, limit: int) -> None:
        super().__init__(errno.EFBIG, f"is larger than {size_text(limit)}", str(path))
        self.limit = limit


def text_over_limit(text: str, limit: int = MAX_INPUT_BYTES) -> bool:
    """Whether `text` (an editor's document) is more than `limit` bytes as UTF-8: the cap
    of a file read from disk applies to text the language server is sent too. Encodes only
    when the length alone cannot tell (a character is 1 to 4 bytes)."""
    if len(text) > limit:
        return True
    if 4 * len(text) <= limit:
        return False
    return len(text.encode("utf-8", "surrogatepass")) > limit


def size_text(count: int) -> str:
    if count % (1024 * 1024) == 0:
        return f"{count // (1024 * 1024)} MiB"
    return f"{count} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def read_input(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file at `path` (links followed), at most `limit` of them.

    Raises `FileNotFoundError`, `IsADirectoryError`, `NotARegularFile`, `InputTooLarge` or
    another `OSError`; never blocks on a FIFO and never reads more than `limit + 1` bytes.
    """
    try:
        handle = os.open(path, _FLAGS)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a socket (or a FIFO on some systems) cannot be opened
            raise NotARegularFile(path, "a socket or other special file") from None
        raise
    try:
        mode = os.fstat(handle).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
        if not stat.S_ISREG(mode):
            raise NotARegularFile(path, _kind(mode))
        size = os.fstat(handle).st_size
        if size > limit:
            raise InputTooLarge(path, limit)
        chunks: list[bytes] = []
        total = 0
        while True:
            # As much as the file says it holds (and one more byte, to see its end): a
            # read allocates the whole size asked for, however little it returns.
            wanted = max(size - total, 0) + 1
            chunk = os.read(handle, min(wanted, _CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew after fstat
                raise InputTooLarge(path, limit)
        return b"".join(chunks)
    finally:
        os.close(handle)
