"""Benchmark: `idlc generate` against `protoc --python_out --pyi_out --grpc_python_out`.

Writes synthetic schemas in the seeds' style (N interfaces of 12 members, 3N records of 6–10
fields, atoms and imports) and the equivalent .proto (records → messages, atom refs →
wrapper messages, one service per interface, one rpc per member), then times both as whole
processes, alternated, median of REPEAT runs (wall time, and CPU time user+sys of the child,
which a shared machine disturbs less). Also times an up-to-date `idlc generate --check` on
the seeds.

Both tools run with Python's bytecode cache on (in a temporary PYTHONPYCACHEPREFIX, warmed
by one untimed run), as they would be installed: a development shell with
PYTHONDONTWRITEBYTECODE=1 would otherwise recompile idlc's own modules on every run.

    .venv/bin/python bench/codegen.py [N ...]     (from the repository root; needs the `bench` extra)
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from synthetic import write_schema_pair

ROOT = Path(__file__).resolve().parents[1]
REPEAT = 3

PYCACHE = Path(tempfile.gettempdir()) / "idlc-bench-pycache"
ENV = {
    **{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPYCACHEPREFIX": str(PYCACHE),
}


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + sys) of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=ENV)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}… failed:\n{result.stdout}\n{result.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def median(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def run(n: int) -> tuple[tuple[float, float], tuple[float, float]]:
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        idl_files, proto = write_schema_pair(folder, n)
        idlc_times, protoc_times = [], []
        for attempt in range(REPEAT + 1):  # the first run of each only warms the caches
            out = folder / "idlc_out"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            idlc = timed(
                [
                    sys.executable,
                    "-m",
                    "idlc",
                    "generate",
                    *map(str, idl_files),
                    "--out",
                    str(out),
                    "--package",
                    "bench_pkg",
                ],
                ROOT,
            )
            pout = folder / "protoc_out"
            shutil.rmtree(pout, ignore_errors=True)
            pout.mkdir()
            protoc = timed(
                [
                    sys.executable,
                    "-m",
                    "grpc_tools.protoc",
                    f"-I{folder}",
                    f"--python_out={pout}",
                    f"--pyi_out={pout}",
                    f"--grpc_python_out={pout}",
                    str(proto),
                ],
                folder,
            )
            if attempt:
                idlc_times.append(idlc)
                protoc_times.append(protoc)
        return median(idlc_times), median(protoc_times)


def check_seeds() -> tuple[float, float]:
    command = [
        sys.executable,
        "-m",
        "idlc",
        "generate",
        "idl/quixos/agent_directory.idl",
        "idl/quixos/agent_request.idl",
        "--out",
        "generated",
        "--package",
        "quixos_agent",
        "--check",
    ]
    timed(command, ROOT)
    return median([timed(command, ROOT) for _ in range(5)])


def main() -> None:
    sizes = [int(arg) for arg in sys.argv[1:]] or [10, 100, 1000]
    targets = {10: 1.5, 100: 0.8, 1000: 0.25}  # issue 12
    print(
        f"{'N':>6} {'idlc s':>8} {'protoc s':>8} {'ratio':>6} "
        f"{'idlc cpu':>8} {'protoc cpu':>10} {'ratio':>6} {'target':>6}"
    )
    for n in sizes:
        (idlc_wall, idlc_cpu), (protoc_wall, protoc_cpu) = run(n)
        print(
            f"{n:>6} {idlc_wall:>8.3f} {protoc_wall:>8.3f} {idlc_wall / protoc_wall:>6.2f} "
            f"{idlc_cpu:>8.3f} {protoc_cpu:>10.3f} {idlc_cpu / protoc_cpu:>6.2f} "
            f"{targets.get(n, float('nan')):>6}"
        )
    wall, cpu = check_seeds()
    print(
        f"idlc generate --check on the seeds: {wall:.3f} s wall, {cpu:.3f} s cpu (target ≤ 0.3 s)"
    )


if __name__ == "__main__":
    main()
