"""write_package / check_package: atomic, manifest-driven, never touching foreign files."""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.codegen import GeneratedPackage
from idlc.nodes import replace
from idlc.output import package as output
from idlc.output.atomic import folder_lock
from idlc.output.package import MANIFEST, OutputConflict, check_package, conflicts, write_package
from tests.codegen.conftest import ROOT, SEEDS, build


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
    findings = {
        (finding.kind, finding.path.name): finding for finding in check_package(tmp_path, new)
    }
    assert set(findings) == {
        ("stale", "a.py"),
        ("missing", "b.py"),
        ("extra", "old.py"),
        ("stale", MANIFEST),
    }
    assert (
        "-A = 99" in findings[("stale", "a.py")].diff
        and "+A = 1" in findings[("stale", "a.py")].diff
    )
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

    broken = GeneratedPackage("pkg", {}, (Diagnostic(codes.GENERATED_NAME_COLLISION, "x", None),))
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
    source.write_text(COLLIDING + "type Foo2Bar = record { z: string; };\n")
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


# --- The switch from the old package to the new one -------------------------------------

_GENERATED_NAMES = ["a.py", "b.py", "py.typed", "sub/c.py"]
_HAND_WRITTEN = {
    "NOTES.md": b"# mine\n",
    "b.py": b"# mine, where idlc may want to write\n",
    "helpers/x.py": b"X = 1\n",
    "helpers/deep/y.txt": b"y\n",
    "sub/mine.txt": b"mine\n",
}
_LINKS = {"link": "NOTES.md", "outside-link": "../../outside"}


def _tree(folder: Path) -> dict[str, object]:
    entries: dict[str, object] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_symlink():
            entries[relative] = ("symlink", os.readlink(path))
        elif path.is_dir():
            entries[relative] = "folder"
        else:
            entries[relative] = (path.read_bytes(), path.stat().st_mode & 0o777)
    return entries


# The real ones, whatever a test's monkeypatching (shared by the examples of one test) did.
_REAL_CREATE_FILE, _REAL_EXCHANGE_FOLDERS = output.create_file, output.exchange_folders
_packages = st.dictionaries(
    st.sampled_from(_GENERATED_NAMES), st.sampled_from(["X = 1\n", "X = 2\n"]), min_size=1
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    old=_packages,
    new=_packages,
    hand_written=st.sets(st.sampled_from(sorted(_HAND_WRITTEN) + sorted(_LINKS))),
    manifest_extra=st.sets(
        st.sampled_from(["outside-link/victim", "helpers", "../outside/victim"])
    ),
    fail_at=st.none() | st.integers(0, 6),
    exchange=st.sampled_from(["atomic", "two renames", "fails"]),
)
def test_a_write_is_the_whole_new_package_or_changes_nothing(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    old: dict[str, str],
    new: dict[str, str],
    hand_written: set[str],
    manifest_extra: set[str],
    fail_at: int | None,
    exchange: str,
) -> None:
    base = tmp_path_factory.mktemp("switch")
    outside = base / "outside"
    outside.mkdir()
    (outside / "victim").write_text("keep me")
    out = base / "out"
    write_package(out, _package(old))
    folder = out / "pkg"
    for name in sorted(hand_written):
        if name in old:
            continue  # a hand-written file never shares a name with one idlc wrote
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name in _LINKS:
            path.symlink_to(_LINKS[name])
        else:
            path.write_bytes(_HAND_WRITTEN[name])
    with (folder / MANIFEST).open("a") as manifest:
        manifest.write("".join(f"{line}\n" for line in sorted(manifest_extra)))
    before = _tree(folder)
    # Everything but what idlc wrote: hand-written entries and the folders holding them.
    mine = {
        name: value
        for name, value in before.items()
        if name not in old and name not in {MANIFEST, "sub"}
    }

    calls = {"count": 0, "failed": 0}
    real_create, real_exchange = _REAL_CREATE_FILE, _REAL_EXCHANGE_FOLDERS

    def create_file(path: Path, data: bytes) -> None:
        if calls["count"] == fail_at:
            calls["failed"] += 1
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        calls["count"] += 1
        real_create(path, data)

    def exchange_folders(first: Path, second: Path) -> bool:
        if exchange == "fails":
            calls["failed"] += 1
            raise OSError(errno.EIO, "Input/output error", str(first))
        return exchange == "atomic" and bool(real_exchange(first, second))

    with monkeypatch.context() as patch:  # undone before the next example
        patch.setattr(output, "create_file", create_file)
        patch.setattr(output, "exchange_folders", exchange_folders)
        outcome = _attempt(out, _package(new))
    blocked = "b.py" in hand_written and "b.py" not in old and "b.py" in new
    failing = calls["failed"] > 0
    if isinstance(outcome, OutputConflict):
        assert blocked and outcome.paths == [folder / "b.py"]
        assert _tree(folder) == before
    elif isinstance(outcome, OSError):
        assert failing and not blocked, outcome
        assert _tree(folder) == before
    else:
        assert not blocked and not failing
        after = _tree(folder)
        expected_files = {name: (text.encode(), after[name][1]) for name, text in new.items()}  # type: ignore[index]
        assert {name: after[name] for name in new} == expected_files
        assert {name: value for name, value in after.items() if name in mine} == mine
        assert all(value[1] == 0o666 & ~_umask() for name, value in after.items() if name in new)  # type: ignore[index]
        assert set(after) <= set(new) | set(mine) | {MANIFEST, "sub"}
        assert check_package(out, _package(new)) == []
    assert sorted(os.listdir(out)) == ["pkg"]
    assert (outside / "victim").read_text() == "keep me"


