"""Which files a document is compiled with (its *unit*), found as `idlc check` would.

A document inside a package of `[tool.idlc]` (the nearest `pyproject.toml` upwards) is
compiled with that package's sources, include folders and allowed warnings. Without a
`[tool.idlc]` table, it is compiled with every `*.idl` of its workspace folder (found as
`idlc check` finds them without configuration, `idlc.discovery`). A document that a configuration
leaves out of every package is compiled alone, like `idlc check FILE` would.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from idlc import config
from idlc.boundedread import read_input
from idlc.diagnostics import Diagnostic, Diagnostics
from idlc.discovery import discover


@dataclass(frozen=True, slots=True)
class Unit:
    """One compilation: what `compile_files` is given."""

    key: tuple[str, ...]
    paths: tuple[Path, ...]
    include: tuple[Path, ...] = ()
    allow: tuple[str, ...] = ()
    #: Folders whose `*.idl` files belong to the unit (new files there join it).
    folders: tuple[Path, ...] = ()
    #: What is wrong with the configuration that should have said what the unit is.
    problems: tuple[Diagnostic, ...] = ()

    def covers(self, path: Path) -> bool:
        """Whether a file at `path` belongs to this unit."""
        return path in self.paths or any(_is_under(path, folder) for folder in self.folders)


def _is_under(path: Path, folder: Path) -> bool:
    return folder in path.parents


def resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def idl_files(root: Path) -> list[Path]:
    """Every `*.idl` below `root`, sorted, found exactly as `idlc check` finds them without
    configuration (`idlc.discovery`: the same skipped folders). A folder that cannot be
    listed is left out here; `idlc check` reports it."""
    return list(discover(root, Diagnostics()))


class Units:
    """Finds and remembers the unit of each document until the files on disk change."""

    def __init__(self) -> None:
        self.folders: list[Path] = []
        self._units: dict[Path, Unit] = {}

    def set_folders(self, folders: Iterable[Path]) -> None:
        self.folders = sorted({resolved(folder) for folder in folders}, key=lambda p: len(p.parts))
        self.invalidate()

    def invalidate(self) -> None:
        """Files were created, deleted or saved, or a configuration changed."""
        self._units.clear()

    def unit_for(self, path: Path, unsaved: Iterable[Path] = ()) -> Unit:
        """The unit of the document at `path` (resolved); `unsaved` are open documents
        that may exist only in the editor."""
        path = resolved(path)
        unit = self._units.get(path)
        if unit is None:
            unit = self._find(path, [resolved(other) for other in unsaved])
            for member in unit.paths:
                self._units.setdefault(member, unit)
            self._units[path] = unit
        return unit

    def _find(self, path: Path, unsaved: list[Path]) -> Unit:
        pyproject = config.find_pyproject(path.parent)
        if pyproject is not None and _configures_idlc(pyproject):
            problems = Diagnostics()
            configured = config.load(problems, pyproject.parent)
            if configured is not None:
                for package in configured.packages:
                    unit = _package_unit(pyproject, package, path, unsaved)
                    if unit is not None:
                        return unit
            # Checked alone, with what is wrong with the configuration (if anything).
            return Unit(("file", str(path)), (path,), problems=tuple(problems))
        root = self._workspace_folder(path)
        if root is None:
            return Unit(("file", str(path)), (path,))
        files = [resolved(file) for file in idl_files(root)]
        extra = [
            other for other in [path, *unsaved] if _is_under(other, root) and other not in files
        ]
        return Unit(("folder", str(root)), tuple(sorted({*files, *extra})), folders=(root,))

    def _workspace_folder(self, path: Path) -> Path | None:
        containing = [folder for folder in self.folders if _is_under(path, folder)]
        return containing[-1] if containing else None


def _configures_idlc(pyproject: Path) -> bool:
    """Whether `pyproject.toml` has a `[tool.idlc]` table (read cheaply, as text)."""
    try:
        text = read_input(pyproject).decode("utf-8", errors="replace")
    except OSError:
        return False
    return "[tool.idlc" in text


def _package_unit(
    pyproject: Path, package: config.PackageConfig, path: Path, unsaved: list[Path]
) -> Unit | None:
    sources = [resolved(source) for source in package.sources]
    folders = tuple(source for source in sources if source.is_dir())
    files = tuple(source for source in sources if source not in folders)
    if path not in files and not any(_is_under(path, folder) for folder in folders):
        return None
    # New files not saved yet join the folder they are in, as they will once saved.
    extra = tuple(
        other
        for other in [path, *unsaved]
        if any(_is_under(other, folder) for folder in folders) and not other.is_file()
    )
    return Unit(
        ("package", str(pyproject), package.name),
        (*sources, *dict.fromkeys(extra)),
        tuple(package.include),
        tuple(package.allow),
        folders,
    )
