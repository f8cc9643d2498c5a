"""docs/acp.md's two programs run as printed: the client starts the agent, and prints what
the guide says it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

GUIDE = ROOT / "docs" / "acp.md"


def programs() -> dict[str, str]:
    text = GUIDE.read_text(encoding="utf-8")
    return dict(re.findall(r"^```python (\S+\.py)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL))


def printed() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    found = re.search(r"^It prints:\n\n```text\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    assert found is not None, "docs/acp.md shows what the client prints"
    return found.group(1)


def test_the_guides_client_and_agent_run_as_printed(tmp_path: Path) -> None:
    found = programs()
    assert sorted(found) == ["guide_agent.py", "guide_client.py"]
    for name, source in found.items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "guide_client.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == printed()
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "buy milk\n"


def test_the_guides_programs_are_clean_under_mypy_strict(tmp_path: Path) -> None:
    for name, source in programs().items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(tmp_path / "cache"),
            "guide_agent.py",
            "guide_client.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
