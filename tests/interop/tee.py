"""Run a stdio ACP peer and record every line that crosses its stdin and stdout.

    python tests/interop/tee.py LOG -- CMD [ARGS...]

Bytes pass through unchanged in both directions; LOG gets one JSON object per line,
{"to": "child" | "parent", "line": TEXT}, in the order each side's lines were seen ("child"
is what the wrapped command received, "parent" what it sent). The wrapper exits with the
child's status once the child has exited and both directions are drained.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import BinaryIO


def _pump(source: BinaryIO, sink: BinaryIO, log: BinaryIO, lock: threading.Lock, to: str) -> None:
    try:
        for line in iter(source.readline, b""):
            # Logged before it is passed on, so a reply is never logged before its request.
            record = json.dumps({"to": to, "line": line.decode("utf-8", "replace").rstrip("\r\n")})
            with lock:
                if not log.closed:
                    log.write(record.encode() + b"\n")
                    log.flush()
            try:
                sink.write(line)
                sink.flush()
            except (BrokenPipeError, ValueError):
                pass
    finally:
        try:
            sink.close()
        except (BrokenPipeError, OSError):
            pass


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    log_path, command = sys.argv[1], sys.argv[3:]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert child.stdin is not None and child.stdout is not None
    lock = threading.Lock()
    with open(log_path, "ab") as log:
        inbound = threading.Thread(
            target=_pump, args=(sys.stdin.buffer, child.stdin, log, lock, "child"), daemon=True
        )
        outbound = threading.Thread(
            target=_pump, args=(child.stdout, sys.stdout.buffer, log, lock, "parent")
        )
        inbound.start()
        outbound.start()
        status = child.wait()
        outbound.join()
        # What the parent may still be writing after the child exited goes nowhere.
        inbound.join(timeout=1.0)
    return status


if __name__ == "__main__":
    sys.exit(main())
