"""How a generated module names the IDL files it came from.

The names are relative to the project (the folder of the `pyproject.toml` found from the
working folder, else the working folder) and use `/`: never absolute, so the generated
bytes are the same on every machine and checkout, whatever folder `idlc generate` ran in.
The header carries no digest of the files' text either: a comment-only or whitespace-only
edit of the IDL must not change any generated file (the generated text itself is what
`idlc generate --check` compares, and it depends only on the IDL's meaning).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from idlc.semantics.model import SourceInfo

__all__ = ["project_root", "source_names"]


def project_root(start: Path | None = None) -> Path:
    """The folder holding the `pyproject.toml` found from `start` (default: the working
    folder) upwards; `start` itself when there is none."""
    from idlc.config import find_pyproject

    folder = (start or Path.cwd()).absolute()
    found = find_pyproject(folder)
    return found.parent if found is not None else folder


def source_names(sources: Sequence[SourceInfo], root: Path | None = None) -> list[str]:
    """The sources' paths relative to `root` (default: `project_root()`), with `/`.

    `SourceInfo.path` is a display path: relative to the working folder, or absolute.
    """
    working = os.getcwd()
    base = os.path.abspath(root if root is not None else project_root())
    names = []
    for info in sources:
        absolute = os.path.abspath(os.path.join(working, info.path))
        try:
            relative = os.path.relpath(absolute, base)
        except ValueError:  # on another drive (Windows): no relative path exists
            relative = os.path.basename(absolute)
        names.append(relative.replace(os.sep, "/"))
    return names
