"""The hooks of `.pre-commit-hooks.yaml`, run by the real pre-commit (`try-repo`) on a small
downstream repository with IDL files, a `[tool.idlc]` pyproject and committed generated code.

Slow. `try-repo` keeps its hook environments in a temporary store of its own (it ignores
PRE_COMMIT_HOME), so it installs idlc, from a snapshot of this checkout and PyPI, on every
run: it is used for the clean tree only. The other tests run the hooks as a project would,
through a configuration naming the snapshot, with PRE_COMMIT_HOME shared by the session so
that idlc is installed once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
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
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
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


def hook_environment(pre_commit_home: Path) -> dict[str, str]:
    """Without PYTHONPATH: the hooks must run the idlc installed in pre-commit's environment,
    not this checkout. pre-commit installs idlc and idlc-runtime from the snapshot alone (no
    index serves idlc-runtime)."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_FIND_LINKS")}
    return {**environment, "PRE_COMMIT_HOME": str(pre_commit_home), "NO_COLOR": "1"}


def try_repo(
    repo: Path, checkout_snapshot: Path, pre_commit_home: Path, *hooks: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(checkout_snapshot),
            *hooks,
            "--all-files",
            "--color",
            "never",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
        env=hook_environment(pre_commit_home),
    )


@pytest.fixture(scope="session")
def hook_config(checkout_snapshot: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `.pre-commit-config.yaml` using every hook of the snapshot at its commit."""
    revision = git(checkout_snapshot, "rev-parse", "HEAD").strip()
    hooks = "".join(f"      - id: {hook}\n" for hook in HOOKS)
    config = tmp_path_factory.mktemp("pre-commit-config") / "config.yaml"
    config.write_text(
        f"repos:\n  - repo: {checkout_snapshot}\n    rev: {revision}\n    hooks:\n{hooks}"
    )
    return config


@pytest.fixture
def run_hook(
    downstream: Path, hook_config: Path, pre_commit_home: Path
) -> Callable[[str], subprocess.CompletedProcess[str]]:
    def run(hook: str) -> subprocess.CompletedProcess[str]:
        return run_hook_in(downstream, hook, hook_config, pre_commit_home)

    return run


def test_the_hooks_file_lists_the_four_hooks() -> None:
    from pre_commit.clientlib import load_manifest

    hooks = {hook["id"]: hook for hook in load_manifest(str(REPO / ".pre-commit-hooks.yaml"))}
    assert tuple(hooks) == HOOKS
    assert all(hook["language"] == "python" for hook in hooks.values())
    assert hooks["idlc-fmt"]["pass_filenames"] is True
    for hook in HOOKS[1:]:
        assert hooks[hook]["pass_filenames"] is False, hook
    assert "--check" in hooks["idlc-generate-check"]["entry"]


def test_a_clean_tree_passes_every_hook_with_try_repo(
    downstream: Path, checkout_snapshot: Path, pre_commit_home: Path
) -> None:
    # No hook id: try-repo runs every hook of the repository, with one installation.
    result = try_repo(downstream, checkout_snapshot, pre_commit_home)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    passed = [line for line in result.stdout.splitlines() if line.endswith("Passed")]
    names = ["idlc fmt", "idlc check", "idlc generate", "idlc generate --check"]
    assert sorted(line.split(".")[0].strip() for line in passed) == sorted(names), result.stdout
    assert git(downstream, "status", "--porcelain") == ""

    stale = downstream / "gen" / "clock_api" / "clock.py"
    stale.write_text(stale.read_text() + "# edited by hand\n")
    one = try_repo(downstream, checkout_snapshot, pre_commit_home, "idlc-generate-check")
    assert one.returncode == 1, one.stdout
    assert "gen/clock_api/clock.py" in one.stdout


def test_a_clean_tree_passes_every_hook_from_a_config(
    downstream: Path, run_hook: Callable[[str], subprocess.CompletedProcess[str]]
) -> None:
    for hook in HOOKS:
        result = run_hook(hook)
        assert result.returncode == 0, f"{hook}:\n{result.stdout}\n{result.stderr}"
        assert "Passed" in result.stdout, result.stdout
    assert git(downstream, "status", "--porcelain") == ""


def test_malformed_idl_fails_check_and_generate_with_a_located_message(
    downstream: Path, run_hook: Callable[[str], subprocess.CompletedProcess[str]]
) -> None:
    clock = downstream / "idl" / "clock.idl"
    clock.write_text(CLOCK.replace("time : uint64;", "time : uint64"))
    for hook in ("idlc-check", "idlc-generate-check", "idlc-generate", "idlc-fmt"):
        result = run_hook(hook)
        assert result.returncode == 1, f"{hook}:\n{result.stdout}"
        assert "error[E0003]: expected `;`, found `}`" in result.stdout, f"{hook}:\n{result.stdout}"
        assert "--> idl/clock.idl:4:" in result.stdout, f"{hook}:\n{result.stdout}"
    assert (
        git(downstream, "status", "--porcelain") == " M idl/clock.idl\n"
    ), "nothing else was written"


def test_stale_generated_code(
    downstream: Path, run_hook: Callable[[str], subprocess.CompletedProcess[str]]
) -> None:
    generated = downstream / "gen" / "clock_api" / "clock.py"
    fresh = generated.read_text()
    generated.write_text(fresh + "# edited by hand\n")

    check = run_hook("idlc-generate-check")
    assert check.returncode == 1, check.stdout
    assert "gen/clock_api/clock.py" in check.stdout, check.stdout
    assert "run `idlc generate` to update the generated files" in check.stdout, check.stdout
    assert generated.read_text().endswith("# edited by hand\n"), "--check never writes"

    regenerate = run_hook("idlc-generate")
    assert regenerate.returncode == 1, regenerate.stdout
    assert "files were modified by this hook" in regenerate.stdout
    assert generated.read_text() == fresh

    again = run_hook("idlc-generate")
    assert again.returncode == 0, again.stdout


def test_an_idl_change_makes_the_generated_code_stale(
    downstream: Path, run_hook: Callable[[str], subprocess.CompletedProcess[str]]
) -> None:
    clock = downstream / "idl" / "clock.idl"
    clock.write_text(CLOCK.replace("/// A wall clock.", "/// A wall clock, in UTC."))
    result = run_hook("idlc-generate-check")
    assert result.returncode == 1, result.stdout
    assert "gen/clock_api/clock.py" in result.stdout


def test_fmt_rewrites_non_canonical_files(
    downstream: Path, run_hook: Callable[[str], subprocess.CompletedProcess[str]]
) -> None:
    clock = downstream / "idl" / "clock.idl"
    clock.write_text(CLOCK.replace("\n  operation", "\n      operation"))
    result = run_hook("idlc-fmt")
    assert result.returncode == 1, result.stdout
    assert "reformatted idl/clock.idl" in result.stdout
    assert clock.read_text() == CLOCK
    assert run_hook("idlc-fmt").returncode == 0


# ---------------------------------------------------------------- without [tool.idlc]

TIME = "/// Seconds since the epoch.\ntype Time = uint64;\n"
CLOCK_USING_TIME = CLOCK.replace(": uint64 {", ": Time {")
BROKEN = "type Broken = Nope;\n"


def committed(repo: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "downstream")
    return repo


def run_hook_in(
    repo: Path, hook: str, hook_config: Path, pre_commit_home: Path, *options: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "run",
            hook,
            "--all-files",
            "--color",
            "never",
            "--config",
            str(hook_config),
            *options,
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
        env=hook_environment(pre_commit_home),
    )


def test_check_in_a_repository_without_configuration_checks_every_idl_file(
    tmp_path: Path, hook_config: Path, pre_commit_home: Path
) -> None:
    """No pyproject.toml: the IDL files of the repository are one compilation (`api/clock.idl`
    uses `Time` from `types/time.idl`); a virtual environment and hidden folders are skipped."""
    repo = committed(
        tmp_path / "plain",
        {
            "types/time.idl": TIME,
            "api/clock.idl": CLOCK_USING_TIME,
            ".github/templates/broken.idl": BROKEN,
        },
    )
    (repo / ".venv" / "share").mkdir(parents=True)
    (repo / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (repo / ".venv" / "share" / "broken.idl").write_text(BROKEN)
    for hook in ("idlc-check", "idlc-fmt"):
        result = run_hook_in(repo, hook, hook_config, pre_commit_home)
        assert result.returncode == 0, f"{hook}:\n{result.stdout}\n{result.stderr}"
        assert "Passed" in result.stdout, result.stdout

    (repo / "api" / "clock.idl").write_text(CLOCK_USING_TIME.replace(": Time {", ": Tim {"))
    broken = run_hook_in(repo, "idlc-check", hook_config, pre_commit_home)
    assert broken.returncode == 1, broken.stdout
    assert "error[E0101]: unknown type `Tim`" in broken.stdout
    assert "--> api/clock.idl:3:" in broken.stdout
    assert "Broken" not in broken.stdout, "a skipped folder was checked"


def test_check_in_a_repository_without_idl_files_passes(
    tmp_path: Path, hook_config: Path, pre_commit_home: Path
) -> None:
    """pyproject.toml matches the hook's files, so it runs; with nothing to check it passes."""
    repo = committed(
        tmp_path / "no-idl", {"pyproject.toml": '[project]\nname = "x"\nversion = "1"\n'}
    )
    result = run_hook_in(repo, "idlc-check", hook_config, pre_commit_home)
    assert result.returncode == 0, result.stdout
    assert "idlc check" in result.stdout and "Passed" in result.stdout, result.stdout


def test_the_generate_hooks_without_configuration_say_what_they_need(
    tmp_path: Path, hook_config: Path, pre_commit_home: Path
) -> None:
    repo = committed(
        tmp_path / "plain", {"types/time.idl": TIME, "api/clock.idl": CLOCK_USING_TIME}
    )
    result = run_hook_in(repo, "idlc-generate-check", hook_config, pre_commit_home)
    assert result.returncode == 1, result.stdout
    assert "Error: `idlc generate` needs `--out DIR`" in result.stdout, result.stdout
    assert git(repo, "status", "--porcelain") == ""


def test_a_hook_only_package_passes_generate_check_saying_there_is_nothing_to_compare(
    downstream: Path, hook_config: Path, pre_commit_home: Path
) -> None:
    # The build hook's workflow: no `out`, nothing generated committed.
    (downstream / "pyproject.toml").write_text(
        PYPROJECT.replace('out = "gen"\n', "") + "\n[tool.hatch.build.hooks.idlc]\n"
    )
    git(downstream, "rm", "-r", "-q", "gen")
    git(downstream, "commit", "-q", "-a", "-m", "the build hook generates clock_api")
    result = run_hook_in(
        downstream, "idlc-generate-check", hook_config, pre_commit_home, "--verbose"
    )
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    assert "package `clock_api` has no `out`" in result.stdout, result.stdout
    assert "nothing committed to compare" in result.stdout, result.stdout
