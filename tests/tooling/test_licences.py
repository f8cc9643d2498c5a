"""Every wheel and sdist of the three distributions carries the Apache-2.0 text its metadata
names (and idlc-acp the NOTICE for the ACP schema its protocol packages come from); the
three LICENSE files are the one text, and no wheel ships idlc's `.idlc-manifest`."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.tooling.support import REPO

pytestmark = pytest.mark.slow

#: project name → (its folder in the checkout, the licence files it ships)
DISTRIBUTIONS = {
    "idlc": (".", ("LICENSE",)),
    "idlc-runtime": ("runtime", ("LICENSE",)),
    "idlc-acp": ("acp", ("LICENSE", "NOTICE")),
}


@pytest.fixture(scope="module")
def sdists(checkout_snapshot: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("sdists")
    built: dict[str, Path] = {}
    for name, (where, _) in DISTRIBUTIONS.items():
        made = subprocess.run(
            [sys.executable, "-c", "import sys; from hatchling.build import build_sdist; "
             "print(build_sdist(sys.argv[1]))", str(folder)],
            cwd=checkout_snapshot / where, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        built[name] = folder / made.stdout.strip().splitlines()[-1]
    return built


def test_the_licence_files_are_one_apache_text() -> None:
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    for where in ("runtime", "acp"):
        assert (REPO / where / "LICENSE").read_text(encoding="utf-8") == text
    assert (REPO / "idl" / "acp-schema" / "NOTICE").is_file(), "the vendored schema's NOTICE"


@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_every_wheel_carries_its_licence(name: str, wheels: dict[str, Path]) -> None:
    folder, files = DISTRIBUTIONS[name]
    with zipfile.ZipFile(wheels[name]) as archive:
        names = archive.namelist()
        for file in files:
            [member] = [n for n in names if n.endswith(f".dist-info/licenses/{file}")]
            assert archive.read(member) == (REPO / folder / file).read_bytes()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    assert b"License-Expression: Apache-2.0" in metadata
    for file in files:
        assert f"License-File: {file}".encode() in metadata
    assert not [n for n in names if n.endswith(".idlc-manifest")], names


@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_every_sdist_carries_its_licence(name: str, sdists: dict[str, Path]) -> None:
    folder, files = DISTRIBUTIONS[name]
    with tarfile.open(sdists[name]) as archive:
        members = {Path(m.name).relative_to(Path(m.name).parts[0]).as_posix(): m for m in archive}
        for file in files:
            extracted = archive.extractfile(members[file])
            assert extracted is not None
            assert extracted.read() == (REPO / folder / file).read_bytes()
