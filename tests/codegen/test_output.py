"""write_package / check_package: atomic, manifest-driven, never touching foreign files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from idlc.codegen import GeneratedPackage
from idlc.codegen.output import MANIFEST, OutputConflict, check_package, write_package

from .conftest import ROOT, SEEDS, build


def _package(files: dict[str, str]) -> GeneratedPackage:
    return GeneratedPackage("pkg", files)


def test_write_then_check_is_clean(tmp_path: Path) -> None:
    generated = _package({"a.py": "A = 1\n", "sub/b.py": "B = 2\n"})
    report = write_package(tmp_path, generated)
    assert sorted(path.name for path in report.written) == ["a.py", "b.py"]
    assert check_package(tmp_path, generated) == []
    assert (tmp_path / "pkg" / MANIFEST).read_text().splitlines()[1:] == ["a.py", "sub/b.py"]
    again = write_package(tmp_path, generated)
    assert again.written == [] and len(again.unchanged) == 3
    assert not list((tmp_path / "pkg").glob(".*.tmp"))


def test_check_reports_stale_missing_and_extra(tmp_path: Path) -> None:
    write_package(tmp_path, _package({"a.py": "A = 1\n", "old.py": "O = 0\n", "b.py": "B = 2\n"}))
    (tmp_path / "pkg" / "a.py").write_text("A = 99\n")
    (tmp_path / "pkg" / "b.py").unlink()
    (tmp_path / "pkg" / "mine.py").write_text("# hand-written\n")
    new = _package({"a.py": "A = 1\n", "b.py": "B = 2\n"})
    findings = {(finding.kind, finding.path.name): finding for finding in check_package(tmp_path, new)}
    assert set(findings) == {("stale", "a.py"), ("missing", "b.py"), ("extra", "old.py"), ("stale", MANIFEST)}
    assert "-A = 99" in findings[("stale", "a.py")].diff and "+A = 1" in findings[("stale", "a.py")].diff
    # check wrote nothing
    assert (tmp_path / "pkg" / "a.py").read_text() == "A = 99\n"
    assert not (tmp_path / "pkg" / "b.py").exists()


def test_removed_outputs_are_deleted_foreign_files_kept(tmp_path: Path) -> None:
    write_package(tmp_path, _package({"a.py": "A = 1\n", "old.py": "O = 0\n"}))
    (tmp_path / "pkg" / "mine.py").write_text("# hand-written\n")
    report = write_package(tmp_path, _package({"a.py": "A = 2\n"}))
    assert [path.name for path in report.removed] == ["old.py"]
    assert not (tmp_path / "pkg" / "old.py").exists()
    assert (tmp_path / "pkg" / "mine.py").read_text() == "# hand-written\n"
    assert (tmp_path / "pkg" / "a.py").read_text() == "A = 2\n"


def test_foreign_file_in_the_way_stops_everything(tmp_path: Path) -> None:
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "b.py").write_text("# mine\n")
    with pytest.raises(OutputConflict):
        write_package(tmp_path, _package({"a.py": "A = 1\n", "b.py": "B = 2\n"}))
    assert sorted(path.name for path in folder.iterdir()) == ["b.py"]
    assert (folder / "b.py").read_text() == "# mine\n"


def test_nothing_written_for_a_package_with_errors(tmp_path: Path) -> None:
    from idlc.diagnostics import Diagnostic, codes

    broken = GeneratedPackage(
        "pkg", {}, (Diagnostic(codes.GENERATED_NAME_COLLISION, "x", None),)
    )
    with pytest.raises(ValueError):
        write_package(tmp_path, broken)
    assert list(tmp_path.iterdir()) == []


def test_committed_quixos_agent_is_up_to_date() -> None:
    generated = build("quixos_agent", SEEDS)
    findings = check_package(ROOT / "generated", generated)
    assert findings == [], "\n".join(f"{f.kind} {f.path}\n{f.diff}" for f in findings)


COLLIDING = """
type Foo = record { a: string; };
type FooBar = record { x: string; };
type Foo2 = record { bar: record { y: string; }; };
interface I id "i" revision "i@1" {
  operation go id "i:go" : record { self: string; } -> unit {call id "i:go:call" execution transaction;}
}
interface IProxy id "p" revision "p@1" {}
type _1 = record { u: string; };
"""


def test_name_collisions_are_diagnostics_with_spans(tmp_path: Path) -> None:
    """`check` reports them (the resolver runs the Python mapping's plan): `generate`,
    which builds on the same plan, never meets them."""
    from idlc.diagnostics import codes
    from idlc.pipeline import compile_files

    source = tmp_path / "clash.idl"
    source.write_text(COLLIDING + 'type Foo2Bar = record { z: string; };\n')
    compilation = compile_files([source])
    assert compilation.model is None
    diagnostics = list(compilation.diagnostics)
    found = {(d.code, d.message) for d in diagnostics}
    collisions = [d for d in diagnostics if d.code is codes.GENERATED_NAME_COLLISION]
    assert any("`IProxy`" in d.message for d in collisions), found
    assert any("`Foo2Bar`" in d.message for d in collisions), found
    assert all(d.span is not None and d.related for d in collisions)
    assert [d.message for d in diagnostics if d.code is codes.RESERVED_GENERATED_NAME] == [
        "type `_1` would be named `_1`, a name the generated code keeps for itself"
    ]
    write_package(tmp_path / "out", replace(build("ok", SEEDS)))  # a clean package still writes
