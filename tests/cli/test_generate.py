"""`idlc generate` never touches what it did not write, and writes all or nothing."""

from __future__ import annotations

from pathlib import Path

from .test_cli import SEEDS, idlc


def test_a_manifest_naming_files_outside_the_package_removes_nothing_there(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert idlc("generate", SEEDS[0], "--out", out, "--package", "pkg", cwd=tmp_path).returncode == 0
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
