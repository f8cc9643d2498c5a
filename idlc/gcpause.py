"""Pausing the cyclic garbage collector around the compiler's big allocation phases.

Parsing, resolving and generating allocate millions of small objects that stay alive until
the phase ends and form no cycles worth collecting; the collector would only scan them
again and again (it doubled the parse time of a 4 MB schema).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run the block with the cyclic collector off; it is turned back on only if it was on."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
