"""The two sides of `idlc breaking`: files and folders on disk, or the same paths at a git
revision (`git:REF`).

A git revision is read with `git ls-tree` and `git cat-file` into a temporary folder that
keeps the paths relative to the repository root, compiled like any folder, and then shown
as `REF:path` in every message (the temporary folder is gone by then).
"""

from __future__ import annotations

import dataclasses
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from idlc.boundedread import MAX_INPUT_BYTES, size_text
from idlc.diagnostics import Diagnostic, Related
from idlc.nodes import replace
from idlc.pipeline import Compilation, compile_files
from idlc.source import SourceFile, SourceMap, Span, display_path

__all__ = ["GIT_PREFIX", "InputError", "Loaded", "load_git", "load_paths"]

GIT_PREFIX = "git:"


class InputError(Exception):
    """A side that cannot be read at all (not a git repository, an unknown revision…)."""


@dataclass(slots=True)
class Loaded:
    """One side, compiled. Spans and diagnostics are shown through `span` and `diagnostics`."""

    compilation: Compilation
    #: Display path of a compiled file → how to show it (only for git revisions).
    labels: dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def sources(self) -> SourceMap:
        if not self.labels:
            return self.compilation.sources
        shown = SourceMap()
        for source in self.compilation.sources:
            shown.add(SourceFile(self.labels.get(source.path, source.path), source.text))
        return shown

    def span(self, span: Span | None) -> Span | None:
        if span is None or span.file not in self.labels:
            return span
        return Span(
            self.labels[span.file],
            span.start,
            span.end,
            span.line,
            span.column,
            span.end_line,
            span.end_column,
        )

    @property
    def diagnostics(self) -> list[Diagnostic]:
        result = []
        for diagnostic in self.compilation.diagnostics:
            related = tuple(
                Related(item.message, self.span(item.span) or item.span)
                for item in diagnostic.related
            )
            result.append(replace(diagnostic, span=self.span(diagnostic.span), related=related))
        return result


def load_paths(paths: Sequence[Path], include: Sequence[Path]) -> Loaded:
    return Loaded(compile_files(paths, include, plan_facts=False))


def _git(args: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except OSError as error:
        raise InputError(f"cannot run git: {error}") from error


def _repository_root(start: Path) -> Path:
    folder = start if start.is_dir() else start.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    result = _git(["rev-parse", "--show-toplevel"], folder)
    if result.returncode != 0:
        raise InputError(f"`{display_path(start)}` is not in a git repository")
    return Path(result.stdout.decode().strip()).resolve()


def load_git(ref: str, paths: Sequence[Path], include: Sequence[Path]) -> Loaded:
    """Compile `paths` (and include folders) as they were at the git revision `ref`.

    A path that did not exist at `ref` contributes nothing (everything in it is new).
    """
    if not ref:
        raise InputError("`git:` needs a revision, as in `git:HEAD` or `git:origin/main`")
    if not paths:
        raise InputError("no paths to read from the git revision")
    root = _repository_root(paths[0].absolute())
    commit = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], root)
    if commit.returncode != 0:
        raise InputError(f"`{ref}` is not a git revision of {display_path(root)}")
    sha = commit.stdout.decode().strip()

    with tempfile.TemporaryDirectory(prefix="idlc-breaking-") as temporary:
        folder = Path(temporary)
        labels: dict[str, str] = {}
        mapped: list[Path] = []
        for path in paths:
            found = _extract(root, sha, ref, path, folder, labels)
            if found is not None:
                mapped.append(found)
        mapped_include = [
            found
            for path in include
            if (found := _extract(root, sha, ref, path, folder, labels)) is not None
        ]
        compilation = compile_files(mapped, mapped_include, plan_facts=False)
        return Loaded(compilation, labels)


def _extract(
    root: Path, sha: str, ref: str, path: Path, folder: Path, labels: dict[str, str]
) -> Path | None:
    """Write the blobs under `path` at `sha` below `folder`; the path to compile, if any."""
    try:
        relative = path.absolute().resolve().relative_to(root)
    except ValueError:
        raise InputError(
            f"`{display_path(path)}` is outside the git repository {display_path(root)}"
        ) from None
    spec = relative.as_posix() or "."
    listing = _git(["ls-tree", "-r", "-z", sha, "--", spec], root)
    if listing.returncode != 0:
        raise InputError(f"git cannot list `{spec}` at `{ref}`: {listing.stderr.decode().strip()}")
    names: list[str] = []
    exact = False
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, name_bytes = entry.partition(b"\t")
        mode, kind, _ = meta.decode().split(" ", 2)
        name = name_bytes.decode("utf-8", "surrogateescape")
        if kind != "blob" or mode not in ("100644", "100755"):
            continue  # symbolic links and submodules are not IDL files
        if name == relative.as_posix():
            exact = True
            names.append(name)
        elif name.endswith(".idl"):
            names.append(name)
    target = folder / relative
    if not names:
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            return target
        return None
    for name in names:
        # Sized before it is read: a blob over the input limit would be held in memory
        # whole (`capture_output`), only for the loader to refuse it.
        size = _git(["cat-file", "-s", f"{sha}:{name}"], root)
        if size.returncode != 0:
            raise InputError(f"git cannot read `{name}` at `{ref}`")
        if int(size.stdout.decode().strip() or 0) > MAX_INPUT_BYTES:
            raise InputError(
                f"`{name}` at `{ref}` is larger than {size_text(MAX_INPUT_BYTES)}: not read"
            )
        blob = _git(["cat-file", "blob", f"{sha}:{name}"], root)
        if blob.returncode != 0:
            raise InputError(f"git cannot read `{name}` at `{ref}`")
        destination = folder / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(blob.stdout)
        labels[display_path(destination)] = f"{ref}:{name}"
    if exact:
        return target
    target.mkdir(parents=True, exist_ok=True)
    return target
