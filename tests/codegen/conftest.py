"""Generated packages for the codegen tests, built once per session into a temp folder."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from idlc.codegen import GeneratedPackage, generate
from idlc.output.package import write_package
from idlc.pipeline import compile_files

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [ROOT / "idl/quixos/agent_directory.idl", ROOT / "idl/quixos/agent_request.idl"]
CORPUS = Path(__file__).parent / "corpus"

#: The golden files (`test_snapshots.py`) are generated modules named `test_…[…].py`: not
#: tests to collect.
collect_ignore_glob = ["__snapshots__/*"]

#: package name → IDL files
PACKAGES: dict[str, list[Path]] = {
    "gen_seeds": SEEDS,
    "gen_features": [CORPUS / "features.idl"],
    "gen_hostile": [CORPUS / "hostile.idl"],
    "gen_edges": [CORPUS / "edge_shapes.idl"],
    "gen_extensions": [ROOT / "tests/corpus/valid/extensions.idl"],
    "gen_keywords": [ROOT / "tests/corpus/valid/keywords_as_names.idl"],
    "gen_strings": [ROOT / "tests/corpus/valid/strings.idl"],
    "gen_acp_constructs": [ROOT / "tests/corpus/valid/acp_constructs.idl"],
}


def build(name: str, paths: list[Path]) -> GeneratedPackage:
    compilation = compile_files(paths)
    assert compilation.model is not None, list(compilation.diagnostics)
    generated = generate(compilation.model, name)
    assert not generated.has_errors, generated.diagnostics
    return generated


@pytest.fixture(scope="session")
def generated_packages() -> dict[str, GeneratedPackage]:
    return {name: build(name, paths) for name, paths in PACKAGES.items()}


@pytest.fixture(scope="session")
def package_dir(
    tmp_path_factory: pytest.TempPathFactory, generated_packages: dict[str, GeneratedPackage]
) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("generated")
    for generated in generated_packages.values():
        write_package(folder, generated)
    sys.path.insert(0, str(folder))
    yield folder
    sys.path.remove(str(folder))
