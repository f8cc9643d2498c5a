"""Every test here needs node and the built runtime (tests/runtime_ts/support.py)."""

from __future__ import annotations

import pytest

from tests.runtime_ts.support import require_runtime


@pytest.fixture(scope="session")
def node() -> str:
    return require_runtime()
