"""Writing a generated package to disk, and checking that it is up to date.

The package folder holds a manifest, `.idlc-manifest`, listing every file idlc wrote
there. It is what lets a later run remove a file it generated before and no longer produces
while never touching a file it did not write (a README, a hand-written helper).

Writing is all or nothing: every new content goes to a temporary file beside its target
first; only when all of them exist are they moved into place with `os.replace` (atomic per
file). A file that is in the way and was not written by idlc stops the write before
anything changes. This module never imports black or Jinja2, so `idlc generate --check`
costs only the generation itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from idlc.codegen import GeneratedPackage

__all__ = [
    "MANIFEST",
    "Finding",
    "OutputConflict",
    "WriteReport",
    "check_package",
    "conflicts",
    "write_package",
]

MANIFEST = ".idlc-manifest"
_MANIFEST_HEADER = "# Written by idlc generate: the files it owns in this folder.\n"
_DIFF_LINES = 40


class OutputConflict(Exception):
    """A file idlc would write exists and was not written by idlc; nothing was changed."""

    def __init__(self, paths: list[Path]) -> None:
        super().__init__(
            "not overwriting files idlc did not write: " + ", ".join(str(path) for path in paths)
        )
        self.paths = paths


@dataclass(frozen=True, slots=True)
class Finding:
    """One way the package on disk differs from what would be generated."""

    kind: str  # "stale", "missing" or "extra"
    path: Path
    diff: str = ""


@dataclass(slots=True)
class WriteReport:
    folder: Path
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        lines = [f"wrote {path}" for path in self.written]
        lines += [f"removed {path}" for path in self.removed]
        lines.append(
            f"{self.folder}: {len(self.written)} written, {len(self.unchanged)} unchanged, "
            f"{len(self.removed)} removed"
        )
        return lines


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
        paths.add(line)
    return paths


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (FileNotFoundError, IsADirectoryError, UnicodeDecodeError):
        return None


def conflicts(out_dir: Path, generated: GeneratedPackage) -> list[Path]:
    """The paths in the way of writing `generated`: files idlc would have to overwrite but
    did not write, or a file where the package folder should be. Writes nothing."""
    folder = out_dir / generated.package
    if folder.exists() and not folder.is_dir():
        return [folder]
    previous = _read_manifest(folder)
    found = []
    for relative, text in _expected(generated).items():
        path = folder / relative
        if relative == MANIFEST or relative in previous or not path.exists():
            continue
        if path.is_dir() or _read(path) != text:
            found.append(path)
    return found


def write_package(out_dir: Path, generated: GeneratedPackage) -> WriteReport:
    """Write `generated` into `out_dir/<package>/`, replacing what idlc wrote there before."""
    if generated.has_errors:
        raise ValueError("the generated package has errors; nothing is written")
    in_the_way = conflicts(out_dir, generated)
    if in_the_way:
        raise OutputConflict(in_the_way)
    folder = out_dir / generated.package
    report = WriteReport(folder)
    expected = _expected(generated)
    previous = _read_manifest(folder)
    changes: dict[str, str] = {}
    for relative, text in expected.items():
        path = folder / relative
        if _read(path) == text:
            report.unchanged.append(path)
            continue
        changes[relative] = text
    import tempfile  # here, not at the top: `--check` never needs it

    staged: list[tuple[str, Path]] = []
    try:
        for relative, text in sorted(changes.items()):
            target = folder / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(
                prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
            )
            with os.fdopen(handle, "wb") as stream:
                stream.write(text.encode("utf-8"))
            staged.append((temporary, target))
    except BaseException:
        for temporary, _ in staged:
            Path(temporary).unlink(missing_ok=True)
        raise
    # The manifest goes last: if a move fails halfway, the old manifest still lists
    # everything that may be idlc's.
    staged.sort(key=lambda item: item[1].name == MANIFEST)
    for temporary, target in staged:
        os.replace(temporary, target)
        if target.name != MANIFEST:
            report.written.append(target)
    for relative in sorted(previous - set(expected)):
        path = folder / relative
        if path.is_file():
            path.unlink()
            report.removed.append(path)
    return report


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
    """How `out_dir/<package>/` differs from `generated` (writes nothing)."""
    folder = out_dir / generated.package
    expected = _expected(generated)
    findings: list[Finding] = []
    for relative in sorted(expected):
        path = folder / relative
        current = _read(path)
        if current is None:
            findings.append(Finding("missing", path))
        elif current != expected[relative]:
            findings.append(Finding("stale", path, _diff(relative, current, expected[relative])))
    for relative in sorted(_read_manifest(folder) - set(expected)):
        path = folder / relative
        if path.is_file():
            findings.append(Finding("extra", path))
    return findings
