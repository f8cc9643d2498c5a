"""The one folder idlc keeps its caches in, and entries in it that nobody else can forge.

Both caches (the compiled templates of `idlc.codegen.render`, the parse tables of
`idlc.syntax.parser`) hold code or data that idlc loads with `marshal`: bytes another user
could write would be code run as this user. So:

- The folder (`$IDLC_CACHE_DIR`, else `$XDG_CACHE_HOME/idlc`, else `~/.cache/idlc`) is used
  only when the user running idlc owns it and neither group nor others may write to it;
  otherwise idlc runs without a cache and says so once on stderr. The folder is opened once
  and every entry is reached through that descriptor (`dir_fd`), so swapping the folder
  for another after the check changes nothing.
- Every entry carries an HMAC-SHA256 of its name and bytes under a random key kept in the
  folder (`key`, mode 0600, created with `O_EXCL | O_NOFOLLOW`, published by a hard link so
  no reader sees half of it). An entry is handed to its reader only when its digest is
  right: nobody without the key can make one that is, so nothing another user wrote is
  ever unmarshalled.
- An entry is written to a new temporary file (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode
  0600) in the folder and renamed over its name: a link planted under the entry's name is
  replaced, never followed.

The cache only saves time: whatever goes wrong with it (a damaged entry, a full disk, a
folder that is not the user's) costs a rebuild, never an error.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import stat
import sys
from pathlib import Path

__all__ = ["CacheStore", "cache_root", "store"]

_KEY_NAME = "key"
_KEY_BYTES = 32
_DIGEST_BYTES = hashlib.sha256().digest_size
#: The largest entry read back (the parse tables are ~40 KiB, a compiled template less).
_MAX_ENTRY_BYTES = 64 * 1024 * 1024
_CHUNK = 1024 * 1024

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC


def cache_root() -> Path | None:
    """The cache folder's path (it may not exist yet), or None when there is nowhere to
    keep one: no `IDLC_CACHE_DIR`, no `XDG_CACHE_HOME` and no home directory (a
    container's user with neither `HOME` nor a passwd entry)."""
    base = os.environ.get("IDLC_CACHE_DIR")
    if base:
        return Path(base)
    cache_home = os.environ.get("XDG_CACHE_HOME")
    if not cache_home:
        home = os.path.expanduser("~")  # "~" itself when there is no home to find
        if not os.path.isabs(home):
            return None
        cache_home = os.path.join(home, ".cache")
    return Path(cache_home) / "idlc"


class _Refused(Exception):
    """The folder is not one to trust; the message says why (for the one warning)."""


class CacheStore:
    """Entries in the user's private cache folder, each checked with the folder's key."""

    def __init__(self, folder: int, key: bytes) -> None:
        self._folder = folder  # a descriptor of the folder, kept for the process's life
        self._key = key

    def _digest(self, name: str, data: bytes) -> bytes:
        return hmac.new(self._key, name.encode() + b"\0" + data, hashlib.sha256).digest()

    def load(self, name: str) -> bytes | None:
        """The bytes stored under `name`, or None when there are none this run wrote with
        this key (missing, damaged, planted, too large, not a regular file)."""
        try:
            entry = _read_private(name, self._folder, _MAX_ENTRY_BYTES + _DIGEST_BYTES)
        except OSError:
            return None
        if entry is None or len(entry) < _DIGEST_BYTES:
            return None
        tag, data = entry[:_DIGEST_BYTES], entry[_DIGEST_BYTES:]
        if not hmac.compare_digest(tag, self._digest(name, data)):
            return None
        return data

    def store(self, name: str, data: bytes) -> None:
        """Keep `data` under `name`; silently not kept when the folder refuses it."""
        try:
            _publish_entry(self._folder, name, self._digest(name, data) + data)
        except OSError:
            pass  # not kept: the next run builds it again


def _publish_entry(folder: int, name: str, data: bytes) -> None:
    _publish(folder, name, data, replace=True)


def _read_private(name: str, folder: int, limit: int) -> bytes | None:
    """The bytes of the regular file `name` in `folder` when this user owns it and nobody
    else may write to it (links not followed; at most `limit` bytes); None otherwise."""
    handle = os.open(name, _READ_FLAGS, dir_fd=folder)
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode) or not _private(status) or status.st_size > limit:
            return None
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            # No more than the file says it holds, plus one byte to see its end: a read
            # allocates the whole size asked for, however little it returns.
            wanted = max(status.st_size - total, 0) + 1
            chunk = os.read(handle, min(wanted, _CHUNK, limit + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
        return None
    finally:
        os.close(handle)


def _publish(folder: int, name: str, data: bytes, *, replace: bool) -> None:
    """Write `data` to a new private file in `folder` and give it the name `name`: renamed
    over whatever is there (`replace`), or linked only if nothing is (else FileExistsError)."""
    while True:
        temporary = f".{name}.{os.urandom(6).hex()}.tmp"
        try:
            handle = os.open(temporary, _CREATE_FLAGS, 0o600, dir_fd=folder)
        except FileExistsError:
            continue
        break
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(handle, view) :]
        finally:
            os.close(handle)
        if replace:
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
            return
        os.link(temporary, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
    finally:
        try:
            os.unlink(temporary, dir_fd=folder)
        except FileNotFoundError:
            pass  # renamed


def _private(status: os.stat_result) -> bool:
    """Whether this user owns the file or folder and neither group nor others may write."""
    geteuid = getattr(os, "geteuid", None)
    if geteuid is not None and status.st_uid != geteuid():
        return False
    return not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _open_folder(root: Path) -> int:
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
        folder = os.open(root, _FOLDER_FLAGS)
    except OSError as error:
        raise _Refused(f"cannot be used: {error.strerror or error}") from None
    status = os.fstat(folder)
    if not stat.S_ISDIR(status.st_mode) or not _private(status):
        os.close(folder)
        raise _Refused("is not a folder of yours that only you may write to")
    return folder


def _key(folder: int) -> bytes:
    """The folder's key: read, or made (by the first run, atomically) when there is none."""
    for _ in range(3):
        try:
            key = _read_private(_KEY_NAME, folder, _KEY_BYTES)
        except FileNotFoundError:
            try:
                _publish(folder, _KEY_NAME, os.urandom(_KEY_BYTES), replace=False)
            except FileExistsError:
                pass  # another run made it meanwhile: read theirs
            except OSError as error:
                raise _Refused(f"has no key and cannot be given one: {error.strerror}") from None
            continue
        except OSError as error:
            raise _Refused(f"has a key that cannot be read: {error.strerror}") from None
        if key is None or len(key) != _KEY_BYTES:
            raise _Refused(f"has a `{_KEY_NAME}` that is not a private {_KEY_BYTES}-byte file")
        return key
    raise _Refused("has a key that keeps changing")


@functools.cache
def store() -> CacheStore | None:
    """The cache of this process: None (after one warning, when there is a folder that will
    not do) when there is none to use."""
    root = cache_root()
    if root is None or not {os.open, os.rename, os.link, os.unlink} <= os.supports_dir_fd:
        return None
    try:
        folder = _open_folder(root)
        try:
            return CacheStore(folder, _key(folder))
        except BaseException:
            os.close(folder)
            raise
    except _Refused as refused:
        _warn(f"idlc: warning: cache folder {root} {refused}; running without a cache")
        return None


def _warn(message: str) -> None:
    try:
        print(message, file=sys.stderr)
    except (OSError, ValueError):  # no stderr to tell
        pass
