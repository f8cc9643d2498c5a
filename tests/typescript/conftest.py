"""Session fixtures of the TypeScript target's tests: the tools and the generated packages."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from idlc.codegen import GeneratedPackage
from tests.conftest import built_once

from .support import (
    PACKAGES,
    REPO,
    Tools,
    build,
    build_runtime,
    find_tools,
    make_project,
    tsc,
)


@pytest.fixture(scope="session")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Tools:
    """node, tsc, and @idlc/runtime built once per test run (shared by xdist workers) from
    runtime-ts/src as it is."""
    found = find_tools()
    folder = built_once(tmp_path_factory, "idlc-runtime-ts", lambda f: build_runtime(found, f))
    return Tools(found.node, found.tsc, folder / "runtime")


@pytest.fixture(scope="session")
def ts_packages() -> dict[str, GeneratedPackage]:
    return {name: build(name, paths) for name, paths in PACKAGES.items()}


@pytest.fixture(scope="session")
def runtime(tools: Tools) -> Tools:
    """The tools (their runtime is built from the sources as they are)."""
    return tools


class Node:
    """A node process answering codec requests (roundtrip.mjs), in `project`, where the
    packages are compiled to `dist/`."""

    def __init__(self, process: subprocess.Popen[str], project: Path, executable: str) -> None:
        self.process = process
        self.project = project
        self.executable = executable

    def ask(self, codec: str, text: str, package: str = "seeds") -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        request = {"package": package, "codec": codec, "json": text}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, "node exited"
        answer: dict[str, Any] = json.loads(line)
        return answer


@pytest.fixture(scope="session")
def node(
    tmp_path_factory: pytest.TempPathFactory,
    runtime: Tools,
    ts_packages: dict[str, GeneratedPackage],
) -> Iterator[Node]:
    packages = [
        ts_packages[name]
        for name in ("seeds", "acp", "acp-v2", "features", "acp-constructs", "edges")
    ]
    packages.append(build("acp-unstable", [REPO / "idl/acp.idl"], features=None))
    packages.append(build("acp-v2-unstable", [REPO / "idl/acp-v2.idl"], features=None))
    project = make_project(tmp_path_factory.mktemp("roundtrip"), packages, runtime)
    done = tsc(runtime, project, "tsconfig.nodenext.json")
    assert done.returncode == 0, done.stdout + done.stderr
    shutil.copy(Path(__file__).with_name("roundtrip.mjs"), project / "roundtrip.mjs")
    process = subprocess.Popen(
        [runtime.node, "roundtrip.mjs"]
        + [f"{package.package}=./dist/{package.package}/index.js" for package in packages],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield Node(process, project, runtime.node)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=10)
