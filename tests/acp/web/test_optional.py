"""The `web` extra stays optional: `import idlc_acp` imports none of what it brings."""

from __future__ import annotations

import subprocess
import sys

WEB_ONLY = ("starlette", "uvicorn", "websockets", "hypercorn", "httpx", "h2", "idlc_acp.web")


def test_importing_idlc_acp_imports_nothing_of_the_web_extra() -> None:
    probe = (
        "import sys, idlc_acp, idlc_acp.protocol\n"
        f"print(sorted(m for m in {WEB_ONLY!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
