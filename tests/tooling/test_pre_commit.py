"""The hooks of `.pre-commit-hooks.yaml`, run by the real pre-commit (`try-repo`) on a small
downstream repository with IDL files, a `[tool.idlc]` pyproject and committed generated code.

Slow: the first hook run of a session installs idlc (from a snapshot of this checkout) into
pre-commit's own environment, from PyPI; every later run reuses it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tooling.support import REPO, git

pytestmark = pytest.mark.slow

HOOKS = ("idlc-fmt", "idlc-check", "idlc-generate", "idlc-generate-check")

CLOCK = """\
/// A wall clock.
interface Clock id "clock" revision "clock@1" {
  queryable value now id "clock:now" : uint64 { get id "clock:now:get" execution snapshot; }
  operation set id "clock:set" : record { time : uint64; } -> unit { call id "clock:set:call" execution transaction; }
}
"""

PYPROJECT = """\
[project]
name = "downstream"
version = "1.0"

[tool.idlc]

[[tool.idlc.packages]]
name = "clock_api"
sources = ["idl"]
out = "gen"
"""


def local_idlc(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "idlc", *args],
        cwd=cwd, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.fixture
def downstream(tmp_path: Path) -> Path:
    """A committed repository whose IDL is canonical and whose generated code is fresh."""
    repo = tmp_path / "downstream"
    (repo / "idl").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(PYPROJECT)
    (repo / "idl" / "clock.idl").write_text(CLOCK)
    for args in (("fmt", "--check"), ("generate",)):
        result = local_idlc(*args, cwd=repo)
        assert result.returncode == 0, result.stderr
    assert (repo / "gen" / "clock_api" / "__init__.py").is_file()
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "downstream")
    return repo


def run_hook(
    hook: str, repo: Path, checkout_snapshot: Path, pre_commit_home: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(checkout_snapshot), hook, "--all-files", "--color", "never"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home), "NO_COLOR": "1"},
    )


def test_the_hooks_file_lists_the_four_hooks() -> None:
    from pre_commit.clientlib import load_manifest

    hooks = {hook["id"]: hook for hook in load_manifest(str(REPO / ".pre-commit-hooks.yaml"))}
    assert tuple(hooks) == HOOKS
    assert all(hook["language"] == "python" for hook in hooks.values())
    assert hooks["idlc-fmt"]["pass_filenames"] is True
    for hook in HOOKS[1:]:
        assert hooks[hook]["pass_filenames"] is False, hook
    assert "--check" in hooks["idlc-generate-check"]["entry"]


def test_a_clean_tree_passes_every_hook(
    downstream: Path, checkout_snapshot: Path, pre_commit_home: Path
) -> None:
    for hook in HOOKS:
        result = run_hook(hook, downstream, checkout_snapshot, pre_commit_home)
        assert result.returncode == 0, f"{hook}:\n{result.stdout}\n{result.stderr}"
        assert "Passed" in result.stdout, result.stdout
    assert git(downstream, "status", "--porcelain") == ""


def test_malformed_idl_fails_check_and_generate_with_a_located_message(
    downstream: Path, checkout_snapshot: Path, pre_commit_home: Path
) -> None:
    clock = downstream / "idl" / "clock.idl"
    clock.write_text(CLOCK.replace("time : uint64;", "time : uint64"))
    for hook in ("idlc-check", "idlc-generate-check", "idlc-generate", "idlc-fmt"):
        result = run_hook(hook, downstream, checkout_snapshot, pre_commit_home)
        assert result.returncode == 1, f"{hook}:\n{result.stdout}"
        assert "error[E0003]: expected `;`, found `}`" in result.stdout, f"{hook}:\n{result.stdout}"
        assert "--> idl/clock.idl:4:" in result.stdout, f"{hook}:\n{result.stdout}"
    assert git(downstream, "status", "--porcelain") == " M idl/clock.idl\n", "nothing else was written"


def test_stale_generated_code(downstream: Path, checkout_snapshot: Path, pre_commit_home: Path) -> None:
    generated = downstream / "gen" / "clock_api" / "clock.py"
    fresh = generated.read_text()
    generated.write_text(fresh + "# edited by hand\n")

    check = run_hook("idlc-generate-check", downstream, checkout_snapshot, pre_commit_home)
    assert check.returncode == 1, check.stdout
    assert "gen/clock_api/clock.py" in check.stdout, check.stdout
    assert generated.read_text().endswith("# edited by hand\n"), "--check never writes"

    regenerate = run_hook("idlc-generate", downstream, checkout_snapshot, pre_commit_home)
    assert regenerate.returncode == 1, regenerate.stdout
    assert "files were modified by this hook" in regenerate.stdout
    assert generated.read_text() == fresh

    again = run_hook("idlc-generate", downstream, checkout_snapshot, pre_commit_home)
    assert again.returncode == 0, again.stdout


def test_an_idl_change_makes_the_generated_code_stale(
    downstream: Path, checkout_snapshot: Path, pre_commit_home: Path
) -> None:
    clock = downstream / "idl" / "clock.idl"
    clock.write_text(CLOCK.replace("/// A wall clock.", "/// A wall clock, in UTC."))
    result = run_hook("idlc-generate-check", downstream, checkout_snapshot, pre_commit_home)
    assert result.returncode == 1, result.stdout
    assert "gen/clock_api/clock.py" in result.stdout


def test_fmt_rewrites_non_canonical_files(
    downstream: Path, checkout_snapshot: Path, pre_commit_home: Path
) -> None:
    clock = downstream / "idl" / "clock.idl"
    clock.write_text(CLOCK.replace("\n  operation", "\n      operation"))
    result = run_hook("idlc-fmt", downstream, checkout_snapshot, pre_commit_home)
    assert result.returncode == 1, result.stdout
    assert "reformatted idl/clock.idl" in result.stdout
    assert clock.read_text() == CLOCK
    assert run_hook("idlc-fmt", downstream, checkout_snapshot, pre_commit_home).returncode == 0
