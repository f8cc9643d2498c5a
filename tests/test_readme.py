"""The README's two set-up commands stay true: CI runs the test one, and the install one
gives an `idlc` that works from any folder."""

from __future__ import annotations

import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", setup, re.DOTALL)


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one() -> None:
    commands = _readme_commands()
    assert len(commands) == 2, commands
    install, tests = commands
    assert "idlc generate" in install, "the first command runs the main job"
    ci_lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci_lines, "'.ci/run' must run the README's test command as written"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout")
def test_installed_wheel_checks_the_seeds_from_another_folder(tmp_path: Path) -> None:
    """`pip install .` gives an idlc that finds its grammar outside the checkout."""
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    [wheel] = wheels.glob("idlc-*.whl")
    environment = tmp_path / "env"
    venv.create(environment, with_pip=False, system_site_packages=False)
    # The dependencies come from this test environment (no network needed); idlc itself
    # only from the wheel, so a file missing from the wheel makes this fail.
    site = subprocess.run(
        [
            str(environment / "bin" / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    ours = [p for p in sys.path if p.endswith("site-packages")]
    (Path(site) / "deps.pth").write_text("\n".join(ours) + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", site, str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    seeds = [
        REPO / "idl" / "quixos" / "agent_directory.idl",
        REPO / "idl" / "quixos" / "agent_request.idl",
    ]
    result = subprocess.run(
        [
            str(environment / "bin" / "python"),
            "-c",
            "import idlc, sys; from idlc.cli import main; sys.argv[0]='idlc'; print(idlc.__file__, file=sys.stderr); main()",
            "check",
            *map(str, seeds),
        ],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert (
        str(REPO) not in result.stderr.splitlines()[0]
    ), "idlc was imported from the checkout, not the wheel"
