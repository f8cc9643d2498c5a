"""A process serving the sample API on stdio, for the transport tests.

Its handlers also print and write to file descriptor 1 on purpose: serving must keep that
noise out of the protocol stream (it goes to stderr).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from idlc_runtime import serve_stdio  # noqa: E402
from tests.runtime.support import SampleService  # noqa: E402


class NoisyService(SampleService):
    async def ping(self) -> str:
        print("noise from print")
        os.write(1, b"noise from fd 1\n")
        return "pong"


def main() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    asyncio.run(serve_stdio(NoisyService()))
    # After serving, stdout is the real one again.
    print("served", file=sys.stderr)


if __name__ == "__main__":
    main()
