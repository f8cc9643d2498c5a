"""The editor's side of the language server's stdio, read with bounds.

pygls reads a message as a header line, then `stdin.read(Content-Length)`: a buffered
`read(n)` allocates all `n` bytes at once, so one header claiming an enormous length
makes the server allocate it (or fail with `MemoryError` and stop), and a header line
without an end is read whole. `BoundedStdin` is the file pygls reads from instead: a header
line is read at most `MAX_HEADER_LINE` bytes at a time (a longer one arrives in pieces,
none of them a header pygls recognises), and a body longer than `MAX_MESSAGE_BYTES` is read
in pieces and dropped; pygls gets in its place a `$/idlc/messageTooLarge` notification,
which the server reports to the editor (`window/showMessage`) before going on.
"""

from __future__ import annotations

import json
from typing import BinaryIO, Final

from idlc.boundedread import MAX_INPUT_BYTES

#: The longest message read: a document at the input limit with every byte escaped as
#: `\\u00XX` (six bytes), and room for the rest of the message. A document over the input
#: limit but within this gets its E0012 diagnostic; a longer message is dropped.
MAX_MESSAGE_BYTES: Final = 6 * MAX_INPUT_BYTES + 1024 * 1024
#: The longest header line read at once (`Content-Length: …` is some twenty bytes).
MAX_HEADER_LINE: Final = 64 * 1024
#: What pygls is given instead of a message too long to read.
TOO_LARGE_METHOD: Final = "$/idlc/messageTooLarge"

_CHUNK = 1024 * 1024


class BoundedStdin:
    """`stream` (the server's stdin) with a bound on what each read may allocate."""

    def __init__(self, stream: BinaryIO, max_message: int = MAX_MESSAGE_BYTES) -> None:
        self._stream = stream
        self._max_message = max_message

    def readline(self) -> bytes:
        return self._stream.readline(MAX_HEADER_LINE)

    def read(self, size: int) -> bytes:
        if size <= self._max_message:
            return self._stream.read(size)
        left = size
        while left > 0:
            chunk = self._stream.read(min(left, _CHUNK))
            if not chunk:
                return b""  # the editor closed the stream in the middle of the message
            left -= len(chunk)
        notice = {
            "jsonrpc": "2.0",
            "method": TOO_LARGE_METHOD,
            "params": {"size": size, "limit": self._max_message},
        }
        return json.dumps(notice).encode()
