"""Test helpers for every folder: where the repository and its IDL inputs are, how many
parallel workers `-n auto` starts and in which order the tests are handed to them."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import pytest
from filelock import FileLock
from hypothesis import settings

# No per-example deadline unless a test sets one: Hypothesis's default (200 ms) times the
# machine, not the code, and a loaded CI machine failed tests that assert nothing about time.
# Tests that guard against a hang or a blow-up keep their own explicit, generous deadline.
settings.register_profile("idlc", deadline=None)
settings.load_profile("idlc")

REPO = Path(__file__).resolve().parent.parent
SEEDS = (
    REPO / "idl" / "quixos" / "agent_directory.idl",
    REPO / "idl" / "quixos" / "agent_request.idl",
)


def unavailable(reason: str, needs: str = "install it") -> NoReturn:
    """A tool a test needs is missing: skip on a developer machine, fail under CI (`.ci/run`
    sets CI), which must `needs` ("install it", "build it")."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} — CI must {needs}", pytrace=False)
    pytest.skip(reason)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` starts one worker more than the cores this process may use. Much of the suite
    waits rather than computes (subprocesses starting, servers and sockets, the package index
    during installs): with one worker per core, a 2-core machine ran 442 s of CPU in 325 s,
    a core idle a third of the time. PYTEST_XDIST_AUTO_NUM_WORKERS, when set, decides."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity else os.cpu_count() or 1
    return cores + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The `slow` tests (tests/tooling: fresh environments and installs, 5 to 30 s each) first,
    the rest after them in their own order: xdist hands tests out in this order, and the long
    ones left to the end made a tail in which one worker finished them while the others had
    nothing left to do. The order is the same in every worker, as xdist requires."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """The folder `name`, filled by `build` once per test run and shared by every xdist
    worker (a wheel, a virtual environment): the first worker to get the lock builds it,
    the others wait and reuse it. Without xdist it is the session's own folder."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's own
    folder = base / name
    done = base / f"{name}.done"
    with FileLock(str(base / f"{name}.lock")):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build a failed worker left
            folder.mkdir()
            build(folder)
            done.write_text("", encoding="utf-8")
    return folder
