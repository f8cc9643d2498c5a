"""The web extra stays optional: the runtime itself imports none of it (docs/web.md)."""

from __future__ import annotations

import subprocess
import sys

WEB_PACKAGES = ("starlette", "uvicorn", "websockets", "hypercorn")


def test_importing_the_runtime_imports_no_web_package() -> None:
    probe = (
        "import sys, idlc_runtime, idlc_runtime.transports.channel\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {WEB_PACKAGES!r}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "[]"
