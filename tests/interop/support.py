"""Helpers of the interop tests: paths, peers, running a scenario client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import unavailable

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
JS = HERE / "js"
PYTHON = sys.executable
RUN_TIMEOUT = 300.0

ECHO_AGENT = [PYTHON, str(REPO / "examples" / "acp_echo_agent.py")]
#: The echo agent without its v2 agent: what a v1-only idlc agent answers.
ECHO_AGENT_V1 = [*ECHO_AGENT, "--v1-only"]
OUR_CLIENT = [PYTHON, str(REPO / "examples" / "acp_client.py")]
TS_AGENT = ["node", str(JS / "agent.mjs")]
TS_CLIENT = ["node", str(JS / "client.mjs")]
PY_AGENT = [PYTHON, str(HERE / "py_official_agent.py")]
PY_CLIENT = [PYTHON, str(HERE / "py_official_client.py")]
NEWS_AGENT = [PYTHON, str(HERE / "idlc_news_agent.py")]

#: The official Python SDK's versions the suite runs against. 0.12.1 is the test environment's
#: (the `test` extra); 1.0.0rc3 shares the import name `acp`, so it lives in a virtual
#: environment of its own that the session fixture `official_python_1` makes.
PY_SDK_TEST_ENV = "0.12.1"
PY_SDK_1 = "1.0.0rc3"
PY_SDKS = (PY_SDK_TEST_ENV, PY_SDK_1)
PIP_TIMEOUT = 240.0


def py_agent(python: str) -> list[str]:
    """py_official_agent.py run by `python` (the interpreter of one official SDK version)."""
    return [python, str(HERE / "py_official_agent.py")]


def py_client(python: str) -> list[str]:
    """py_official_client.py run by `python`."""
    return [python, str(HERE / "py_official_client.py")]


def official_python(request: pytest.FixtureRequest, version: str) -> str:
    """The interpreter that runs the official Python SDK `version` (one of PY_SDKS); 1.0's
    comes from the session fixture official_python_1 (tests/interop/conftest.py)."""
    assert version in PY_SDKS, version
    return request.getfixturevalue("official_python_1") if version == PY_SDK_1 else PYTHON


def make_official_python_1(root: Path, extra: str = "") -> None:
    """A fresh virtual environment `root/venv` with agent-client-protocol 1.0.0rc3 (and its
    `extra`, "[http]") from the package index. Skips, saying why, when pip cannot install it
    within PIP_TIMEOUT. The environment gets no pip of its own (seconds to install): this test
    environment's pip installs into it (`pip --python`)."""
    python = official_python_in(root)
    requirement = f"agent-client-protocol{extra}=={PY_SDK_1}"
    steps = {
        "python -m venv": [sys.executable, "-m", "venv", "--without-pip", str(python.parents[1])],
        f"pip install {requirement}": [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            requirement,
        ],
    }
    for name, step in steps.items():
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=PIP_TIMEOUT)
        except subprocess.TimeoutExpired:
            problem = f"{name} took more than {PIP_TIMEOUT:.0f} s"
        else:
            if done.returncode == 0:
                continue
            problem = f"{name} failed: {done.stderr.strip()[-1500:]}"
        pytest.skip(f"official Python SDK {PY_SDK_1} unavailable: {problem}")
    version = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.metadata as m; print(m.version('agent-client-protocol'))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.strip()
    assert version == PY_SDK_1, version


def official_python_in(root: Path) -> Path:
    """The interpreter of the environment `make_official_python_1(root)` makes."""
    return root / "venv" / "bin" / "python"


def require_node_modules() -> None:
    """Skips without the npm packages on a developer machine; fails under CI."""
    missing = []
    if shutil.which("node") is None:
        missing.append("node is not on PATH")
    if not (JS / "node_modules" / "@agentclientprotocol" / "sdk").is_dir():
        missing.append(f"{JS / 'node_modules'} is missing (run: npm ci --prefix tests/interop/js)")
    if not missing:
        return
    unavailable("official TypeScript SDK unavailable: " + "; ".join(missing))


def require_file(path: Path, owner: str) -> None:
    if not path.exists():
        pytest.fail(f"{path.relative_to(REPO)} does not exist yet ({owner})", pytrace=False)


@dataclass
class Workspace:
    path: Path
    first_line: str

    @property
    def readme(self) -> str:
        return str(self.path / "README.md")


def make_workspace(root: Path) -> Workspace:
    path = root / "workspace"
    path.mkdir()
    first_line = f"# interop workspace {uuid.uuid4().hex}"
    (path / "README.md").write_text(f"{first_line}\nsecond line\n", encoding="utf-8")
    return Workspace(path, first_line)


def tee(log: Path, command: Sequence[str]) -> list[str]:
    """`command` wrapped so that tests/interop/tee.py records its stdio in `log`."""
    return [PYTHON, str(HERE / "tee.py"), str(log), "--", *command]


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(REPO), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


@dataclass
class Run:
    records: dict[str, dict[str, Any]]
    stdout: str
    stderr: str
    returncode: int

    def __getitem__(self, scenario: str) -> dict[str, Any]:
        if scenario not in self.records:
            raise AssertionError(
                f"scenario {scenario!r} reported nothing; stderr:\n{self.stderr[-4000:]}"
            )
        return self.records[scenario]


def run_scenario_client(client: Sequence[str], agent: Sequence[str], cwd: Path, *extra: str) -> Run:
    """Runs js/client.mjs or py_official_client.py against `agent`; its JSON lines by scenario."""
    completed = subprocess.run(
        [*client, "--cwd", str(cwd), *extra, "--", *agent],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=REPO,
    )
    records: dict[str, dict[str, Any]] = {}
    for line in completed.stdout.splitlines():
        if line.strip():
            record = json.loads(line)
            records[record["scenario"]] = record
    return Run(records, completed.stdout, completed.stderr, completed.returncode)


@dataclass
class Recorded:
    """A scenario client's run against an agent whose stdio tee.py recorded."""

    run: Run
    workspace: Workspace
    log: Path


def drive(client: Sequence[str], agent: Sequence[str], root: Path, *extra: str) -> Recorded:
    """Runs a scenario client against `agent` (wrapped by tee.py) in a fresh workspace."""
    workspace = make_workspace(root)
    log = root / "wire.log"
    run = run_scenario_client(client, tee(log, agent), workspace.path, *extra)
    return Recorded(run, workspace, log)
