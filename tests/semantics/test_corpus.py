"""The invalid corpus: every input's diagnostics, as users see them, are snapshots.

Each entry of `tests/corpus/invalid/` is one file, or one folder compiled as one
compilation (for problems that need two files). Its first line says which codes it must
produce (`// expect: E0101`), so a snapshot refreshed by mistake cannot hide a regression.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from idlc.diagnostics import codes
from idlc.diagnostics.render import render_human, render_json
from idlc.pipeline import compile_files

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "invalid"
CASES = sorted(
    path.name for path in CORPUS.iterdir() if path.name.endswith(".idl") or path.is_dir()
)

#: Entries that cannot say what they expect inside themselves.
UNREADABLE = {"unreadable_file.idl": {"E0010"}}  # a symlink to itself
_EXPECT = re.compile(rb"^// expect: ([^\n]*)\n")


def _case_path(name: str) -> Path:
    return CORPUS.relative_to(ROOT) / name


def _expected(name: str) -> set[str]:
    if name in UNREADABLE:
        return UNREADABLE[name]
    path = CORPUS / name
    for file in sorted(path.glob("*.idl")) if path.is_dir() else [path]:
        match = _EXPECT.match(file.read_bytes())
        if match:
            return set(match.group(1).decode().split(", "))
    raise AssertionError(f"{name} does not say what it expects (`// expect: E0xxx`)")


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", CASES)
def test_invalid_input(name: str, snapshot: SnapshotAssertion) -> None:
    compilation = compile_files([_case_path(name)])
    found = {diagnostic.code.id for diagnostic in compilation.diagnostics}
    assert found == _expected(name)
    if any(code.startswith("E") for code in found):
        assert compilation.model is None
    else:
        assert compilation.model is not None  # lints alone do not fail a compilation
    for diagnostic in compilation.diagnostics:
        if (
            diagnostic.code.id not in {"E0009", "E0010", "E0901"}
            and "more invalid" not in diagnostic.message
        ):
            assert diagnostic.span is not None, diagnostic
    assert render_human(compilation.diagnostics, compilation.sources, color=False) == snapshot


JSON_CASES = [
    "unknown_type_suggestion.idl",
    "atom_redeclared_other_id",
    "missing_semicolon.idl",
    "lint_revision_format.idl",
]


@pytest.mark.parametrize("name", JSON_CASES)
def test_invalid_input_as_json(name: str, snapshot: SnapshotAssertion) -> None:
    compilation = compile_files([_case_path(name)])
    assert render_json(compilation.diagnostics) == snapshot


#: Codes no corpus file can show, with the test that does: a file over the input limit
#: (16 MiB) does not belong in the repository; that test makes a sparse one.
_SHOWN_ELSEWHERE = {
    "E0012": "tests/cli/test_special_files.py",
    # Asked-for features exist only on a command line or in [tool.idlc].
    "E0134": "tests/semantics/test_stability.py",
}


def test_every_front_end_code_is_produced() -> None:
    """Every code the front end can emit has an input that shows it. The front end includes
    the Python mapping's checks (E02xx): `idlc check` reports all that `generate` would."""
    produced: set[str] = set()
    for name in CASES:
        compilation = compile_files([_case_path(name)])
        produced.update(diagnostic.code.id for diagnostic in compilation.diagnostics)
    front_end = {code for code in codes.REGISTRY if not code.startswith("E09")}
    assert sorted(front_end - produced - set(_SHOWN_ELSEWHERE)) == []


def test_diagnostics_are_deterministic() -> None:
    paths = [_case_path(name) for name in CASES if (CORPUS / name).is_dir()]
    first = compile_files(paths)
    second = compile_files(paths)
    assert first.diagnostics.items == second.diagnostics.items
