"""Finds the generated `idlc_acp` package.

An installed idlc ships it beside `idlc`; in a source checkout it lives in `generated/`
next to the `idlc` folder, which is put on `sys.path` only when nothing else provides it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def ensure_importable() -> None:
    if importlib.util.find_spec("idlc_acp") is not None:
        return
    checkout = Path(__file__).resolve().parents[2] / "generated"
    if (checkout / "idlc_acp" / "__init__.py").is_file():
        sys.path.append(str(checkout))


ensure_importable()
