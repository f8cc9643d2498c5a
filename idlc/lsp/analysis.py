"""One unit compiled as `idlc check` compiles it, from the editor's texts where open.

Parses are remembered per file and reused while its text is unchanged, so an edit re-parses
one file; name resolution runs on the whole unit again (it is linear and fast). Everything
here runs on the language server's one worker thread: the parser is not re-entrant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from idlc import pipeline
from idlc.boundedread import MAX_INPUT_BYTES, InputTooLarge, text_over_limit
from idlc.diagnostics import Diagnostic, Diagnostics, without_allowed
from idlc.gcpause import paused_gc
from idlc.lsp.index import FilePart, Index, build_index, file_part
from idlc.lsp.units import Unit, resolved
from idlc.source import SourceFile, SourceMap
from idlc.syntax import ast, parser, reader


@dataclass(slots=True)
class _Parse:
    digest: str
    source: SourceFile | None
    file: ast.File | None
    diagnostics: tuple[Diagnostic, ...]


@dataclass(slots=True)
class ParseCache:
    """The last parse of each file (by display path), and its last parse without errors."""

    parses: dict[str, _Parse] = field(default_factory=dict)
    last_good: dict[str, ast.File] = field(default_factory=dict)
    #: display path → (the tree, its part of the index), reused while the tree is
    parts: dict[str, tuple[ast.File, FilePart]] = field(default_factory=dict)

    def part(self, file: ast.File) -> FilePart:
        known = self.parts.get(file.path)
        if known is not None and known[0] is file:
            return known[1]
        part = file_part(file)
        self.parts[file.path] = (file, part)
        return part

    def parse(self, display: str, data: bytes) -> _Parse:
        digest = reader.digest(data)
        known = self.parses.get(display)
        if known is not None and known.digest == digest:
            return known
        found = Diagnostics()
        source = reader.decode(display, data, found)
        file = parser.parse(source, found) if source is not None else None
        result = _Parse(digest, source, file, tuple(found))
        self.parses[display] = result
        if file is not None:
            self.last_good[display] = file
        return result


class _EditorLoader(pipeline._Loader):
    """Reads open documents from the editor, everything else from disk; parses once."""

    def __init__(self, texts: Mapping[Path, str], cache: ParseCache) -> None:
        super().__init__(Diagnostics(), SourceMap())
        self.texts = texts
        self.cache = cache
        #: display path → the file's path, for turning spans back into URIs
        self.paths: dict[str, Path] = {}

    def read(self, path: Path) -> bytes | None:
        text = self.texts.get(resolved(path))
        if text is None:
            return super().read(path)
        if text_over_limit(text):
            # As for a file on disk over the limit: not parsed, one E0012 naming the limit.
            self.too_large(path, InputTooLarge(path, MAX_INPUT_BYTES))
            return None
        return text.encode("utf-8", "surrogatepass")

    def parse_text(self, path: Path, data: bytes) -> pipeline.ParsedFile:
        display = pipeline.display_path(path)
        parsed = self.cache.parse(display, data)
        self.diagnostics.extend(parsed.diagnostics)
        if parsed.source is not None:
            self.sources.add(parsed.source)
        result = pipeline.ParsedFile(path, display, parsed.digest, parsed.source, parsed.file)
        self.loaded[pipeline._key(path)] = result
        self.paths[display] = resolved(path)
        return result


@dataclass(slots=True)
class Analysis:
    """What the language server knows of one unit at one revision of the editor's texts."""

    revision: int
    unit: Unit
    compilation: pipeline.Compilation
    #: What `idlc check` would report (allowed warnings left out).
    diagnostics: list[Diagnostic]
    #: display path → path of every file read, with or without problems
    paths: dict[str, Path]
    index: Index
    displays: dict[Path, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.displays = {path: display for display, path in self.paths.items()}

    def source(self, path: Path) -> SourceFile | None:
        display = self.display(path)
        return self.compilation.sources.get(display) if display is not None else None

    def display(self, path: Path) -> str | None:
        return self.displays.get(resolved(path))


def analyze(unit: Unit, texts: Mapping[Path, str], cache: ParseCache, revision: int) -> Analysis:
    # The index is as many small objects as the trees: as for the compiler's own phases,
    # the collector would only scan the whole unit again and again (idlc/gcpause.py).
    with paused_gc():
        return _analyze(unit, texts, cache, revision)


def _analyze(unit: Unit, texts: Mapping[Path, str], cache: ParseCache, revision: int) -> Analysis:
    loader = _EditorLoader(texts, cache)
    compilation = pipeline.compile_files(
        list(unit.paths), list(unit.include), loader=loader, plan_facts=False
    )
    parsed = [item.file for item in loader.loaded.values() if item.file is not None]
    broken = [
        cache.last_good[item.display]
        for item in loader.loaded.values()
        if item.file is None and item.display in cache.last_good
    ]
    index = build_index(parsed, names_only=broken, part_of=cache.part)
    diagnostics = [*unit.problems, *without_allowed(compilation.diagnostics, unit.allow)]
    return Analysis(revision, unit, compilation, diagnostics, dict(loader.paths), index)
