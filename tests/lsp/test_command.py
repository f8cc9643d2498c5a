"""`idlc lsp` as a command: without its extra it says how to install it; other commands
never import the language server's dependencies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, SEEDS


def _idlc(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def test_without_the_extra_it_says_how_to_install_it(tmp_path: Path) -> None:
    # A pygls that cannot be imported, first on the path: as if the extra were missing.
    (tmp_path / "pygls").mkdir()
    (tmp_path / "pygls" / "__init__.py").write_text("raise ImportError('not installed')\n")
    result = _idlc("-m", "idlc", "lsp", env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == "idlc lsp needs the language server extra: pip install 'idlc[lsp]'\n"


def test_check_does_not_import_the_language_server() -> None:
    result = _idlc("-X", "importtime", "-m", "idlc", "check", *map(str, SEEDS))
    assert result.returncode == 0, result.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    assert "idlc.pipeline" in imported  # the import log is what this test reads
    assert not {
        name for name in imported if name.split(".")[0] in {"pygls", "lsprotocol", "cattrs"}
    }
    assert not {name for name in imported if name.startswith("idlc.lsp")}
