"""`idlc generate` never touches what it did not write, and switches all or nothing."""

from __future__ import annotations

import os
from pathlib import Path

from .test_cli import SEEDS, idlc


def test_a_manifest_naming_files_outside_the_package_removes_nothing_there(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert (
        idlc("generate", SEEDS[0], "--out", out, "--package", "pkg", cwd=tmp_path).returncode == 0
    )
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    inside = out / "pkg" / "notes.txt"
    inside.write_text("mine")
    with (out / "pkg" / ".idlc-manifest").open("a") as manifest:
        manifest.write(f"{victim}\n../../victim.txt\nnotes.txt\n")
    result = idlc("generate", SEEDS[0], "--out", out, "--package", "pkg", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "keep me"
    assert not inside.exists()  # listed as idlc's own, inside the package: removed


def test_nothing_is_written_while_any_configured_package_is_blocked(tmp_path: Path) -> None:
    (tmp_path / "first.idl").write_bytes(SEEDS[0].read_bytes())
    (tmp_path / "second.idl").write_bytes(SEEDS[1].read_bytes())
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.idlc.packages]]\nname = "first"\nsources = ["first.idl"]\nout = "gen"\n\n'
        '[[tool.idlc.packages]]\nname = "second"\nsources = ["second.idl"]\nout = "gen"\n'
    )
    (tmp_path / "gen" / "second").mkdir(parents=True)
    (tmp_path / "gen" / "second" / "__init__.py").write_text("# hand-written\n")
    result = idlc("generate", cwd=tmp_path)
    assert result.returncode == 1
    assert "error[E0903]" in result.stderr and "second/__init__.py" in result.stderr
    assert not (tmp_path / "gen" / "first").exists()
    assert (tmp_path / "gen" / "second" / "__init__.py").read_text() == "# hand-written\n"


def test_a_file_where_the_package_folder_should_be_is_a_diagnostic(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "pkg").write_text("not a folder")
    result = idlc("generate", SEEDS[0], "--out", "out", "--package", "pkg", cwd=tmp_path)
    assert result.returncode == 1
    assert "error[E0903]" in result.stderr
    assert "internal error" not in result.stderr
    assert (tmp_path / "out" / "pkg").read_text() == "not a folder"


def _tree(folder: Path) -> dict[str, bytes | str]:
    return {
        path.relative_to(folder).as_posix(): (
            f"-> {os.readlink(path)}"
            if path.is_symlink()
            else "folder" if path.is_dir() else path.read_bytes()
        )
        for path in sorted(folder.rglob("*"))
    }


def test_a_module_turned_into_a_folder_stops_the_run_before_anything_changes(
    tmp_path: Path,
) -> None:
    # Before, every module sorted before it was already replaced when the move of this one
    # failed (E0904): half a new package, and the temporaries of the rest left in it.
    source = tmp_path / "api.idl"
    source.write_bytes(SEEDS[1].read_bytes())
    assert (
        idlc("generate", source, "--out", "out", "--package", "pkg", cwd=tmp_path).returncode == 0
    )
    package = tmp_path / "out" / "pkg"
    (package / "agent_request.py").unlink()
    (package / "agent_request.py").mkdir()
    (package / "agent_request.py" / "mine.txt").write_text("mine")
    before = _tree(package)
    source.write_text(source.read_text().replace("causalDepth:uint32", "causalDepth:uint64"))
    result = idlc("generate", source, "--out", "out", "--package", "pkg", cwd=tmp_path)
    assert result.returncode == 1
    assert (
        "error[E0903]: out/pkg/agent_request.py exists and was not written by idlc" in result.stderr
    )
    assert "internal error" not in result.stderr
    assert _tree(package) == before
    assert os.listdir(tmp_path / "out") == ["pkg"]