def _attempt(out: Path, generated: GeneratedPackage) -> Exception | None:
    try:
        write_package(out, generated)
    except (OutputConflict, OSError) as error:
        return error
    return None


def _umask() -> int:
    # Read once, in the test only (single-threaded here): idlc itself never reads it.
    current = os.umask(0)
    os.umask(current)
    return current


def test_a_switch_interrupted_between_its_two_renames_is_undone_by_the_next_run(
    tmp_path: Path,
) -> None:
    old, new = _package({"a.py": "A = 1\n"}), _package({"a.py": "A = 2\n"})
    write_package(tmp_path, old)
    (tmp_path / "pkg" / "mine.py").write_text("# hand-written\n")
    # What a kill between the renames leaves: the old package parked, the new one staged.
    write_package(tmp_path / "staged", new)
    (tmp_path / "staged" / "pkg").rename(tmp_path / ".pkg.idlc-next")
    (tmp_path / "pkg").rename(tmp_path / ".pkg.idlc-prev")
    findings = {(finding.kind, finding.path.name) for finding in check_package(tmp_path, new)}
    assert ("leftover", ".pkg.idlc-next") in findings and ("leftover", ".pkg.idlc-prev") in findings
    assert output.recover(tmp_path, "pkg") == [tmp_path / ".pkg.idlc-next"]
    assert (tmp_path / "pkg" / "a.py").read_text() == "A = 1\n"  # the old package is back
    assert (tmp_path / "pkg" / "mine.py").read_text() == "# hand-written\n"
    write_package(tmp_path, new)
    assert (tmp_path / "pkg" / "a.py").read_text() == "A = 2\n"
    assert (tmp_path / "pkg" / "mine.py").read_text() == "# hand-written\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pkg", "staged"]


def test_a_reserved_name_that_is_not_a_folder_is_in_the_way(tmp_path: Path) -> None:
    write_package(tmp_path, _package({"a.py": "A = 1\n"}))
    (tmp_path / ".pkg.idlc-next").write_text("not idlc's")
    assert conflicts(tmp_path, _package({"a.py": "A = 2\n"})) == [tmp_path / ".pkg.idlc-next"]
    with pytest.raises(OutputConflict):
        write_package(tmp_path, _package({"a.py": "A = 2\n"}))
    assert (tmp_path / ".pkg.idlc-next").read_text() == "not idlc's"
    assert (tmp_path / "pkg" / "a.py").read_text() == "A = 1\n"


def test_an_up_to_date_package_is_not_touched(tmp_path: Path) -> None:
    generated = _package({"a.py": "A = 1\n", "b.py": "B = 2\n"})
    write_package(tmp_path, generated)
    before = {path.name: path.stat().st_ino for path in (tmp_path / "pkg").iterdir()}
    folder_inode = (tmp_path / "pkg").stat().st_ino
    write_package(tmp_path, generated)
    assert {path.name: path.stat().st_ino for path in (tmp_path / "pkg").iterdir()} == before
    assert (tmp_path / "pkg").stat().st_ino == folder_inode


def test_the_output_folder_lock_excludes_a_second_holder(tmp_path: Path) -> None:
    with folder_lock(tmp_path):
        probe = os.open(tmp_path, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(probe)
    probe = os.open(tmp_path, os.O_RDONLY)
    try:
        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when the block ended
    finally:
        os.close(probe)


def test_a_hand_written_file_saved_while_the_new_package_is_staged_is_not_lost(
    tmp_path: Path,
) -> None:
    write_package(tmp_path, _package({"a.py": "A = 1\n"}))
    folder = tmp_path / "pkg"
    (folder / "notes.md").write_text("draft\n")
    (folder / "edited.md").write_text("draft\n")
    staged = output.stage_package(tmp_path, _package({"a.py": "A = 2\n"}))
    # Meanwhile an editor saves: a new file renamed over the old one, and one edited in place.
    (folder / ".notes.md.swp").write_text("final\n")
    (folder / ".notes.md.swp").replace(folder / "notes.md")
    (folder / "edited.md").write_text("final\n")
    (folder / "new.md").write_text("new\n")
    staged.switch()
    assert (folder / "a.py").read_text() == "A = 2\n"
    assert (folder / "notes.md").read_text() == "final\n"
    assert (folder / "edited.md").read_text() == "final\n"
    assert (folder / "new.md").read_text() == "new\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pkg"]
