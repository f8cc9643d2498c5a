"""The generated TypeScript compiles under `tsc --strict`: the seeds, ACP v1 and the v2
draft (each stable view and every unstable feature) and every package of the codegen corpus, with NodeNext
resolution and with a bundler's, in one project each (tsc is slow to start)."""

from __future__ import annotations

from pathlib import Path

import pytest

from idlc.codegen import GeneratedPackage

from .support import REPO, Tools, build, make_project, tsc


@pytest.fixture(scope="module")
def project(
    tmp_path_factory: pytest.TempPathFactory,
    tools: Tools,
    ts_packages: dict[str, GeneratedPackage],
) -> Path:
    packages = list(ts_packages.values())
    packages.append(build("acp-unstable", [REPO / "idl/acp.idl"], features=None))
    packages.append(build("acp-v2-unstable", [REPO / "idl/acp-v2.idl"], features=None))
    return make_project(tmp_path_factory.mktemp("tsc"), packages, tools)


@pytest.mark.parametrize("resolution", ["nodenext", "bundler"])
def test_generated_code_compiles_strictly(project: Path, tools: Tools, resolution: str) -> None:
    done = tsc(tools, project, f"tsconfig.{resolution}.json", "--noEmit")
    assert done.returncode == 0, done.stdout + done.stderr
