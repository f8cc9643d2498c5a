"""Writing a generated package to disk, and checking that it is up to date.

The package folder holds a manifest, `.idlc-manifest`, listing every file idlc wrote
there. It is what lets a later run drop a file it generated before and no longer produces
while never touching a file it did not write (a README, a hand-written helper).

The switch from the old package to the new one is a single step, so that a failure or a
`kill -9` at any moment leaves the package entirely old or entirely new:

1. `recover` cleans up what an interrupted run left behind (see below).
2. `stage_package` builds the complete new package in a sibling folder,
   `.<package>.idlc-next`: the generated files, the manifest, and every entry of the old
   folder that the old manifest does not list (hand-written files, caches), hard-linked
   (copied where a link is impossible). Nothing visible changes yet.
3. `StagedPackage.switch` exchanges the two folders in one atomic rename
   (`idlc.output.atomic.exchange_folders`), then removes the old package, now in the sibling.
   Where the system cannot exchange folders, it renames the old folder to
   `.<package>.idlc-prev` and the new one into place; a run interrupted between those two
   renames is undone by the next run's `recover`, which puts the old folder back.

A file or symlink in the way of a generated file that idlc did not write stops everything
before anything changes (`conflicts`). Only entries of the old package folder itself are
ever dropped, never anything reached through a symbolic link: a symlinked folder inside
the package is carried over as the link it is. `check_package` reports leftovers of an
interrupted run as well as stale, missing and extra files.

This module never imports black or Jinja2, so `idlc generate --check` costs only the
generation itself.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
from pathlib import Path, PurePosixPath

from idlc.codegen import GeneratedPackage
from idlc.nodes import field, node
from idlc.output.atomic import create_file, exchange_folders

__all__ = [
    "MANIFEST",
    "Finding",
    "OutputConflict",
    "StagedPackage",
    "WriteReport",
    "check_package",
    "conflicts",
    "leftovers",
    "recover",
    "stage_package",
    "write_package",
]

MANIFEST = ".idlc-manifest"
_MANIFEST_HEADER = "# Written by idlc generate: the files it owns in this folder.\n"
_DIFF_LINES = 40
_NEXT_SUFFIX = ".idlc-next"
_PREVIOUS_SUFFIX = ".idlc-prev"
#: The per-file temporaries earlier versions of idlc left beside their targets when killed
#: (`.<name>.<8 random characters>.tmp`); removed when `<name>` is a file idlc owns.
_OLD_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")


class OutputConflict(Exception):
    """A file idlc would write exists and was not written by idlc; nothing was changed."""

    def __init__(self, paths: list[Path]) -> None:
        super().__init__(
            "not overwriting files idlc did not write: " + ", ".join(str(path) for path in paths)
        )
        self.paths = paths


@node
class Finding:
    """One way the package on disk differs from what would be generated."""

    kind: str  # "stale", "missing", "extra" or "leftover"
    path: Path
    diff: str = ""


@node(frozen=False)
class WriteReport:
    folder: Path
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    #: Problems after the switch, which left the new package in place.
    notes: list[str] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        lines = [f"wrote {path}" for path in self.written]
        lines += [f"removed {path}" for path in self.removed]
        lines += self.notes
        lines.append(
            f"{self.folder}: {len(self.written)} written, {len(self.unchanged)} unchanged, "
            f"{len(self.removed)} removed"
        )
        return lines


@node
class _Places:
    """Where a package lives, and the two sibling names a switch uses."""

    shown: Path  # out_dir/package, as the user named it
    folder: Path  # the same, a symlinked package folder resolved to the real one
    next: Path
    previous: Path


def _places(out_dir: Path, package: str) -> _Places:
    shown = out_dir / package
    folder = shown.resolve() if shown.is_symlink() and shown.is_dir() else shown
    return _Places(
        shown,
        folder,
        folder.with_name(f".{folder.name}{_NEXT_SUFFIX}"),
        folder.with_name(f".{folder.name}{_PREVIOUS_SUFFIX}"),
    )


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _is_real_folder(path: Path) -> bool:
    info = _lstat(path)
    return info is not None and stat.S_ISDIR(info.st_mode)


def _entry(folder: Path, relative: str) -> os.stat_result | None:
    """The entry `relative` names inside `folder` (not following a final symlink), or None
    when absent or when a folder on the way is a symlink or not a folder: what lies beyond
    a symlink is not in the package."""
    path = folder
    parts = relative.split("/")
    for part in parts[:-1]:
        path = path / part
        if not _is_real_folder(path):
            return None
    return _lstat(path / parts[-1])


def _expected(generated: GeneratedPackage) -> dict[str, str]:
    files = dict(generated.files)
    files[MANIFEST] = _MANIFEST_HEADER + "".join(f"{path}\n" for path in sorted(generated.files))
    return files


def _read_manifest(folder: Path) -> set[str]:
    """The files idlc wrote into `folder` before, as paths relative to it.

    Only paths that stay inside the folder count: an edited or corrupt manifest must never
    make idlc remove a file elsewhere (an absolute path, `..`).
    """
    try:
        text = (folder / MANIFEST).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    paths = set()
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        relative = PurePosixPath(line)
        if relative.is_absolute() or ".." in relative.parts or "\\" in line:
            continue
        paths.add(relative.as_posix())
    return paths


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, UnicodeDecodeError):
        return None


def _old_temporaries(folder: Path) -> list[Path]:
    """Per-file temporaries of an earlier idlc killed while writing, beside files it owns."""
    names: dict[str, set[str]] = {}
    for relative in _read_manifest(folder) | {MANIFEST}:
        parent, _, name = relative.rpartition("/")
        names.setdefault(parent, set()).add(name)
    found = []
    for parent, owned in names.items():
        directory = folder / parent if parent else folder
        if not _is_real_folder(directory) or (parent and _entry(folder, parent) is None):
            continue
        try:
            entries = os.listdir(directory)
        except OSError:
            continue
        for entry in entries:
            match = _OLD_TEMPORARY.fullmatch(entry)
            info = _lstat(directory / entry)
            if match and match["name"] in owned and info is not None and stat.S_ISREG(info.st_mode):
                found.append(directory / entry)
    return sorted(found)


def leftovers(out_dir: Path, package: str) -> list[Path]:
    """What an interrupted `generate` of `package` left behind (the next write removes it)."""
    places = _places(out_dir, package)
    found = [path for path in (places.next, places.previous) if _lstat(path) is not None]
    return found + _old_temporaries(places.folder)


def recover(out_dir: Path, package: str) -> list[Path]:
    """Clean up after an interrupted `generate` of `package`; returns what was removed.

    A staged package that never took its place, or an old one that was not yet removed,
    is deleted. When the package folder is missing and the old one is parked (the two-rename
    switch was interrupted between its renames), the old one is put back. A reserved name
    that is not a real folder is left alone: `conflicts` reports it.
    """
    places = _places(out_dir, package)
    if _lstat(places.folder) is None and _is_real_folder(places.previous):
        os.rename(places.previous, places.folder)
    removed = []
    for path in (places.next, places.previous):
        if _is_real_folder(path):
            shutil.rmtree(path)
            removed.append(path)
    for path in _old_temporaries(places.folder):
        path.unlink(missing_ok=True)
        removed.append(path)
    return removed


def _blocker(folder: Path, relative: str, text: str, owned: set[str]) -> Path | None:
    """What stands in the way of writing `relative` into `folder`, if anything."""
    path = folder
    parts = relative.split("/")
    for part in parts[:-1]:
        path = path / part
        info = _lstat(path)
        if info is None:
            return None
        if not stat.S_ISDIR(info.st_mode):
            return path  # a file, or a symlink, where a folder of generated files goes
    path = path / parts[-1]
    info = _lstat(path)
    if info is None:
        return None
    if stat.S_ISDIR(info.st_mode):
        return path
    if relative in owned or relative == MANIFEST:
        return None
    if stat.S_ISREG(info.st_mode) and _read(path) == text:
        return None  # already what idlc would write: nothing of anyone's is lost
    return path


def conflicts(out_dir: Path, generated: GeneratedPackage) -> list[Path]:
    """The paths in the way of writing `generated`: files idlc would have to overwrite but
    did not write, or a file where the package folder (or a folder idlc reserves beside it)
    should be. Writes nothing."""
    shown = out_dir / generated.package
    if _lstat(shown) is not None and not shown.is_dir():
        return [shown]
    places = _places(out_dir, generated.package)
    found = [
        path
        for path in (places.next, places.previous)
        if _lstat(path) is not None and not _is_real_folder(path)
    ]
    if not _is_real_folder(places.folder):
        return found
    owned = _read_manifest(places.folder)
    for relative, text in _expected(generated).items():
        blocker = _blocker(places.folder, relative, text, owned)
        if blocker is not None and blocker not in found:
            found.append(blocker)
    return found


def _link_or_copy(source: Path, target: Path) -> None:
    """Make `target` another name of `source` (a hard link; a copy where links are not
    possible). Raises OSError for what can be neither linked nor copied."""
    try:
        os.link(source, target, follow_symlinks=False)
        return
    except (OSError, NotImplementedError):
        pass
    info = os.lstat(source)
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(source), target)
    elif stat.S_ISREG(info.st_mode):
        shutil.copy2(source, target)
    else:
        raise OSError(errno.EPERM, "cannot carry over this special file", str(source))


def _carry_over(source: Path, target: Path, prefix: str, dropped: set[str]) -> None:
    """Link every entry of `source` into `target` but those in `dropped` (relative paths).

    Folders are recreated (with their modes) rather than linked, and never dropped.
    Symbolic links are carried over as links, never followed.
    """
    with os.scandir(source) as entries:
        for entry in entries:
            relative = prefix + entry.name
            destination = target / entry.name
            if entry.is_dir(follow_symlinks=False):
                if _lstat(destination) is None:
                    os.mkdir(destination)
                    os.chmod(destination, stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode))
                _carry_over(Path(entry.path), destination, relative + "/", dropped)
            elif relative not in dropped:
                _link_or_copy(Path(entry.path), destination)


def _rescue(retired: Path, current: Path, prefix: str, dropped: frozenset[str]) -> None:
    """Move into `current` the hand-written files of `retired` (the old package folder,
    just switched out) that are not the very files `current` holds: files saved into the
    old folder (as a new file renamed over the old one, as editors do) after they were
    linked into the new one. Without this, removing `retired` would lose that save."""
    try:
        entries = list(os.scandir(retired))
    except OSError:
        return
    for entry in entries:
        relative = prefix + entry.name
        target = current / entry.name
        try:
            here = entry.stat(follow_symlinks=False)
            there = _lstat(target)
            if entry.is_dir(follow_symlinks=False):
                if there is not None and stat.S_ISDIR(there.st_mode):
                    _rescue(Path(entry.path), target, relative + "/", dropped)
                elif there is None:
                    os.rename(entry.path, target)
            elif relative not in dropped and (
                there is None or (there.st_ino, there.st_dev) != (here.st_ino, here.st_dev)
            ):
                if there is None or not stat.S_ISDIR(there.st_mode):
                    os.replace(entry.path, target)
        except OSError:
            continue  # the best effort of a rare race; the new package is in place


class StagedPackage:
    """A complete new package beside the old one, ready to take its place.

    `switch` puts it in place in one step; `discard` removes it, leaving the old package
    as it was. A package already up to date stages nothing and switches to nothing.
    """

    def __init__(
        self,
        places: _Places,
        report: WriteReport,
        staged: bool,
        replaces: bool,
        dropped: frozenset[str] = frozenset(),
    ) -> None:
        self._places = places
        self.report = report
        self._staged = staged
        self._replaces = replaces
        self._dropped = dropped  # what of the old folder is idlc's (not carried over)

    def switch(self) -> WriteReport:
        if not self._staged:
            return self.report
        places = self._places
        if not self._replaces:
            try:
                os.rename(places.next, places.folder)
            except BaseException:
                self.discard()
                raise
            self._staged = False
            return self.report
        try:
            exchanged = exchange_folders(places.next, places.folder)
        except BaseException:
            self.discard()
            raise
        if exchanged:
            retired = places.next
        else:
            try:
                os.rename(places.folder, places.previous)
            except BaseException:
                self.discard()
                raise
            try:
                os.rename(places.next, places.folder)
            except BaseException:
                os.rename(places.previous, places.folder)
                self.discard()
                raise
            retired = places.previous
        self._staged = False
        _rescue(retired, places.folder, "", self._dropped)
        try:
            shutil.rmtree(retired)
        except OSError as error:
            self.report.notes.append(
                f"could not remove the old package, {retired}: {error.strerror or error} "
                "(the next `idlc generate` removes it)"
            )
        return self.report

    def discard(self) -> None:
        if self._staged:
            self._staged = False
            shutil.rmtree(self._places.next, ignore_errors=True)


def stage_package(out_dir: Path, generated: GeneratedPackage) -> StagedPackage:
    """Build the new `out_dir/<package>/` beside the old one (see the module docstring).

    Call `recover` first: a leftover staging folder is in the way. Raises OutputConflict
    (nothing written) when a file idlc did not write is in the way, OSError when the
    system refuses (the staging folder is removed again).
    """
    if generated.has_errors:
        raise ValueError("the generated package has errors; nothing is written")
    in_the_way = conflicts(out_dir, generated)
    if in_the_way:
        raise OutputConflict(in_the_way)
    places = _places(out_dir, generated.package)
    report = WriteReport(places.shown)
    expected = _expected(generated)
    replaces = _is_real_folder(places.folder)
    owned = _read_manifest(places.folder) if replaces else set()
    unchanged = set()
    for relative, text in expected.items():
        info = _entry(places.folder, relative) if replaces else None
        if info is not None and stat.S_ISREG(info.st_mode):
            if _read(places.folder / relative) == text:
                unchanged.add(relative)
    gone = sorted(
        relative
        for relative in owned - set(expected)
        if (info := _entry(places.folder, relative)) is not None and not stat.S_ISDIR(info.st_mode)
    )
    if replaces and len(unchanged) == len(expected) and not gone:
        report.unchanged.extend(places.shown / relative for relative in sorted(expected))
        return StagedPackage(places, report, staged=False, replaces=True)
    places.folder.parent.mkdir(parents=True, exist_ok=True)
    os.mkdir(places.next)
    try:
        _fill(places, expected, unchanged, report)
        if replaces:
            _carry_over(places.folder, places.next, "", set(expected) | owned)
            os.chmod(places.next, stat.S_IMODE(os.stat(places.folder).st_mode))
    except BaseException:
        shutil.rmtree(places.next, ignore_errors=True)
        raise
    report.removed.extend(places.shown / relative for relative in gone)
    dropped = frozenset(set(expected) | owned)
    return StagedPackage(places, report, staged=True, replaces=replaces, dropped=dropped)


def _fill(
    places: _Places, expected: dict[str, str], unchanged: set[str], report: WriteReport
) -> None:
    """Write the generated files into the staging folder. A file whose text has not changed
    is linked rather than rewritten (it keeps its modification time) when it has the mode a
    new file gets; the manifest is written first and tells that mode."""
    create_file(places.next / MANIFEST, expected[MANIFEST].encode("utf-8"))
    ordinary_mode = stat.S_IMODE(os.stat(places.next / MANIFEST).st_mode)
    if MANIFEST in unchanged:
        report.unchanged.append(places.shown / MANIFEST)
    for relative in sorted(expected):
        if relative == MANIFEST:
            continue
        target = places.next / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        data = expected[relative].encode("utf-8")
        if relative in unchanged:
            report.unchanged.append(places.shown / relative)
            old = places.folder / relative
            if stat.S_IMODE(os.lstat(old).st_mode) == ordinary_mode:
                try:
                    os.link(old, target, follow_symlinks=False)
                    continue
                except (OSError, NotImplementedError):
                    pass
        else:
            report.written.append(places.shown / relative)
        create_file(target, data)


def write_package(out_dir: Path, generated: GeneratedPackage) -> WriteReport:
    """Write `generated` into `out_dir/<package>/`, replacing what idlc wrote there before,
    in one step (`recover`, `stage_package`, `StagedPackage.switch`)."""
    if generated.has_errors:
        raise ValueError("the generated package has errors; nothing is written")
    recover(out_dir, generated.package)
    return stage_package(out_dir, generated).switch()


def _diff(relative: str, old: str, new: str) -> str:
    import difflib  # only for a stale file

    lines = list(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            f"a/{relative}",
            f"b/{relative}",
            n=1,
        )
    )
    if len(lines) > _DIFF_LINES:
        hidden = len(lines) - _DIFF_LINES
        lines = lines[:_DIFF_LINES] + [f"... ({hidden} more diff lines)\n"]
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def check_package(out_dir: Path, generated: GeneratedPackage) -> list[Finding]:
    """How `out_dir/<package>/` differs from `generated`, and what an interrupted run left
    behind (writes nothing)."""
    places = _places(out_dir, generated.package)
    expected = _expected(generated)
    findings: list[Finding] = []
    for relative in sorted(expected):
        path = places.shown / relative
        info = _entry(places.folder, relative)
        current = _read(places.folder / relative) if info is not None else None
        if current is None:
            findings.append(Finding("missing", path))
        elif current != expected[relative]:
            findings.append(Finding("stale", path, _diff(relative, current, expected[relative])))
    for relative in sorted(_read_manifest(places.folder) - set(expected)):
        info = _entry(places.folder, relative)
        if info is not None and not stat.S_ISDIR(info.st_mode):
            findings.append(Finding("extra", places.shown / relative))
    findings.extend(Finding("leftover", path) for path in leftovers(out_dir, generated.package))
    return findings
