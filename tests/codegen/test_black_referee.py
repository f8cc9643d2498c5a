"""black referees the generated layout, which idlc writes itself (no formatter runs at
generation time, `idlc.codegen.layout`): the committed seeds and ACP SDK and every package
of the codegen corpus are left unchanged by `black --check` with black's default
configuration, under the oldest black the project supports (installed here into a cached
virtual environment) and the newest (the test extra's, this environment's)."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from idlc.codegen import GeneratedPackage
from idlc.output.package import write_package
from tests.conftest import built_once

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = [ROOT / "generated", ROOT / "acp/idlc_acp/protocol", ROOT / "acp/idlc_acp/unstable"]

#: The oldest black the test extra allows (`black>=24.1` in pyproject.toml).
OLDEST = "24.1.0"


def _oldest_black(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = built_once(tmp_path_factory, f"black-{OLDEST}", _install_oldest_black)
    return [str(folder / "bin" / "python"), "-m", "black"]


def _install_oldest_black(folder: Path) -> None:
    # Without pip of its own (seconds to install): this environment's pip installs into it.
    venv.create(folder, with_pip=False, clear=True)
    python = folder / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", f"black=={OLDEST}"],
        check=True,
        timeout=300,
        capture_output=True,
    )


@pytest.fixture(scope="session")
def corpus_dir(
    tmp_path_factory: pytest.TempPathFactory, generated_packages: dict[str, GeneratedPackage]
) -> Path:
    folder = tmp_path_factory.mktemp("referee")
    for generated in generated_packages.values():
        write_package(folder, generated)
    return folder


@pytest.mark.parametrize("version", ["oldest", "newest"])
def test_generated_code_is_black_clean(
    version: str, corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    black = (
        _oldest_black(tmp_path_factory)
        if version == "oldest"
        else [
            sys.executable,
            "-m",
            "black",
        ]
    )
    # black's defaults, as generated code has them: not this repository's [tool.black].
    config = tmp_path / "black.toml"
    config.write_text("")
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    checked = subprocess.run(
        [*black, "--check", "--config", str(config), *map(str, COMMITTED), str(corpus_dir)],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
    )
    assert checked.returncode == 0, checked.stderr
    version_line = subprocess.run(
        [*black, "--version"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    if version == "oldest":
        assert OLDEST in version_line
