"""The example tests import the committed generated package, which is not installed."""

from __future__ import annotations

import sys
from pathlib import Path

_GENERATED = str(Path(__file__).resolve().parents[2] / "generated")
if _GENERATED not in sys.path:
    sys.path.insert(0, _GENERATED)
