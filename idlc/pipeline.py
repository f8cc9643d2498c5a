"""The front end as one call: files on disk → diagnostics and, when all is well, a model.

`compile_files` is what the command line (and anyone using idlc from Python) calls. It
reads, decodes and parses every file given (folders give every `*.idl` below them, sorted),
pulls in from the include folders the files that define interfaces imported but defined in
no given file (lazily, transitively), and resolves the lot as one compilation.

`parse_files` stops after parsing, for tools that need only syntax (`idlc fmt`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from idlc.boundedread import InputTooLarge, NotARegularFile, read_input, size_text
from idlc.diagnostics import Diagnostic, Diagnostics, codes
from idlc.gcpause import paused_gc
from idlc.nodes import field, node, replace
from idlc.source import SourceFile, SourceMap
from idlc.source import display_path as _display_path
from idlc.syntax import ast, parser, reader

if TYPE_CHECKING:
    # compile_files imports them when it runs: `idlc fmt` (parse_files) needs no resolver.
    from idlc.semantics import model
    from idlc.semantics.model import Model
    from idlc.targets.python.mapping import Plan
    from idlc.targets.python.overlay import Overlay

__all__ = ["Compilation", "ParsedFile", "Parsed", "compile_files", "parse_files"]

_IDL_SUFFIX = "*.idl"


@node(frozen=False)
class ParsedFile:
    """One file read: its display path, its bytes' digest, its text and its syntax tree.

    `source` is None when the file could not be read or is not UTF-8; `file` is None when
    it has syntax errors as well.
    """

    path: Path
    display: str
    sha256: str | None
    source: SourceFile | None
    file: ast.File | None


@node(frozen=False)
class Parsed:
    """What `parse_files` gives: every file, and the problems met on the way."""

    files: list[ParsedFile]
    diagnostics: Diagnostics
    sources: SourceMap

    @property
    def ok(self) -> bool:
        return not self.diagnostics.has_errors


@node(frozen=False)
class Compilation:
    """The result of `compile_files`. `model` is None when there is any error."""

    model: model.Model | None
    diagnostics: Diagnostics
    sources: SourceMap
    #: The syntax trees, given files first (in order) and then those found on include paths.
    files: list[ast.File] = field(default_factory=list)
    #: The Python target's plan of `model` (`idlc.targets.python`; `generate` takes it).
    plan: Plan | None = None
    #: The stable view's model, when the files have unstable items (docs/language.md,
    #: "Stability"): what a package of some features borrows from.
    stable: Model | None = None

    @property
    def ok(self) -> bool:
        return self.model is not None

    def overlay(self, stable_package: str) -> Overlay | None:
        """For a package of this view that imports what its features leave alone from
        `stable_package` (generated from the stable view): what it defines itself, as the
        Python target decides it (`idlc.targets.python.overlay`). None when there is no
        stable view (nothing is unstable) or no model."""
        if self.model is None or self.plan is None or self.stable is None:
            return None
        from idlc.targets.python.overlay import overlay

        return overlay(self.model, self.stable, self.plan, stable_package)


class _Loader:
    """Reads and parses files once each (by resolved path), recording every problem."""

    def __init__(self, diagnostics: Diagnostics, sources: SourceMap) -> None:
        self.diagnostics = diagnostics
        self.sources = sources
        self.loaded: dict[Path, ParsedFile] = {}
        #: Each path's resolved form (`key`), resolved once: a large compilation looks
        #: every file up three times, and resolving a path costs a system call per folder.
        self._keys: dict[Path, Path] = {}

    def key(self, path: Path) -> Path:
        """What identifies the file at `path` in this compilation: its resolved path."""
        found = self._keys.get(path)
        if found is None:
            found = self._keys[path] = _key(path)
        return found

    def expand(self, paths: Iterable[Path]) -> list[Path]:
        """Files named, and the `*.idl` files under folders named (sorted), each once."""
        result: list[Path] = []
        for path in paths:
            if path.is_dir():
                found = sorted(p for p in path.rglob(_IDL_SUFFIX) if not p.is_dir())
                if not found:
                    # An empty (or mistyped, or moved) folder is an error, not a success:
                    # `generate` would otherwise remove the package generated from it.
                    self.diagnostics.add(
                        codes.FILE_NOT_FOUND,
                        f"{display_path(path)}: no `.idl` file in this folder",
                        None,
                        help="name IDL files or folders that hold some",
                    )
                result.extend(found)
            else:
                result.append(path)
        seen: set[Path] = set()
        unique: list[Path] = []
        for path in result:
            key = self.key(path)
            if key not in seen:
                seen.add(key)
                unique.append(path)
        return unique

    def too_large(self, path: Path, error: InputTooLarge) -> None:
        """Report that the file at `path` is over the input limit and was not read (E0012;
        the language server says the same of an editor's document over it)."""
        self.diagnostics.add(
            codes.FILE_TOO_LARGE,
            f"{display_path(path)}: {error.strerror}: not read",
            None,
            help=f"idlc reads IDL files of at most {size_text(error.limit)}; split this one",
        )

    def read(self, path: Path) -> bytes | None:
        try:
            return read_input(path)
        except InputTooLarge as error:
            self.too_large(path, error)
        except NotARegularFile as error:
            self.diagnostics.add(
                codes.UNREADABLE_FILE,
                f"{display_path(path)}: {error.strerror}: not read",
                None,
                help="name IDL files, not pipes or devices",
            )
        except FileNotFoundError:
            self.diagnostics.add(codes.FILE_NOT_FOUND, f"{display_path(path)}: no such file", None)
        except IsADirectoryError:
            self.diagnostics.add(codes.UNREADABLE_FILE, f"{display_path(path)}: is a folder", None)
        except OSError as error:
            reason = error.strerror or str(error)
            self.diagnostics.add(
                codes.UNREADABLE_FILE, f"{display_path(path)}: cannot be read: {reason}", None
            )
        return None

    def parse_text(self, path: Path, data: bytes) -> ParsedFile:
        display = display_path(path)
        source = reader.decode(display, data, self.diagnostics)
        file = None
        if source is not None:
            self.sources.add(source)
            file = parser.parse(source, self.diagnostics)
        parsed = ParsedFile(path, display, reader.digest(data), source, file)
        self.loaded[self.key(path)] = parsed
        return parsed

    def load(self, path: Path) -> ParsedFile:
        key = self.key(path)
        existing = self.loaded.get(key)
        if existing is not None:
            return existing
        data = self.read(path)
        if data is None:
            parsed = ParsedFile(path, display_path(path), None, None, None)
            self.loaded[key] = parsed
            return parsed
        return self.parse_text(path, data)


def display_path(path: Path) -> str:
    """`source.display_path`, for any path: a symlink loop is shown as given."""
    try:
        return _display_path(path)
    except (OSError, RuntimeError):
        return str(path)


def _key(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop, say
        return path.absolute()


def parse_files(paths: Sequence[Path]) -> Parsed:
    """Read and parse files (folders: every `*.idl` below, sorted) without resolving names."""
    diagnostics = Diagnostics()
    sources = SourceMap()
    loader = _Loader(diagnostics, sources)
    with paused_gc():
        files = [loader.load(path) for path in loader.expand(paths)]
    return Parsed(files, diagnostics, sources)


class _IncludePath:
    """The `*.idl` files under the include folders, read only when an import needs one.

    A file is a candidate for `import interface X;` when its text has `interface X` in it;
    only candidates are parsed, and only the first file (include folders in order, files
    sorted) that really defines X is taken.
    """

    def __init__(self, include_dirs: Sequence[Path], loader: _Loader) -> None:
        self.include_dirs = include_dirs
        self.loader = loader
        self._files: list[Path] | None = None
        self._texts: dict[Path, bytes | None] = {}

    def files(self) -> list[Path]:
        if self._files is None:
            found: list[Path] = []
            for folder in self.include_dirs:
                if folder.is_dir():
                    found.extend(sorted(p for p in folder.rglob(_IDL_SUFFIX) if not p.is_dir()))
            self._files = found
        return self._files

    def find(self, name: str) -> ParsedFile | None:
        pattern = re.compile(rb"\binterface\s+" + re.escape(name.encode()) + rb"\b")
        for path in self.files():
            key = _key(path)
            if key not in self._texts:
                try:
                    self._texts[key] = read_input(path)
                except OSError:
                    self._texts[key] = None
            data = self._texts[key]
            if data is None or not pattern.search(data):
                continue
            parsed = self.loader.loaded.get(key) or self.loader.parse_text(path, data)
            if parsed.file is None:
                # It looks like the definition but does not parse: its errors are
                # reported, and it joins the compilation so they are not a mystery.
                return parsed
            if any(
                isinstance(decl, ast.InterfaceDecl) and decl.name.value == name
                for decl in parsed.file.decls
            ):
                return parsed
        return None


def compile_files(
    paths: Sequence[Path],
    include_dirs: Sequence[Path] = (),
    *,
    loader: _Loader | None = None,
    features: frozenset[str] | None = None,
    plan_facts: bool = True,
) -> Compilation:
    """Read, parse and resolve `paths` (files or folders) as one compilation.

    Interfaces imported but defined in no given file are looked for in `include_dirs`
    (`-I`): the file that defines one joins the compilation, with what it imports in turn.
    An import defined nowhere stays opaque. Never raises for bad input: every problem is a
    diagnostic. Syntax errors stop the compilation before name resolution.

    `loader` replaces the reading and parsing of files, with fresh diagnostics and source
    map: the language server's reads an editor's unsaved text and reuses unchanged parses.

    `features`: the view the model is of (docs/language.md, "Stability"): the stable items
    and those of these `@unstable` features; None (the default) for every item. Files with
    unstable items are also checked whole and in their stable view, so that every package
    generated from sources `idlc check` accepts compiles in both.

    `plan_facts`: whether the Python plan (`Compilation.plan`) also holds the facts code
    generation reads (`idlc.targets.python.mapping.Plan.has_facts`); a command that writes
    no code passes False, and is told the same problems.
    """
    with paused_gc():
        return _compile(
            paths,
            include_dirs,
            loader or _Loader(Diagnostics(), SourceMap()),
            features,
            plan_facts,
        )


def _compile(
    paths: Sequence[Path],
    include_dirs: Sequence[Path],
    loader: _Loader,
    features: frozenset[str] | None,
    plan_facts: bool,
) -> Compilation:
    diagnostics = loader.diagnostics
    sources = loader.sources
    units = [loader.load(path) for path in loader.expand(paths)]

    if include_dirs:
        include = _IncludePath(include_dirs, loader)
        defined: set[str] = set()
        pending: list[ParsedFile] = []
        for unit in units:
            _note_definitions(unit, defined)
            pending.append(unit)
        looked_for: set[str] = set()
        index = 0
        while index < len(pending):
            unit = pending[index]
            index += 1
            if unit.file is None:
                continue
            for decl in unit.file.decls:
                if not isinstance(decl, ast.ImportDecl):
                    continue
                name = decl.name.value
                if name in defined or name in looked_for:
                    continue
                looked_for.add(name)
                found = include.find(name)
                if found is None or any(found is other for other in units):
                    continue
                units.append(found)
                pending.append(found)
                _note_definitions(found, defined)

    files = [unit.file for unit in units if unit.file is not None]
    if diagnostics.has_errors or len(files) != len(units):
        return Compilation(None, diagnostics, sources, files)
    from idlc.semantics import model, stability
    from idlc.semantics.resolver import resolve_unsorted, sort_diagnostics
    from idlc.targets import python

    infos = [model.SourceInfo(unit.display, unit.sha256 or "") for unit in units]
    # The whole model first, then (when something is unstable) the stable view and the
    # one asked for, each only once the views before it are free of errors: a view's
    # errors then say something new, not an echo of the whole model's.
    stability.check_features(files, features, diagnostics)
    if diagnostics.has_errors:
        return Compilation(None, diagnostics, sources, files)
    views: list[frozenset[str] | None] = [stability.EVERY_FEATURE]
    if stability.has_attributes(files):
        views += [view for view in (stability.STABLE, features) if view not in views]
    kept = None
    stable = None
    for view in views:
        selected = stability.select(files, view)
        # The front end, then the Python target's mapping stage on what it made (its name
        # checks also on a model with errors), their problems sorted together by place.
        problems = Diagnostics()
        with paused_gc():
            resolved = resolve_unsorted(selected, problems, sources=infos, source_map=sources)
            plan = python.map_model(
                resolved, problems, complete=not problems.has_errors, facts=plan_facts
            )
        diagnostics.extend(_in_view(sort_diagnostics(problems, selected), view))
        if problems.has_errors:
            return Compilation(None, diagnostics, sources, files)
        if view == stability.STABLE:
            stable = resolved
        if kept is None or view == features:
            kept = Compilation(resolved, diagnostics, sources, files, plan)
    # Without unstable items every view is the whole model, the only one compiled.
    assert kept is not None
    kept.stable = stable
    return kept


def _in_view(found: list[Diagnostic], view: frozenset[str] | None) -> list[Diagnostic]:
    """`found` as found in `view`. Another view than the whole model's adds its errors only
    (its warnings are the whole model's again), each saying which view it is of."""
    if view is None:
        return found
    if view:
        shown = "the view of feature" + ("s " if len(view) > 1 else " ")
        shown += ", ".join(f"`{name}`" for name in sorted(view))
    else:
        shown = "the stable view, without the `@unstable` items"
    return [
        replace(item, message=f"{item.message} (in {shown})") for item in found if item.is_error
    ]


def _note_definitions(unit: ParsedFile, defined: set[str]) -> None:
    if unit.file is not None:
        for decl in unit.file.decls:
            if isinstance(decl, ast.InterfaceDecl):
                defined.add(decl.name.value)
