"""The README's two set-up commands stay true: CI runs the test one (here); the install one
runs as written in tests/tooling/test_readme_main_job.py, and an idlc installed from its
wheel works from any folder (tests/tooling/test_build_hook.py)."""

from __future__ import annotations

import re
from pathlib import Path

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
