"""Round trips per second of a Node client through the generated TypeScript proxy against
the Python quixos server over WebSocket, beside a raw `ws` JSON loop (issue 25).

The seeds' TypeScript is generated and compiled with bench/ts_roundtrip.ts as the interop
tests build it (tests/interop_ts/support.py: `idlc generate --target typescript`, `tsc
--strict`, NodeNext); examples/quixos_server.py serves on a free port of 127.0.0.1
(`--listen 127.0.0.1:0 --quiet`). One Node process then makes `--count` sequential calls of
`agent:directory:data:get` per run, `--runs` times each way, the two ways alternated:

- proxy: `AgentDirectoryProxy.data()` over `connectWebSocket` of `@idlc/runtime/node` (the
  peer, the envelope, the answer decoded and validated into `DirectoryData`);
- raw: the same method as JSON-RPC text over a `ws` socket, `JSON.parse` of the answer and
  a check of its id, nothing else.

Both go to the same server over their own connection, so the server's cost is in both;
the ratio raw / proxy is what the runtime and the generated code add on the Node side.

Usage, from the repository root (as a module: it builds the TypeScript as the interop tests
do, with their helpers):  python -m bench.ts_roundtrip [--runs 7] [--count 3000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.interop_ts.support import build, listening, python_server
from tests.runtime_ts.support import require_runtime

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--count", type=int, default=3000)
    args = parser.parse_args()
    try:
        node = require_runtime()
    except (pytest.skip.Exception, pytest.fail.Exception) as missing:
        sys.exit(f"cannot run: {missing.msg}")
    with tempfile.TemporaryDirectory() as folder:
        dist = build(Path(folder), [REPO / "bench" / "ts_roundtrip.ts"])
        with listening(*python_server("--listen", "127.0.0.1:0", "--quiet")) as url:
            done = subprocess.run(
                [node, str(dist / "ts_roundtrip.js"), url, str(args.runs), str(args.count)],
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
    if done.returncode != 0:
        sys.exit(f"ts_roundtrip.js failed ({done.returncode}):\n{done.stderr}")
    seen = json.loads(done.stdout)
    proxy, raw = statistics.median(seen["proxy"]), statistics.median(seen["raw"])
    print(f"{args.runs} alternated runs of {args.count} sequential round trips, WebSocket")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"  node {version}, Python {sys.version.split()[0]}")
    for name, rates in (("proxy", seen["proxy"]), ("raw", seen["raw"])):
        listed = ", ".join(f"{rate:,.0f}" for rate in rates)
        print(f"  {name:<6} median {statistics.median(rates):>8,.0f}/s   runs: {listed}")
    print(f"  raw / proxy: {raw / proxy:.2f}x (the proxy at {proxy / raw:.0%} of raw)")


if __name__ == "__main__":
    main()
