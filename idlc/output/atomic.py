"""Writing files so that a reader never sees half of one, and swapping whole folders.

Every file idlc creates gets the ordinary permissions `0666 & ~umask`: it is created with
mode 0666 and the kernel applies the umask. (The umask is never read: reading it means
setting it, which would give other threads' files the wrong mode meanwhile.)
"""

from __future__ import annotations

import errno
import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["create_file", "exchange_folders", "folder_lock", "write_atomic"]

_CREATE_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)


def create_file(path: Path, data: bytes) -> None:
    """Create `path` (it must not exist) holding `data`, with mode `0666 & ~umask`."""
    handle = os.open(path, _CREATE_FLAGS, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view) :]
    finally:
        os.close(handle)


def _temporary_beside(path: Path, data: bytes) -> Path:
    """A new file beside `path` holding `data`, under a name nobody else uses."""
    while True:
        temporary = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
        try:
            create_file(temporary, data)
        except FileExistsError:
            continue
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        return temporary


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` in one step (a temporary file renamed over it).

    The file keeps its permission bits when it existed (it is the user's file: `idlc fmt`
    rewrites IDL files); a new file gets `0666 & ~umask`. A symbolic link is followed, so
    the file it points to is replaced and the link stays a link.
    """
    if path.is_symlink():
        path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    temporary = _temporary_beside(path, data)
    try:
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


# Swapping two folders in one step: renameat2(RENAME_EXCHANGE) on Linux, renamex_np
# (RENAME_SWAP) on macOS. Elsewhere, or on a file system that cannot, `exchange_folders`
# says so and the caller falls back to two renames.
_RENAME_EXCHANGE = 2  # the same value for Linux's RENAME_EXCHANGE and macOS's RENAME_SWAP
_AT_FDCWD = -100
_UNSUPPORTED = {
    errno.ENOSYS,
    errno.EINVAL,
    errno.ENOTSUP,
    getattr(errno, "EOPNOTSUPP", errno.ENOTSUP),
}


@functools.cache
def _exchange_function() -> Callable[[bytes, bytes], int] | None:
    try:
        import ctypes
        import ctypes.util
    except ImportError:
        return None
    try:
        if sys.platform.startswith("linux"):
            libc = ctypes.CDLL(None, use_errno=True)
            function = libc.renameat2
            function.argtypes = [
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_uint,
            ]
            function.restype = ctypes.c_int
            return lambda a, b: int(function(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE))
        if sys.platform == "darwin":
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            function = libc.renamex_np
            function.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
            function.restype = ctypes.c_int
            return lambda a, b: int(function(a, b, _RENAME_EXCHANGE))
    except (OSError, AttributeError):  # an old C library without the call
        return None
    return None


def exchange_folders(first: Path, second: Path) -> bool:
    """Swap the folders `first` and `second` in one atomic step: anyone looking sees either
    both old names or both new ones, never neither. False when this system cannot (nothing
    changed then); an OSError for any other failure."""
    function = _exchange_function()
    if function is None:
        return False
    import ctypes

    result = function(os.fsencode(first), os.fsencode(second))
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), str(first), None, str(second))


@contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on `folder` (an existing folder) until the block ends.

    Two `idlc generate` runs into one folder take turns, so one never cleans up, as an
    interrupted run's leftovers, the package the other is still building. The lock is
    advisory (`flock`) and released by the kernel when the process ends, even by
    `kill -9`; where `flock` does not exist (Windows) there is no lock.
    """
    try:
        import fcntl
    except ImportError:
        yield
        return
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
    handle = os.open(folder, flags)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing releases the lock
