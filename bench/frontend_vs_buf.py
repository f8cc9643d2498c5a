"""Benchmark: `idlc check` against `buf build`, and `idlc fmt --check` against `buf format`.

On the schema twins bench/codegen.py compares with protoc (`synthetic.write_schema_pair`:
N .idl files of one interface, 3 records and 10 atoms each, and one equivalent bench.proto),
both sides run as whole processes, alternated run by run, median wall time and median CPU
time (user + sys of the child) of RUNS runs after one untimed warm-up each; then the ratios
idlc/buf. Before the `fmt` runs both sides' files are formatted once (`idlc fmt`,
`buf format -w`), so both checks find nothing to change and exit 0. Last, `idlc fmt
--check` against `idlc check` on the same files, alternated the same way (target ≤ 1.0:
formatting no slower than checking).

buf is the Go protobuf toolchain, from npm at the version `bench/buf/package-lock.json`
pins (`@bufbuild/buf` ships the binary):

    npm ci --prefix bench/buf
    .venv/bin/python bench/frontend_vs_buf.py            # options: --runs 7 --sizes 10 100 1000

idlc runs with Python's bytecode cache on (in a temporary PYTHONPYCACHEPREFIX), as an
installed idlc has it: a development shell's PYTHONDONTWRITEBYTECODE=1 would recompile
idlc's modules on every run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from synthetic import write_schema_pair

ROOT = Path(__file__).resolve().parent.parent
BUF = ROOT / "bench" / "buf" / "node_modules" / ".bin" / "buf"
TARGET = 0.8
PYCACHE = Path(tempfile.gettempdir()) / "idlc-bench-pycache"
ENV = {
    **{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPYCACHEPREFIX": str(PYCACHE),
}


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + sys) of one run of `command`, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=ENV)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}… failed:\n{result.stdout}\n{result.stderr}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def alternated(
    ours: list[str], theirs: list[str], cwd: Path, runs: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Medians (wall, cpu) of each command, run alternately after one warm-up each."""
    timed(ours, cwd)
    timed(theirs, cwd)
    our_runs, their_runs = [], []
    for _ in range(runs):
        our_runs.append(timed(ours, cwd))
        their_runs.append(timed(theirs, cwd))

    def medians(series: list[tuple[float, float]]) -> tuple[float, float]:
        return statistics.median(r[0] for r in series), statistics.median(r[1] for r in series)

    return medians(our_runs), medians(their_runs)


def report(
    what: str,
    n: int,
    ours: tuple[float, float],
    theirs: tuple[float, float],
    target: float = TARGET,
) -> None:
    wall_ratio, cpu_ratio = ours[0] / theirs[0], ours[1] / theirs[1]
    verdict = "met" if max(wall_ratio, cpu_ratio) <= target else "missed"
    print(
        f"{what:<26} {n:>5} {ours[0]:>8.3f} {theirs[0]:>8.3f} {wall_ratio:>6.2f} "
        f"{ours[1]:>8.3f} {theirs[1]:>8.3f} {cpu_ratio:>6.2f}  ≤ {target} {verdict}",
        flush=True,
    )


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=7)
    options.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    arguments = options.parse_args()
    if not BUF.exists():
        raise SystemExit(
            f"buf is not installed: run `npm ci --prefix bench/buf` (it installs the version "
            f"bench/buf/package-lock.json pins into {BUF.relative_to(ROOT)})"
        )
    idlc = [sys.executable, "-m", "idlc"]
    print(
        f"{'command (idlc vs buf)':<26} {'N':>5} {'idlc s':>8} {'buf s':>8} {'ratio':>6} "
        f"{'idlc cpu':>8} {'buf cpu':>8} {'ratio':>6}  target"
    )
    for n in arguments.sizes:
        with tempfile.TemporaryDirectory() as temp:
            folder = Path(temp)
            idl_files, proto = write_schema_pair(folder, n)
            module = folder / "proto"  # buf builds every .proto under a folder: its own
            module.mkdir()
            proto = proto.rename(module / proto.name)
            names = [path.name for path in idl_files]
            ours, theirs = alternated(
                [*idlc, "check", *names], [str(BUF), "build", str(module)], folder, arguments.runs
            )
            report("check / build", n, ours, theirs)
            timed([*idlc, "fmt", *names], folder)
            timed([str(BUF), "format", "-w", str(module)], folder)
            ours, theirs = alternated(
                [*idlc, "fmt", "--check", *names],
                [str(BUF), "format", "--diff", "--exit-code", str(module)],
                folder,
                arguments.runs,
            )
            report("fmt --check / format -d", n, ours, theirs)
            # Issue 24: formatting no slower than checking the same files.
            ours, theirs = alternated(
                [*idlc, "fmt", "--check", *names], [*idlc, "check", *names], folder, arguments.runs
            )
            report("fmt --check / idlc check", n, ours, theirs, target=1.0)


if __name__ == "__main__":
    main()
