"""The language server's state: open documents' units, their analyses, and scheduling.

Compiling runs on one worker thread (the parser is not re-entrant), off the event loop, so
requests keep being read while a big unit compiles. Each edit raises `revision`; an analysis
is made for the revision current when it starts, and work queued for a revision that a
newer edit made stale is cancelled before it runs.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from idlc.lsp.analysis import Analysis, ParseCache, analyze
from idlc.lsp.units import Unit, Units, idl_files, resolved

#: How long typing must pause before a unit is checked again for diagnostics.
DEBOUNCE_SECONDS = 0.15


class Service:
    def __init__(self) -> None:
        self.units = Units()
        self.cache = ParseCache()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="idlc-lsp")
        self.revision = 0
        #: resolved path → the editor's text, for every open document
        self.texts: dict[Path, str] = {}
        self.results: dict[tuple[str, ...], Analysis] = {}
        self._running: dict[tuple[str, ...], tuple[int, asyncio.Future[Analysis]]] = {}
        self._debounced: dict[tuple[str, ...], asyncio.Task[None]] = {}
        #: Told the traceback of a bug met in background work (the server logs it).
        self.report_bug: Callable[[str], None] = lambda text: None

    # -- what the editor tells ----------------------------------------------------------

    def opened(self, path: Path, text: str) -> None:
        known = resolved(path) in self.texts or resolved(path).is_file()
        self.texts[resolved(path)] = text
        if not known:
            self.units.invalidate()  # a new file joins its folder's unit
        self.revision += 1

    def changed(self, path: Path, text: str) -> None:
        self.texts[resolved(path)] = text
        self.revision += 1

    def closed(self, path: Path) -> None:
        self.texts.pop(resolved(path), None)
        self.units.invalidate()
        self.revision += 1

    def files_changed(self) -> None:
        """Files were created, deleted or saved outside the open documents."""
        self.units.invalidate()
        self.revision += 1

    def close(self) -> None:
        for task in self._debounced.values():
            task.cancel()
        self.executor.shutdown(wait=False, cancel_futures=True)

    # -- analyses -----------------------------------------------------------------------

    def unit_for(self, path: Path) -> Unit:
        return self.units.unit_for(path, self.texts)

    async def run(self, function: Callable[[], object]) -> object:
        """Run `function` on the worker thread (everything that parses must)."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, function)

    async def analysis(self, path: Path) -> Analysis:
        """The analysis of `path`'s unit at the current revision (or a later one)."""
        loop = asyncio.get_running_loop()
        while True:
            unit = self.unit_for(path)
            revision = self.revision
            done = self.results.get(unit.key)
            if done is not None and done.revision >= revision and done.unit == unit:
                return done
            running = self._running.get(unit.key)
            if running is not None and running[0] == revision:
                future = running[1]
            else:
                if running is not None:
                    running[1].cancel()  # stale: skipped if it has not started yet
                texts = dict(self.texts)
                future = loop.run_in_executor(
                    self.executor, analyze, unit, texts, self.cache, revision
                )
                self._running[unit.key] = (revision, future)
            try:
                result = await asyncio.shield(future)
            except asyncio.CancelledError:
                if future.cancelled():
                    continue  # a newer edit replaced that work: ask again
                raise
            current = self.results.get(unit.key)
            if current is None or current.revision <= result.revision:
                self.results[unit.key] = result
            if self._running.get(unit.key, (None, None))[1] is future:
                del self._running[unit.key]
            return result

    async def for_request(self, path: Path) -> Analysis:
        """An analysis whose text of `path` is the editor's current one.

        The last analysis of the unit serves while it is: an edit in another file of a big
        unit does not make a request in this one wait for the unit to be checked again.
        """
        unit = self.unit_for(path)
        done = self.results.get(unit.key)
        text = self.texts.get(resolved(path))
        if done is not None and done.unit == unit and text is not None:
            source = done.source(path)
            if source is not None and source.text == text:
                return done
        return await self.analysis(path)

    async def names(self, path: Path) -> Analysis:
        """The last analysis of `path`'s unit, for the names it declares (completion)."""
        done = self.results.get(self.unit_for(path).key)
        return done if done is not None else await self.analysis(path)

    def schedule(self, path: Path, publish: Callable[[Analysis, Path], None]) -> None:
        """Check `path`'s unit once typing pauses, then publish its diagnostics."""
        key = self.unit_for(path).key
        pending = self._debounced.pop(key, None)
        if pending is not None:
            pending.cancel()
        self._debounced[key] = asyncio.get_running_loop().create_task(
            self._later(key, path, publish)
        )

    async def _later(
        self, key: tuple[str, ...], path: Path, publish: Callable[[Analysis, Path], None]
    ) -> None:
        await asyncio.sleep(DEBOUNCE_SECONDS)
        try:
            result = await self.analysis(path)
            if self._debounced.get(key) is asyncio.current_task():
                del self._debounced[key]
            publish(result, path)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a bug: told to the editor, the server goes on
            self.report_bug(traceback.format_exc())

    def refresh_all(self, publish: Callable[[Analysis, Path], None]) -> None:
        """Check again every unit analysed so far (after files changed on disk)."""
        for analysis in list(self.results.values()):
            paths = [path for path in analysis.paths.values()] or list(analysis.unit.paths)
            if paths:
                self.schedule(paths[0], publish)

    async def workspace_files(self) -> list[Path]:
        folders = list(self.units.folders)

        def walk() -> list[Path]:
            found: list[Path] = []
            for folder in folders:
                found.extend(resolved(path) for path in idl_files(folder))
            return sorted(set(found) | set(self.texts))

        result = await self.run(walk)
        assert isinstance(result, list)
        return result
