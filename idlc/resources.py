"""Where the grammar and templates are, in a checkout and in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The folder `name` (`grammar`, `templates` or `docs`).

    A wheel carries it as `idlc/_data/<name>`; a checkout (and an editable install)
    has it at the top of the repository, beside the package.
    """
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"idlc is installed without its {name}/ folder")
