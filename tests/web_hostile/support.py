"""Starting the hostile tests' server (`server.py`) as a subprocess under an address-space
limit, and reading its memory high-water mark."""

from __future__ import annotations

import contextlib
import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The server's address-space limit: a regression fails (MemoryError) instead of taking
#: the machine's memory.
ADDRESS_SPACE = 2 * 1024**3


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


@contextlib.contextmanager
def server_process(kind: str, *arguments: str) -> Iterator[tuple[int, int]]:
    """`python server.py KIND ARGUMENTS…` running: (its port, its process id)."""
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "web_hostile" / "server.py"), kind, *arguments],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_limit,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, "the server did not start"
        yield int(line), process.pid
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def server(kind: str) -> Iterator[int]:
    with server_process(kind) as (port, _):
        yield port


def peak_rss(pid: int) -> int:
    """The most resident memory process `pid` has had so far, in bytes (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc/PID/status")
