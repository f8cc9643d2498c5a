"""Helpers of the TypeScript interop tests (issue 25): the seeds' generated TypeScript built
with the Node examples, and the servers of both sides, on 127.0.0.1, each bounded in time.

The build is what a user does: `idlc generate --target typescript` of idl/quixos into a
folder, examples/quixos_server.ts and quixos_client.ts (and the test scripts of `ts/`)
beside the package, `@idlc/runtime` linked to runtime-ts, and `tsc --strict` with NodeNext
resolution. Without node or runtime-ts's node_modules the tests skip on a developer machine
and fail under CI (tests/runtime_ts/support.py's `require_runtime`).
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tests.runtime_ts.support import PYTHON, REPO, RUNTIME_TS, TIMEOUT, python_env, run_node

HERE = Path(__file__).resolve().parent
EXAMPLES = REPO / "examples"
PY_SERVER = str(EXAMPLES / "quixos_server.py")
#: The quixos directory plus `test:slow` / `test:was-cancelled` (for cancellation).
PY_HOOKS_SERVER = str(REPO / "tests" / "runtime_ts" / "py_server.py")
TSC = RUNTIME_TS / "node_modules" / ".bin" / "tsc"
SEEDS = sorted((REPO / "idl" / "quixos").glob("*.idl"))

__all__ = ["PYTHON", "REPO", "TIMEOUT", "build", "listening", "python_env", "run_node"]


def build(folder: Path, extra: Sequence[Path] = ()) -> Path:
    """Generates the seeds' TypeScript into `folder/src/quixos_agent`, compiles it with the
    examples, `ts/*.ts` and `extra`; the folder of the JavaScript (`quixos_server.js` …)."""
    source = folder / "src"
    subprocess.run(
        [
            PYTHON, "-m", "idlc", "generate", *map(str, SEEDS),
            "--target", "typescript", "--out", str(source), "--package", "quixos_agent",
        ],
        check=True, capture_output=True, timeout=TIMEOUT, cwd=REPO,
    )  # fmt: skip
    for script in [EXAMPLES / "quixos_server.ts", EXAMPLES / "quixos_client.ts"]:
        shutil.copy(script, source / script.name)
    for script in [*(HERE / "ts").glob("*.ts"), *extra]:
        shutil.copy(script, source / script.name)
    (folder / "package.json").write_text('{"type": "module", "private": true}\n')
    modules = folder / "node_modules"
    (modules / "@idlc").mkdir(parents=True, exist_ok=True)
    (modules / "@idlc" / "runtime").symlink_to(RUNTIME_TS, target_is_directory=True)
    # Node's types and `ws`, as a Node project has them (from runtime-ts's node_modules).
    for name in ["@types", "ws"]:
        (modules / name).symlink_to(RUNTIME_TS / "node_modules" / name)
    config = {
        "compilerOptions": {
            "target": "ES2022",
            "lib": ["ES2022"],
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": True,
            "types": ["node"],
            "rootDir": "src",
            "outDir": "dist",
        },
        "include": ["src/**/*.ts"],
    }
    (folder / "tsconfig.json").write_text(json.dumps(config, indent=2))
    done = subprocess.run(
        [str(TSC), "-p", str(folder / "tsconfig.json"), "--strict"],
        capture_output=True, text=True, timeout=TIMEOUT * 5, cwd=folder,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return folder / "dist"


@contextlib.contextmanager
def listening(*argv: str) -> Iterator[str]:
    """Runs a server that prints `listening on ws://…` on stderr (both quixos servers do,
    given `--listen 127.0.0.1:0`); yields that URL, terminates the server at the end."""
    process = subprocess.Popen(
        list(argv),
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        text=True,
        env=python_env(),
        cwd=REPO,
    )
    # Bounds the wait for the line: a server that hangs before listening is killed.
    watchdog = threading.Timer(TIMEOUT, process.kill)
    watchdog.start()
    try:
        assert process.stderr is not None
        for line in process.stderr:
            found = re.search(r"listening on (ws://\S+)", line)
            if found:
                watchdog.cancel()
                # Drained from here on, so that a chatty server never fills the pipe.
                threading.Thread(target=process.stderr.read, daemon=True).start()
                yield found.group(1)
                break
        else:
            raise AssertionError(f"{argv} exited ({process.wait()}) without listening")
    finally:
        watchdog.cancel()
        process.terminate()
        try:
            process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def python_server(*args: str) -> list[str]:
    return [PYTHON, PY_SERVER, *args]


def masked(seen: dict[str, Any]) -> dict[str, Any]:
    """`seen` without what depends on the clock: the end of the follow-up request, which
    cancelling it unclaimed stamps with the server's time."""
    copy = json.loads(json.dumps(seen))
    ended = copy["followUp progress"]["result"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", ended.pop("endedAt")), ended
    return copy
