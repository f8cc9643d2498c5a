"""Files written by `idlc generate` and `idlc fmt` get ordinary permissions: a new file
`0666 & ~umask` (a folder `0777 & ~umask`), as any program's; `fmt` keeps an IDL file's own
mode. Each case runs idlc in a process of its own with the umask set."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from .test_cli import SEEDS

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")


def idlc_with_umask(umask: int, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "idlc", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        umask=umask,
    )


def modes(folder: Path) -> dict[str, int]:
    return {
        path.relative_to(folder).as_posix() or ".": stat.S_IMODE(path.stat().st_mode)
        for path in [folder, *folder.rglob("*")]
    }


@pytest.mark.parametrize("umask", [0o022, 0o077], ids=["umask-022", "umask-077"])
def test_generated_files_and_folders_get_the_ordinary_modes(umask: int, tmp_path: Path) -> None:
    source = tmp_path / "api.idl"
    source.write_bytes(SEEDS[1].read_bytes())
    result = idlc_with_umask(
        umask, "generate", source, "--out", "out", "--package", "pkg", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    package = tmp_path / "out" / "pkg"
    expected = {name: 0o666 & ~umask for name in modes(package)} | {".": 0o777 & ~umask}
    assert modes(package) == expected

    # Replacing files (one changed module, the rest unchanged) gives the same modes.
    source.write_text(source.read_text().replace("causalDepth:uint32", "causalDepth:uint64"))
    result = idlc_with_umask(
        umask, "generate", source, "--out", "out", "--package", "pkg", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "wrote out/pkg/_types.py" in result.stderr
    assert modes(package) == expected


def test_a_generated_file_made_private_is_replaced_with_the_ordinary_mode(tmp_path: Path) -> None:
    source = tmp_path / "api.idl"
    source.write_bytes(SEEDS[1].read_bytes())
    assert (
        idlc_with_umask(
            0o022, "generate", source, "--out", "out", "--package", "pkg", cwd=tmp_path
        ).returncode
        == 0
    )
    package = tmp_path / "out" / "pkg"
    for path in package.iterdir():
        path.chmod(0o600)  # as earlier versions of idlc left them
    source.write_text(source.read_text().replace("causalDepth:uint32", "causalDepth:uint64"))
    result = idlc_with_umask(
        0o022, "generate", source, "--out", "out", "--package", "pkg", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert set(modes(package).values()) == {0o644, 0o755}


@pytest.mark.parametrize("umask", [0o022, 0o077], ids=["umask-022", "umask-077"])
def test_fmt_keeps_the_mode_of_the_file_it_rewrites(umask: int, tmp_path: Path) -> None:
    for name, mode in (("shared.idl", 0o644), ("private.idl", 0o600)):
        path = tmp_path / name
        path.write_text("type  A  =  record { a : string ; } ;\n")
        path.chmod(mode)
        result = idlc_with_umask(umask, "fmt", path, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert path.read_text() != "type  A  =  record { a : string ; } ;\n"
        assert stat.S_IMODE(path.stat().st_mode) == mode
    assert sorted(os.listdir(tmp_path)) == ["private.idl", "shared.idl"]
