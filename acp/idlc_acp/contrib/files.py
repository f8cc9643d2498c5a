"""A client's `fs/read_text_file` and `fs/write_text_file`, confined to the session's folders.

An agent names paths; the client must not read or write wherever the user could. A session
may touch its `cwd` and the `additionalDirectories` the client declared for it, nothing else:

    files = ConfinedFiles(permissions=broker)          # writes asked about, if given
    session = await agent.new_session(request)
    files.open_session(session.session_id, request.cwd, request.additional_directories)

    class MyClient(Client):
        async def read_text_file(self, input):  return await files.read_text_file(input)
        async def write_text_file(self, input): return await files.write_text_file(input)

Before any check a path is made real: it must be absolute (ACP requires it), then `..`, `.`
and every symbolic link in it are resolved, so a link inside the folder that points out of
it, or `/project/../etc/passwd`, is judged by where it leads. What is refused is answered
with an ACP error saying why (`InvalidParams`; `ResourceNotFound` for a missing file or an
unknown session) and nothing is touched. A write replaces the file in one step (a temporary
file in the same folder, then a rename), so a failed write leaves the old content whole.

What this does not cover: an agent that may also run commands (`terminal/create`) can do
whatever those commands can; confine it with the operating system instead.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable

from idlc_acp.contrib.permissions import PermissionBroker
from idlc_acp.errors import InvalidParams, ResourceNotFound
from idlc_acp.protocol import (
    ReadTextFileRequest,
    ReadTextFileResponse,
    ToolCallLocation,
    ToolCallUpdate,
    ToolKind,
    WriteTextFileRequest,
    WriteTextFileResponse,
)

#: Files larger than this are not read whole (ask for a `line`/`limit` window instead).
DEFAULT_MAX_READ_BYTES = 16 * 1024 * 1024
_CHUNK = 1024 * 1024


def _real(path: str) -> str:
    """`path` with `..`, `.` and symbolic links resolved (the parts that exist)."""
    return os.path.realpath(path)


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root if root.endswith(os.sep) else root + os.sep)


class ConfinedFiles:
    """The file system of a client, as much of it as each session may use."""

    def __init__(
        self,
        *,
        permissions: PermissionBroker | None = None,
        max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
    ) -> None:
        #: Asked before each write when given.
        self.permissions = permissions
        self.max_read_bytes = max_read_bytes
        self._roots: dict[str, tuple[str, ...]] = {}

    def open_session(
        self, session_id: str, cwd: str, additional_directories: Iterable[str] | None = None
    ) -> None:
        """Lets `session_id` use `cwd` and `additional_directories` (absolute paths)."""
        folders = [cwd, *(additional_directories or ())]
        relative = [folder for folder in folders if not os.path.isabs(folder)]
        if relative:
            raise ValueError(f"session folders must be absolute paths: {relative}")
        self._roots[session_id] = tuple(dict.fromkeys(_real(folder) for folder in folders))

    def close_session(self, session_id: str) -> None:
        self._roots.pop(session_id, None)

    def roots(self, session_id: str) -> tuple[str, ...]:
        """The real folders `session_id` may use (empty for an unknown session)."""
        return self._roots.get(session_id, ())

    def resolve(self, session_id: str, path: str) -> str:
        """The real path `path` names, if `session_id` may use it; else the ACP error."""
        roots = self._roots.get(session_id)
        if roots is None:
            raise ResourceNotFound.session(session_id)
        if "\0" in path:
            raise _refuse(path, "the path contains a NUL character", "invalid")
        if not os.path.isabs(path):
            raise _refuse(path, f"the path must be absolute: {path!r}", "relative")
        try:
            real = _real(path)
        except (OSError, ValueError) as error:
            raise _refuse(path, f"the path cannot be resolved: {error}", "invalid") from None
        if not any(_within(real, root) for root in roots):
            raise _refuse(
                path,
                f"{path} is outside the session's folders ({', '.join(roots)})",
                "outside",
            )
        return real

    async def read_text_file(self, input: ReadTextFileRequest) -> ReadTextFileResponse:
        real = self.resolve(input.session_id, input.path)
        start = max((input.line or 1) - 1, 0)
        stop = None if input.limit is None else start + input.limit
        try:
            # O_NOFOLLOW: `real` has no links left, and one put there since is not followed.
            # O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
            fd = os.open(
                real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
            )
        except FileNotFoundError:
            raise ResourceNotFound.uri(input.path) from None
        except (OSError, ValueError) as error:
            raise _refuse(
                input.path, f"cannot read {input.path}: {_why(error)}", "unreadable"
            ) from None
        try:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
        except OSError as error:
            os.close(fd)
            raise _refuse(
                input.path, f"cannot read {input.path}: {_why(error)}", "unreadable"
            ) from None
        if not regular:
            os.close(fd)
            raise _refuse(input.path, f"{input.path} is not a regular file", "unreadable")
        with open(fd, "rb") as file:
            try:
                parts: list[bytes] = []
                size = 0
                number = 0  # the 0-based number of the line the next chunk belongs to
                while stop is None or number < stop:
                    # In chunks: one enormous line must not be read whole to be skipped.
                    chunk = file.readline(_CHUNK)
                    if not chunk:
                        break
                    if number >= start:
                        size += len(chunk)
                        if size > self.max_read_bytes:
                            raise _refuse(
                                input.path,
                                f"{input.path} has more than {self.max_read_bytes} bytes to "
                                "send; read it in parts with `line` and `limit`",
                                "too large",
                            )
                        parts.append(chunk)
                    if chunk.endswith(b"\n"):
                        number += 1
            except OSError as error:
                raise _refuse(
                    input.path, f"cannot read {input.path}: {_why(error)}", "unreadable"
                ) from None
        try:
            content = b"".join(parts).decode("utf-8")
        except UnicodeDecodeError:
            raise _refuse(input.path, f"{input.path} is not UTF-8 text", "not text") from None
        return ReadTextFileResponse(content=content)

    async def write_text_file(self, input: WriteTextFileRequest) -> WriteTextFileResponse:
        real = self.resolve(input.session_id, input.path)
        try:
            data = input.content.encode("utf-8")
        except UnicodeEncodeError:
            raise _refuse(input.path, "the content is not valid Unicode text", "invalid") from None
        if self.permissions is not None:
            allowed = await self.permissions.allow(
                input.session_id,
                ToolCallUpdate(
                    tool_call_id=f"fs-write:{real}",
                    title=f"Write {input.path}",
                    kind=ToolKind.EDIT,
                    locations=[ToolCallLocation(path=input.path)],
                ),
            )
            if not allowed:
                raise _refuse(input.path, f"the user did not allow writing {input.path}", "denied")
            # The answer took a while: the path may have changed meanwhile (a new link).
            real = self.resolve(input.session_id, input.path)
        try:
            _replace(real, data)
        except (OSError, ValueError) as error:
            raise _refuse(
                input.path, f"cannot write {input.path}: {_why(error)}", "unwritable"
            ) from None
        return WriteTextFileResponse()


def _replace(real: str, data: bytes) -> None:
    """Writes `data` to `real` through a temporary file in its folder and a rename."""
    folder = os.path.dirname(real)
    os.makedirs(folder, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(os.stat(real, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        mode = None
    fd, temporary = tempfile.mkstemp(
        dir=folder, prefix=f".{os.path.basename(real)}.", suffix=".tmp"
    )
    try:
        with open(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _why(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def _refuse(path: str, message: str, reason: str) -> InvalidParams:
    return InvalidParams(message, {"path": path, "reason": reason})
