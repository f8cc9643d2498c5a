"""How the front end's cost grows with its input: time per item, and the ratio between sizes.

    .venv/bin/python bench/growth.py [--scale 1] [--runs 3]

Three inputs, each at four sizes that double, compiled by `idlc.pipeline.compile_files`
(read, parse, resolve, lint) after a warm-up; median of the runs, by CPU time (steadier
than the wall clock on a shared machine):

- unknown names: N records, each referring to a misspelt name of another (`Recrod17` for
  `Record17`), so every one is an error with a did-you-mean to look for;
- declarations: N flat records in one file;
- a string literal of N bytes (a field default), with the peak memory tracemalloc sees
  while it is compiled, per byte of input.

Linear growth shows as a flat time per item and a ratio near 2.0 between sizes.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from idlc.pipeline import compile_files

ROOT = Path(__file__).resolve().parent.parent


def unknown_names(n: int) -> str:
    # Every record refers to a misspelt name of the next: an unknown type with a near miss.
    return "".join(
        f"type Record{i} = record {{ next : optional<Recrod{(i + 1) % n}>; }};\n" for i in range(n)
    )


def declarations(n: int) -> str:
    return "".join(f"type Record{i} = record {{ name : string; }};\n" for i in range(n))


def string_literal(n: int) -> str:
    return 'type Note = record { text : string = "' + "a" * n + '"; };\n'


def measure(text: str, runs: int, folder: Path, memory: bool) -> tuple[float, float | None]:
    """Median CPU seconds to compile `text`, and the peak traced bytes (when asked)."""
    path = folder / "growth.idl"
    path.write_text(text, encoding="utf-8")
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        compile_files([path])
        times.append(time.process_time() - start)
    peak = None
    if memory:
        gc.collect()
        tracemalloc.start()
        compile_files([path])
        peak = float(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return statistics.median(times), peak


def series(
    title: str,
    unit: str,
    make: Callable[[int], str],
    sizes: list[int],
    runs: int,
    folder: Path,
    memory: bool = False,
) -> None:
    print(f"\n{title}")
    header = f"{'N':>10} {'CPU s':>8} {'µs/' + unit:>10} {'ratio':>6}"
    print(header + (f" {'peak MB':>8} {'B/byte':>7}" if memory else ""))
    previous: float | None = None
    for n in sizes:
        text = make(n)
        seconds, peak = measure(text, runs, folder, memory)
        ratio = f"{seconds / previous:>6.2f}" if previous else f"{'':>6}"
        line = f"{n:>10,} {seconds:>8.3f} {seconds / n * 1e6:>10.3f} {ratio}"
        if peak is not None:
            line += f" {peak / 1e6:>8.1f} {peak / len(text.encode()):>7.1f}"
        print(line)
        previous = seconds


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--scale", type=float, default=1.0, help="multiplies every size")
    options.add_argument("--runs", type=int, default=3)
    options.add_argument(
        "--only", choices=["names", "declarations", "string"], action="append",
        help="run only this series (repeatable)",
    )  # fmt: skip
    arguments = options.parse_args()

    def sizes(base: int) -> list[int]:
        return [int(base * arguments.scale) * 2**step for step in range(4)]

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        chosen = set(arguments.only or ["names", "declarations", "string"])
        measure(declarations(100), 1, folder, False)  # warm: tables loaded, caches filled
        if "names" in chosen:
            series("unknown names (each with a did-you-mean to look for)", "error",
                   unknown_names, sizes(2_000), arguments.runs, folder)  # fmt: skip
        if "declarations" in chosen:
            series("declarations (flat records in one file)", "decl",
                   declarations, sizes(10_000), arguments.runs, folder)  # fmt: skip
        if "string" in chosen:
            series("one string literal of N bytes", "byte",
                   string_literal, sizes(1_000_000), arguments.runs, folder, memory=True)  # fmt: skip


if __name__ == "__main__":
    main()
