"""The three distributions, each installed alone as a user would: a service installs the runtime
(and the ACP SDK if it speaks ACP) and never the compiler's dependencies.

Slow: makes a fresh virtual environment with pip and installs the wheels built from a snapshot
of this checkout, their dependencies from the package index.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import built_once
from tests.tooling.support import REPO, fresh_environment, pip_in
from tests.tooling.support import run_installed as run

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout"),
]

COMPILER_ONLY = ("idlc", "lark", "jinja2", "click")


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory, wheels: dict[str, Path]) -> Path:
    """A fresh environment with the runtime and the ACP SDK, and the oldest msgspec the
    runtime accepts (so the declared range is true at its lower end). One for all xdist
    workers: the tests only run programs in it."""

    def install(folder: Path) -> None:
        installed = pip_in(
            fresh_environment(folder / "env"),
            "install",
            "-q",
            "msgspec==0.19.0",
            wheels["idlc-runtime"],
            wheels["idlc-acp"],
        )
        assert installed.returncode == 0, installed.stdout + installed.stderr

    return built_once(tmp_path_factory, "service-environment", install) / "env" / "bin" / "python"


def test_the_service_environment_has_no_compiler(service: Path, tmp_path: Path) -> None:
    for module in COMPILER_ONLY:
        found = run(
            service,
            "-c",
            f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is not None)",
            cwd=tmp_path,
        )
        assert found.returncode == 0, f"{module} is installed beside the runtime"
    version = run(service, "-c", "import msgspec; print(msgspec.__version__)", cwd=tmp_path)
    assert version.stdout.strip() == "0.19.0", version.stderr


def test_a_generated_package_is_served_and_called_with_the_runtime_alone(
    service: Path, tmp_path: Path
) -> None:
    packages = tmp_path / "packages"
    shutil.copytree(REPO / "generated" / "quixos_agent", packages / "quixos_agent")
    # The walkthrough spawns examples/quixos_server.py over real stdio and calls every member.
    walked = run(
        service,
        REPO / "examples" / "quixos_client.py",
        cwd=tmp_path,
        env={"PYTHONPATH": str(packages)},
    )
    assert walked.returncode == 0, walked.stdout + walked.stderr
    assert "AgentAdmission(accepted=True" in walked.stdout


def test_the_acp_sdk_runs_the_echo_agent_with_the_runtime_alone(
    service: Path, tmp_path: Path
) -> None:
    imported = run(
        service, "-c", "import idlc_acp, idlc_acp.protocol; print(idlc_acp.__file__)", cwd=tmp_path
    )
    assert imported.returncode == 0, imported.stderr
    assert "site-packages" in imported.stdout
    (tmp_path / "README.md").write_text("first line of the workspace\n")
    turn = run(
        service,
        REPO / "examples" / "acp_client.py",
        "--cwd",
        tmp_path,
        "--prompt",
        "hello there",
        "--permission",
        "allow",
        "--",
        service,
        REPO / "examples" / "acp_echo_agent.py",
        cwd=tmp_path,
    )
    assert turn.returncode == 0, turn.stdout + turn.stderr
    assert "hello there" in turn.stdout
    assert "end_turn" in turn.stdout
