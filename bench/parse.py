"""Parse + resolve throughput, and the whole-process time of `idlc check`.

    python bench/parse.py [--runs 5]

Writes synthetic schemas in the seeds' style (bench/synthetic.py) with N = 10, 100, 1000
interfaces, compiles each with `idlc.pipeline.compile_files` (read, parse, resolve, lint)
and prints MB/s (median of the runs), by the wall clock and by this process's CPU time (the
second is steadier on a shared machine). Then times `idlc check` on one seed as a whole
process (interpreter start-up included), median of the runs. Targets (issue 2): at least
1 MB/s at every N, and at most 0.25 s for `idlc check` on one seed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from synthetic import schema

from idlc.pipeline import compile_files

ROOT = Path(__file__).resolve().parent.parent

SEED = ROOT / "idl" / "quixos" / "agent_directory.idl"


def throughput(n: int, runs: int, folder: Path) -> tuple[float, float, float]:
    path = folder / f"synthetic_{n}.idl"
    path.write_text(schema(n), encoding="utf-8")
    size = path.stat().st_size / 1e6
    compile_files([path])  # warm: grammar tables loaded, caches filled
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        compilation = compile_files([path])
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        assert compilation.model is not None, "the synthetic schema must compile cleanly"
    return size, statistics.median(wall), statistics.median(cpu)


def check_process(runs: int, pycache: Path) -> float:
    """`idlc check` as users run it: with Python's bytecode cache on (a shell with
    PYTHONDONTWRITEBYTECODE=1 would recompile idlc's modules on every run)."""
    command = [sys.executable, "-m", "idlc", "check", str(SEED)]
    environment = {
        **{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
        "PYTHONPYCACHEPREFIX": str(pycache),
    }
    # Warm: the grammar tables and the bytecode are cached by this run.
    subprocess.run(command, check=True, capture_output=True, env=environment)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=environment)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=5)
    arguments = options.parse_args()
    print(f"{'N':>6} {'MB':>8} {'wall s':>8} {'MB/s':>6} {'cpu s':>8} {'MB/s':>6}")
    with tempfile.TemporaryDirectory() as folder:
        # The processes first, while this one is small: forking a process that holds a
        # compiled 2.6 MB schema costs time the measured command would be charged with.
        seconds = check_process(arguments.runs, Path(folder) / "pycache")
        for n in (10, 100, 1000):
            size, wall, cpu = throughput(n, arguments.runs, Path(folder))
            print(
                f"{n:>6} {size:>8.3f} {wall:>8.3f} {size / wall:>6.2f} {cpu:>8.3f} {size / cpu:>6.2f}"
            )
    print(f"idlc check {SEED.relative_to(ROOT)}: {seconds:.3f} s (whole process, median)")


if __name__ == "__main__":
    main()