def test_check_reports_what_an_interrupted_run_left_and_the_next_run_removes_it(
    tmp_path: Path,
) -> None:
    assert (
        idlc("generate", SEEDS[0], "--out", "out", "--package", "pkg", cwd=tmp_path).returncode == 0
    )
    package = tmp_path / "out" / "pkg"
    staged = tmp_path / "out" / ".pkg.idlc-next"  # a staged package that never took its place
    staged.mkdir()
    (staged / "__init__.py").write_text("# half written")
    older = package / ".__init__.py.k3x_9abz.tmp"  # what earlier versions left when killed
    older.write_text("# half written")
    mine = package / ".notes.abcdefgh.tmp"  # not beside a file idlc owns: not idlc's
    mine.write_text("mine")
    checked = idlc(
        "generate", SEEDS[0], "--out", "out", "--package", "pkg", "--check", cwd=tmp_path
    )
    assert checked.returncode == 1
    assert "leftover: out/.pkg.idlc-next" in checked.stderr
    assert "leftover: out/pkg/.__init__.py.k3x_9abz.tmp" in checked.stderr
    assert ".notes.abcdefgh.tmp" not in checked.stderr
    result = idlc("generate", SEEDS[0], "--out", "out", "--package", "pkg", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "removed leftover out/.pkg.idlc-next" in result.stderr
    assert not staged.exists() and not older.exists()
    assert mine.read_text() == "mine"
    again = idlc("generate", SEEDS[0], "--out", "out", "--package", "pkg", "--check", cwd=tmp_path)
    assert again.returncode == 0, again.stderr


def test_nothing_is_removed_through_a_symlinked_folder_inside_the_package(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x").write_text("keep me")
    (outside / "agent_directory.py").write_text("keep me too")
    assert (
        idlc("generate", SEEDS[0], "--out", "out", "--package", "pkg", cwd=tmp_path).returncode == 0
    )
    package = tmp_path / "out" / "pkg"
    (package / "sub").symlink_to(outside, target_is_directory=True)
    with (package / ".idlc-manifest").open("a") as manifest:
        manifest.write("sub/x\nsub/agent_directory.py\n")
    result = idlc("generate", SEEDS[0], "--out", "out", "--package", "pkg", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (outside / "x").read_text() == "keep me"
    assert (outside / "agent_directory.py").read_text() == "keep me too"
    assert (package / "sub").is_symlink() and (package / "sub" / "x").read_text() == "keep me"
    checked = idlc(
        "generate", SEEDS[0], "--out", "out", "--package", "pkg", "--check", cwd=tmp_path
    )
    assert checked.returncode == 0, checked.stderr


def test_hand_written_files_folders_and_links_survive_a_regeneration(tmp_path: Path) -> None:
    source = tmp_path / "api.idl"
    source.write_bytes(SEEDS[1].read_bytes())
    assert (
        idlc("generate", source, "--out", "out", "--package", "pkg", cwd=tmp_path).returncode == 0
    )
    package = tmp_path / "out" / "pkg"
    (package / "README.md").write_text("# mine\n")
    (package / "helpers").mkdir()
    (package / "helpers" / "extra.py").write_text("EXTRA = 1\n")
    (package / "helpers" / "empty").mkdir()
    (package / "link").symlink_to("README.md")
    os.chmod(package / "README.md", 0o640)
    mine = {
        name: value
        for name, value in _tree(package).items()
        if name.startswith(("README", "helpers", "link"))
    }
    source.write_text(source.read_text().replace("causalDepth:uint32", "causalDepth:uint64"))
    result = idlc("generate", source, "--out", "out", "--package", "pkg", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "wrote out/pkg/_types.py" in result.stderr
    after = _tree(package)
    assert {name: after.get(name) for name in mine} == mine
    assert (package / "README.md").stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path / "out") == ["pkg"]


def test_a_package_folder_that_is_a_symlink_loop_is_a_diagnostic_in_both_modes(
    tmp_path: Path,
) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "pkg").symlink_to("pkg")
    written = idlc("generate", SEEDS[0], "--out", "out", "--package", "pkg", cwd=tmp_path)
    assert written.returncode == 1
    assert "error[E0903]: out/pkg exists and was not written by idlc" in written.stderr
    checked = idlc(
        "generate", SEEDS[0], "--out", "out", "--package", "pkg", "--check", cwd=tmp_path
    )
    assert checked.returncode == 1
    assert "error[E0904]: cannot read out/pkg: Too many levels of symbolic links" in checked.stderr
    assert "internal error" not in written.stderr + checked.stderr
    assert os.readlink(tmp_path / "out" / "pkg") == "pkg"
