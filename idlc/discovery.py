"""Finding the IDL files of a project that does not configure idlc.

With no files named and no `[tool.idlc]` table, `idlc check` and `idlc fmt` act on every
`*.idl` file under the working folder, as one compilation (the way `buf lint` works without a
`buf.yaml`). Folders that hold other people's files or build output are skipped, so that a
virtual environment, an npm install or a build copy cannot add files (and duplicate
definitions) to the project's own.
"""

from __future__ import annotations

import os
from pathlib import Path

from idlc.diagnostics import Diagnostics, codes
from idlc.source import display_path

__all__ = ["SKIPPED_FOLDER_NAMES", "discover", "is_skipped_folder", "nothing_found_message"]

#: Folders skipped by name: installed packages, caches and build output.
SKIPPED_FOLDER_NAMES = frozenset({"node_modules", "__pycache__", "site-packages", "build", "dist"})

#: A folder holding one of these is an environment of installed packages (venv, virtualenv,
#: conda), whatever its name.
_ENVIRONMENT_MARKERS = ("pyvenv.cfg", "conda-meta")


def is_skipped_folder(folder: Path) -> bool:
    """Whether discovery leaves `folder` (below the starting folder) and all it holds out."""
    name = folder.name
    if name.startswith(".") or name in SKIPPED_FOLDER_NAMES or name.endswith(".egg-info"):
        return True
    return any(os.path.lexists(folder / marker) for marker in _ENVIRONMENT_MARKERS)


def discover(root: Path, diagnostics: Diagnostics) -> tuple[Path, ...]:
    """Every `*.idl` file under `root`, sorted, outside skipped folders.

    Symbolic links to folders are not followed (a link to an ancestor would never end); a
    link to a file is a file like any other. A folder that cannot be listed is reported, not
    silently left out: its files would otherwise be missing from the check.
    """
    found: list[Path] = []

    def unreadable(error: OSError) -> None:
        where = Path(error.filename) if error.filename is not None else root
        reason = error.strerror or str(error)
        diagnostics.add(
            codes.UNREADABLE_FILE,
            f"{display_path(where)}: cannot be searched for IDL files: {reason}",
            None,
            help="make the folder readable, or name the IDL files or folders to check",
        )

    for folder, subfolders, files in os.walk(root, onerror=unreadable):
        here = Path(folder)
        subfolders[:] = sorted(name for name in subfolders if not is_skipped_folder(here / name))
        found.extend(here / name for name in files if name.endswith(".idl"))
    return tuple(sorted(found))


def nothing_found_message(root: Path) -> str:
    """The one line said when discovery finds nothing (a success: there is nothing to check)."""
    where = display_path(root) if root != Path(".") else "the current folder"
    skipped = ", ".join(sorted(SKIPPED_FOLDER_NAMES))
    return (
        f"idlc: no .idl file under {where} and no [tool.idlc] in pyproject.toml: nothing to do "
        f"(hidden folders, virtual environments, *.egg-info, {skipped} are skipped)"
    )
