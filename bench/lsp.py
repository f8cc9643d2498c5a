"""How long `idlc lsp` takes to check a unit again after an edit, and how quickly it
answers while a big unit is being checked.

Two workspaces: the two seeds (idl/quixos), and a synthetic one of 100 files holding 2,000
interfaces (20 per file, each with 6 members using the file's records and its atom).

1. In-process: one file's text is edited (a different comment every run, so it must be
   parsed again) and the unit is analysed as the server does (`idlc.lsp.analysis.analyze`,
   unchanged files' parses reused). Median of the runs, in milliseconds.
2. Over stdio, on the big workspace (`python -m idlc lsp`, pygls's own client): one file is
   edited and, once the pause for typing is over and the unit is being checked again, a
   hover is asked in another open file; the median time to the hover's answer is printed,
   and the median time from the edit to its diagnostics (the 0.15 s pause included).

    python bench/lsp.py [--runs 21]

Needs the `lsp` extra (pygls) for part 2.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from idlc.lsp.analysis import ParseCache, analyze
from idlc.lsp.service import DEBOUNCE_SECONDS
from idlc.lsp.units import Units

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
        members = (
            [
                f'queryable value state{m} id "{base}:v{m}" : Rec{k}x{j} '
                f'{{ get id "{base}:v{m}:get" execution snapshot; }}'
                for m in range(2)
            ]
            + [
                f'operation act{m} id "{base}:o{m}" : record {{ input : Rec{k}x{j}; }} -> bool '
                f'{{ call id "{base}:o{m}:call" execution transaction; }}'
                for m in range(3)
            ]
            + [
                f'queryable relation owner id "{base}:owner" : optional-one atom Atom{k} '
                f'{{ resolve id "{base}:owner:resolve" execution snapshot; }}'
            ]
        )
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
        text = (
            f"/// edit {run}\n" + base
            if base.startswith("interface")
            else base + f"// edit {run}\n"
        )
        start = time.perf_counter()
        analyze(unit, {edited.resolve(): text}, cache, run)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


async def responsiveness(folder: Path, runs: int) -> tuple[float, float]:
    """(median ms to a hover in another file, median ms to diagnostics) after edits."""
    from lsprotocol import types as lsp
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "1")
    published: asyncio.Queue[str] = asyncio.Queue()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        published.put_nowait(params.uri)

    await client.start_io(sys.executable, "-m", "idlc", "lsp")
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            workspace_folders=[lsp.WorkspaceFolder(folder.as_uri(), "big")],
        )
    )
    client.initialized(lsp.InitializedParams())
    edited, other = folder / "file050.idl", folder / "file010.idl"
    base = edited.read_text(encoding="utf-8")
    for path in (edited, other):
        client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                lsp.TextDocumentItem(path.as_uri(), "idl", 1, path.read_text(encoding="utf-8"))
            )
        )
    while await published.get() != edited.as_uri():
        pass  # the first check of the whole unit
    at = lsp.Position(1, len("type Rec10x0"))  # a typedef's name in the other file
    hovers, checks = [], []
    for run in range(2, runs + 2):
        start = time.perf_counter()
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(run, edited.as_uri()),
                [lsp.TextDocumentContentChangeWholeDocument(base + f"// edit {run}\n")],
            )
        )
        # Past the pause for typing, the unit is being checked when the hover comes.
        await asyncio.sleep(DEBOUNCE_SECONDS + 0.05)
        asked = time.perf_counter()
        answer = await client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(other.as_uri()), at)
        )
        hovers.append(time.perf_counter() - asked)
        assert answer is not None
        while await published.get() != edited.as_uri():
            pass
        checks.append(time.perf_counter() - start)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return statistics.median(hovers) * 1000, statistics.median(checks) * 1000


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
        hover_ms, check_ms = asyncio.run(responsiveness(big, max(3, runs // 4)))
        print(
            f"over stdio, {FILES * INTERFACES_PER_FILE} interfaces: median {hover_ms:.1f} ms to "
            f"a hover in another file while the unit is checked; {check_ms:.0f} ms to the edit's "
            "diagnostics"
        )


if __name__ == "__main__":
    main()
