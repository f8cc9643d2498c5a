"""Golden output of the TypeScript target: every generated file of the seeds' package (and
of the corpus's features.idl), one
snapshot file each in `__snapshots__/test_snapshots/` (`.ts`, and `.json` for package.json),
so a change of the generator shows as a diff of TypeScript (`--snapshot-update` to accept it,
after reading the diff)."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from idlc.codegen import GeneratedPackage

from .support import PACKAGES, build


class TypeScriptSnapshot(SingleFileSnapshotExtension):
    file_extension = "ts"
    _write_mode = WriteMode.TEXT


class JsonSnapshot(SingleFileSnapshotExtension):
    file_extension = "json"
    _write_mode = WriteMode.TEXT


#: The seeds, and the corpus package with every kind of type (variants, unions, enums,
#: forward-compatible fields), so that a change of their TypeScript shows too.
SNAPSHOTTED = ["seeds", "features"]


@pytest.mark.parametrize("name", SNAPSHOTTED)
def test_generated_files(
    name: str, ts_packages: dict[str, GeneratedPackage], snapshot: SnapshotAssertion
) -> None:
    files = ts_packages[name].files
    for path in sorted(files):
        stem, _, suffix = path.rpartition(".")
        extension = TypeScriptSnapshot if suffix == "ts" else JsonSnapshot
        assert files[path] == snapshot.use_extension(extension)(name=stem)


def test_generation_is_deterministic() -> None:
    first = build("acp", PACKAGES["acp"])
    second = build("acp", PACKAGES["acp"])
    assert first.files == second.files


def test_header_names_sources_relative_to_the_project(
    ts_packages: dict[str, GeneratedPackage],
) -> None:
    import idlc

    for path, text in ts_packages["seeds"].files.items():
        if path.endswith(".ts"):
            head = text[:400]
            assert f"idlc {idlc.__version__}" in head and "Do not edit" in head
            assert "//   idl/quixos/agent_directory.idl\n" in head
            assert "sha256" not in head
