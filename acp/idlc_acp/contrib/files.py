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
unknown session) and nothing is touched.

The check alone would not confine: a folder on the way could be swapped for a link to
outside between the check and the open. So files are reached by construction: each session
holds a descriptor of each of its folders, opened once by `open_session`, and a path is
opened from there one component at a time (`openat` with `O_NOFOLLOW`, `O_DIRECTORY` for
folders), never by its name from `/`. A component that turned into a link meanwhile is
refused, not followed. A file with more than one hard link is refused too (`reason:
"hard link"`): its other name may be outside. A write replaces the file in one step: a
temporary file made in the already opened folder, then a rename inside that folder, so a
failed write leaves the old content whole.

Descriptors are released by `close_session` (or `close` for all sessions).

What this does not cover: an agent that may also run commands (`terminal/create`) can do
whatever those commands can; confine it with the operating system instead.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable, Iterator

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
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | _CLOEXEC
#: O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused as not regular).
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | getattr(os, "O_NONBLOCK", 0)
_TEMPORARY_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC


def _real(path: str) -> str:
    """`path` with `..`, `.` and symbolic links resolved (the parts that exist)."""
    return os.path.realpath(path)


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root if root.endswith(os.sep) else root + os.sep)


class _Root:
    """A session folder: its real path and a descriptor that keeps naming it."""

    def __init__(self, real: str) -> None:
        self.real = real
        self.fd = os.open(real, _FOLDER_FLAGS)

    def parts(self, real: str) -> list[str]:
        """The components of `real` below this folder (`real` is within it)."""
        return [part for part in real[len(self.real) :].split(os.sep) if part]


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
        self._roots: dict[str, tuple[_Root, ...]] = {}

    def open_session(
        self, session_id: str, cwd: str, additional_directories: Iterable[str] | None = None
    ) -> None:
        """Lets `session_id` use `cwd` and `additional_directories` (absolute folders)."""
        folders = [cwd, *(additional_directories or ())]
        relative = [folder for folder in folders if not os.path.isabs(folder)]
        if relative:
            raise ValueError(f"session folders must be absolute paths: {relative}")
        opened: list[_Root] = []
        try:
            for real in dict.fromkeys(_real(folder) for folder in folders):
                opened.append(_Root(real))
        except OSError as error:
            for root in opened:
                os.close(root.fd)
            raise ValueError(f"a session folder cannot be opened: {_why(error)}") from None
        self.close_session(session_id)
        self._roots[session_id] = tuple(opened)

    def close_session(self, session_id: str) -> None:
        for root in self._roots.pop(session_id, ()):
            os.close(root.fd)

    def close(self) -> None:
        """Closes every session (their folder descriptors)."""
        for session_id in list(self._roots):
            self.close_session(session_id)

    def roots(self, session_id: str) -> tuple[str, ...]:
        """The real folders `session_id` may use (empty for an unknown session)."""
        return tuple(root.real for root in self._roots.get(session_id, ()))

    def resolve(self, session_id: str, path: str) -> str:
        """The real path `path` names, if `session_id` may use it; else the ACP error."""
        return self._locate(session_id, path)[1]

    def _locate(self, session_id: str, path: str) -> tuple[_Root, str]:
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
        # The longest folder first: an additional folder may lie inside the cwd.
        for root in sorted(roots, key=lambda root: len(root.real), reverse=True):
            if _within(real, root.real):
                return root, real
        raise _refuse(
            path,
            f"{path} is outside the session's folders ({', '.join(self.roots(session_id))})",
            "outside",
        )

    async def read_text_file(self, input: ReadTextFileRequest) -> ReadTextFileResponse:
        root, real = self._locate(input.session_id, input.path)
        start = max((input.line or 1) - 1, 0)
        stop = None if input.limit is None else start + input.limit
        try:
            fd = _open_file(root, real)
        except FileNotFoundError:
            raise ResourceNotFound.uri(input.path) from None
        except (OSError, ValueError) as error:
            raise _refuse(
                input.path, f"cannot read {input.path}: {_why(error)}", "unreadable"
            ) from None
        try:
            status = os.fstat(fd)
        except OSError as error:
            os.close(fd)
            raise _refuse(
                input.path, f"cannot read {input.path}: {_why(error)}", "unreadable"
            ) from None
        if not stat.S_ISREG(status.st_mode):
            os.close(fd)
            raise _refuse(input.path, f"{input.path} is not a regular file", "unreadable")
        if status.st_nlink > 1:
            os.close(fd)
            raise _hard_link(input.path, status.st_nlink)
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
        root, real = self._locate(input.session_id, input.path)
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
            root, real = self._locate(input.session_id, input.path)
        try:
            _replace(root, real, data)
        except _HardLink as linked:
            raise _hard_link(input.path, linked.count) from None
        except (OSError, ValueError) as error:
            raise _refuse(
                input.path, f"cannot write {input.path}: {_why(error)}", "unwritable"
            ) from None
        return WriteTextFileResponse()


class _HardLink(Exception):
    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.count = count


@contextlib.contextmanager
def _folder(root: _Root, parts: list[str], *, create: bool) -> Iterator[int]:
    """A descriptor of the folder `parts` names below `root`, reached one component at a
    time without following links (made when `create`), closed on leaving."""
    fd = os.dup(root.fd)
    try:
        for part in parts:
            try:
                inner = os.open(part, _FOLDER_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                inner = os.open(part, _FOLDER_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def _open_file(root: _Root, real: str) -> int:
    """`real` (within `root`) opened for reading, from `root`'s descriptor down."""
    parts = root.parts(real)
    if not parts:
        raise IsADirectoryError(21, "Is a directory")
    with _folder(root, parts[:-1], create=False) as folder:
        return os.open(parts[-1], _READ_FLAGS, dir_fd=folder)


def _replace(root: _Root, real: str, data: bytes) -> None:
    """Writes `data` to `real` (within `root`) through a temporary file in its folder, opened
    from `root`'s descriptor down, and a rename inside that folder."""
    parts = root.parts(real)
    if not parts:
        raise IsADirectoryError(21, "Is a directory")
    name = parts[-1]
    with _folder(root, parts[:-1], create=True) as folder:
        try:
            old = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            mode = 0o600
        else:
            if stat.S_ISREG(old.st_mode) and old.st_nlink > 1:
                raise _HardLink(old.st_nlink)
            mode = stat.S_IMODE(old.st_mode)
        temporary = f".{name[:200]}.{secrets.token_hex(8)}.tmp"
        fd = os.open(temporary, _TEMPORARY_FLAGS, 0o600, dir_fd=folder)
        try:
            with open(fd, "wb") as file:
                file.write(data)
                file.flush()
                os.fchmod(file.fileno(), mode)
                os.fsync(file.fileno())
            os.rename(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=folder)
            raise


def _why(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def _refuse(path: str, message: str, reason: str) -> InvalidParams:
    return InvalidParams(message, {"path": path, "reason": reason})


def _hard_link(path: str, count: int) -> InvalidParams:
    return _refuse(
        path,
        f"{path} has {count} hard links; one of its other names may be outside the "
        "session's folders",
        "hard link",
    )
