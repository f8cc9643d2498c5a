"""Golden output: every generated file of every corpus package (`--snapshot-update`).

Each generated file is a snapshot file of its own, a `.py` file in
`__snapshots__/test_snapshots/`, so a change of the generator shows as a diff of Python.
"""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from idlc.codegen import GeneratedPackage

from .conftest import PACKAGES, build


class PythonSnapshot(SingleFileSnapshotExtension):
    """One generated file per snapshot, as text, under its own name plus `.py`."""

    file_extension = "py"
    _write_mode = WriteMode.TEXT


@pytest.fixture
def python_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(PythonSnapshot)


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_generated_files(
    name: str, generated_packages: dict[str, GeneratedPackage], python_snapshot: SnapshotAssertion
) -> None:
    files = generated_packages[name].files
    for path in sorted(files):
        assert files[path] == python_snapshot(name=path.removesuffix(".py"))


def test_generation_is_deterministic() -> None:
    first = build("gen_features", PACKAGES["gen_features"])
    second = build("gen_features", PACKAGES["gen_features"])
    assert first.files == second.files


def test_every_file_is_black_stable(generated_packages: dict[str, GeneratedPackage]) -> None:
    import black

    mode = black.Mode()
    for generated in generated_packages.values():
        for path, text in generated.files.items():
            if path.endswith(".py"):
                assert black.format_str(text, mode=mode) == text, f"{generated.package}/{path}"


def test_header_names_sources_relative_to_the_project_and_the_version(
    generated_packages: dict[str, GeneratedPackage],
) -> None:
    import idlc

    for path, text in generated_packages["gen_seeds"].files.items():
        if not path.endswith(".py"):
            continue
        head = text[:600]
        assert f"idlc {idlc.__version__}" in head and "Do not edit" in head
        assert "#   idl/quixos/agent_directory.idl\n" in head
        assert "#   idl/quixos/agent_request.idl\n" in head
        # No digest of the IDL text: a comment-only edit must not change generated files.
        assert "sha256" not in head
    assert generated_packages["gen_seeds"].files["py.typed"] == ""
