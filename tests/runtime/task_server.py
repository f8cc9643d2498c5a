"""A process serving the sample API and the `t:*` handlers of task_handlers.py on stdio."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from idlc_runtime import serve_stdio  # noqa: E402
from tests.runtime.support import SampleService  # noqa: E402
from tests.runtime.task_handlers import OPTIONS  # noqa: E402

if __name__ == "__main__":
    asyncio.run(serve_stdio(SampleService(), options=OPTIONS))
