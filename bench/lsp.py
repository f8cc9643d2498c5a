"""How long `idlc lsp` takes to check a unit again after an edit, in-process.

Two workspaces: the two seeds (idl/quixos), and a synthetic one of 100 files holding 2,000
interfaces (20 per file, each with 6 members using the file's records and the shared
atoms). For each, one file's text is edited (a different doc comment every run, so it must
be parsed again) and the unit is analysed as the server does (`idlc.lsp.analysis.analyze`,
unchanged files' parses reused); the median of the runs is printed, in milliseconds.

    python bench/lsp.py [--runs 21]

Needs the `lsp` extra only for nothing: the analysis is the server's, without LSP.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from idlc.lsp.analysis import ParseCache, analyze  # noqa: E402
from idlc.lsp.units import Units  # noqa: E402

_REPO = Path(__file__).resolve().parent.parent
FILES = 100
INTERFACES_PER_FILE = 20


def synthetic_file(k: int) -> str:
    lines = [f'external atom Atom{k} id "atom:bench:{k}";']
    for j in range(INTERFACES_PER_FILE):
        lines.append(
            f"type Rec{k}x{j} = record {{ name : string; size : uint64; tags : list<string>; "
            f"owner : optional<atom-ref<Atom{k}>>; }};"
        )
    for j in range(INTERFACES_PER_FILE):
        base = f"bench:{k}:{j}"
        members = [
            f'queryable value state{m} id "{base}:v{m}" : Rec{k}x{j} '
            f'{{ get id "{base}:v{m}:get" execution snapshot; }}'
            for m in range(2)
        ] + [
            f'operation act{m} id "{base}:o{m}" : record {{ input : Rec{k}x{j}; }} -> bool '
            f'{{ call id "{base}:o{m}:call" execution transaction; }}'
            for m in range(3)
        ] + [
            f'queryable relation owner id "{base}:owner" : optional-one atom Atom{k} '
            f'{{ resolve id "{base}:owner:resolve" execution snapshot; }}'
        ]
        body = "\n  ".join(members)
        lines.append(
            f'interface I{k}x{j} id "interface:{base}" revision "interface:{base}@1" {{\n  {body}\n}}'
        )
    return "\n".join(lines) + "\n"


def recheck_ms(folder: Path, edited: Path, runs: int) -> float:
    units = Units()
    units.set_folders([folder])
    unit = units.unit_for(edited)
    cache = ParseCache()
    base = edited.read_text(encoding="utf-8")
    first = analyze(unit, {edited.resolve(): base}, cache, 0)  # the server's first check
    assert not [d for d in first.diagnostics if d.is_error], first.diagnostics[:3]
    times = []
    for run in range(1, runs + 1):
        text = f"/// edit {run}\n" + base if base.startswith("interface") else base + f"// edit {run}\n"
        start = time.perf_counter()
        analyze(unit, {edited.resolve(): text}, cache, run)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=21)
    runs = options.parse_args().runs
    with tempfile.TemporaryDirectory() as name:
        seeds = Path(name) / "seeds"
        shutil.copytree(_REPO / "idl" / "quixos", seeds)
        seed_ms = recheck_ms(seeds, seeds / "agent_request.idl", runs)
        print(f"seeds (2 files): median {seed_ms:.1f} ms per re-check after an edit")
        big = Path(name) / "big"
        big.mkdir()
        for k in range(FILES):
            (big / f"file{k:03}.idl").write_text(synthetic_file(k), encoding="utf-8")
        big_ms = recheck_ms(big, big / "file050.idl", max(3, runs // 4))
        print(
            f"{FILES * INTERFACES_PER_FILE} interfaces ({FILES} files): "
            f"median {big_ms:.1f} ms per re-check after an edit"
        )


if __name__ == "__main__":
    main()
