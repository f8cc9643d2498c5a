"""Review regression (fails on purpose until fixed): issue #13 item 1 says the language
server compiles an unconfigured workspace with "the same discovery as `idlc check` with no
arguments". idlc/lsp/units.py has its own walk (`idl_files`) that does not skip `build`,
`dist`, `*.egg-info` or conda environments, so a build copy of the IDL makes the editor
report E0105 "declared twice" where `idlc check` is green."""

from __future__ import annotations

from pathlib import Path

import pytest

from idlc.diagnostics import Diagnostics
from idlc.discovery import discover
from idlc.lsp.units import idl_files


@pytest.mark.parametrize("folder", ["build/lib", "dist", "pkg.egg-info", "env-with-conda"])
def test_the_server_discovers_what_idlc_check_discovers(tmp_path: Path, folder: str) -> None:
    (tmp_path / "api.idl").write_text("type A = record { x : string; };\n")
    copy = tmp_path / folder
    copy.mkdir(parents=True)
    (copy / "api.idl").write_text("type A = record { x : string; };\n")
    if folder == "env-with-conda":
        (copy / "conda-meta").mkdir()
    cli = [path.resolve() for path in discover(tmp_path, Diagnostics())]
    server = [path.resolve() for path in idl_files(tmp_path)]
    assert server == cli
