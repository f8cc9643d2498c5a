"""What `idlc check` imports on its way: its whole-process start-up is what pre-commit hooks
and editors wait for on every save (docs/benchmarks.md), so what it does not need stays
out, and this pins it (read from `python -X importtime`, the import log)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SEEDS

#: Never on a plain `check`'s path: the CLI framework (idlc/__main__.py runs `check`
#: without it), generation's and the language server's dependencies, Lark (the tables are
#: cached), and the standard modules only other paths need (JSON output, the table cache's
#: former pickle, temporary-file names, pyproject.toml), and the heavy ones nothing needs:
#: `dataclasses` (it loads `inspect`, a fifth of the start-up under callgrind; the classes
#: are `idlc.nodes`' instead), `threading` (the one lock is `_thread`'s) and `base64` (only a
#: `bytes` default's check loads it).
NEVER = {
    "click",
    "idlc.cli",
    "jinja2",
    "black",
    "lark",
    "msgspec",
    "pygls",
    "lsprotocol",
    "json",
    "pickle",
    "secrets",
    "dataclasses",
    "inspect",
    "threading",
    "base64",
    "idlc.codegen",
    "idlc.output",
    "idlc.commands.generate",
    "idlc.commands.dump",
    "idlc.commands.breaking",
    "idlc.lsp",
    "idlc.breaking",
    "idlc.semantics.dump",
}

#: With files named, not even the configuration is read.
NEVER_WITH_FILES = {"tomllib", "idlc.config", "idlc.discovery"}


def _imported(*args: str, cwd: Path, command: str = "check") -> set[str]:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "idlc", command, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "idlc.pipeline" in imported  # the log is what this test reads
    assert ("idlc.commands.fmt" in imported) == (command == "fmt")
    return imported


def _offending(imported: set[str], never: set[str]) -> set[str]:
    """Modules of `imported` that are, or are inside, a package of `never`."""
    return {
        name
        for name in imported
        if any(name == banned or name.startswith(banned + ".") for banned in never)
    }


def test_check_of_files_imports_only_what_it_needs() -> None:
    imported = _imported(*map(str, SEEDS), cwd=REPO)
    assert not _offending(imported, NEVER | NEVER_WITH_FILES)


def test_check_without_files_imports_only_what_it_needs(tmp_path: Path) -> None:
    # As the pre-commit hook runs it: no files named, the project found by discovery.
    for seed in SEEDS:
        shutil.copy(seed, tmp_path / seed.name)
    imported = _imported(cwd=tmp_path)
    assert "idlc.discovery" in imported
    assert not _offending(imported, NEVER)


@pytest.mark.parametrize("options", [["--error-format=human"], ["-A", "W0002"]])
def test_check_with_options_still_goes_through_click(options: list[str]) -> None:
    """The options are click's to parse: the fast path takes only plain file names."""
    imported = _imported(*options, *map(str, SEEDS), cwd=REPO)
    assert "click" in imported


#: `idlc fmt` only parses: no resolver, no model (the `idlc-fmt` hook runs it on every commit).
NEVER_IN_FMT = {"idlc.semantics", "difflib"}


def test_fmt_of_files_imports_only_what_it_needs(tmp_path: Path) -> None:
    for seed in SEEDS:
        shutil.copy(seed, tmp_path / seed.name)
    names = [seed.name for seed in SEEDS]
    # `fmt` rewrites the copies, so `fmt --check` then finds them canonical (exit 0).
    for options in ([], ["--check"]):
        imported = _imported(*options, *names, cwd=tmp_path, command="fmt")
        # It writes files back (`idlc.output.atomic`), never a package.
        never = NEVER - {"idlc.output"} | {"idlc.output.package", "idlc.commands.check"}
        assert not _offending(imported, never | NEVER_WITH_FILES | NEVER_IN_FMT)


def test_fmt_with_other_options_still_goes_through_click(tmp_path: Path) -> None:
    for seed in SEEDS:
        shutil.copy(seed, tmp_path / seed.name)
    names = [seed.name for seed in SEEDS]
    assert "click" not in _imported(*names, cwd=tmp_path, command="fmt")
    assert "click" in _imported("--diff", *names, cwd=tmp_path, command="fmt")


@pytest.mark.parametrize("descriptor", [1, 2])
@pytest.mark.parametrize("command", ["check", "fmt --check"])
def test_a_closed_standard_stream_is_no_crash(descriptor: int, command: str) -> None:
    # A valid check writes nothing to either stream: it succeeds, whichever is closed;
    # nothing may be reported as a traceback (which would need stderr, if it is open).
    seeds = " ".join(str(seed) for seed in SEEDS)
    closed = ">&-" if descriptor == 1 else "2>&-"
    script = f"{sys.executable} -m idlc {command} {seeds} {closed}; echo rc=$?"
    if descriptor == 1:
        script = f"( {sys.executable} -m idlc {command} {seeds} {closed} ); echo rc=$? >&2"
    result = subprocess.run(
        ["sh", "-c", script], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    expected = 1 if command == "fmt --check" else 0  # the seeds are kept unformatted
    assert f"rc={expected}" in output, output


def test_plain_generate_runs_without_click(tmp_path: Path) -> None:
    """`idlc generate` with files, `--out`, `--package` and `--check`, or with none of them
    (the configured packages), as builds and CI run it: no click (idlc/__main__.py)."""
    names = [*map(str, SEEDS), "--out", str(tmp_path / "out"), "--package", "seeds"]
    for options in ([], ["--check"]):
        result = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "idlc", "generate", *names, *options],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        assert "| idlc.codegen" in result.stderr  # the log is what this test reads
        assert "| click" not in result.stderr
        assert "| tomllib" not in result.stderr  # files named: no pyproject.toml read


#: Never on a plain `idlc generate FILES --out DIR --package NAME`'s path (nor `--check`'s,
#: on a package that is up to date): the CLI framework, the other commands, the language
#: server's and the formatter's modules, Jinja2 and what only it loads (`json`, `pickle`,
#: `inspect`, `threading`, `tempfile`, `markupsafe`: the templates' compiled modules render,
#: idlc/codegen/template_loader.py), pyproject.toml's reader and discovery (files are
#: named), difflib (only to show a stale file) and subprocesses. `base64` writes `bytes`
#: defaults. `dataclasses` stays out.
NEVER_IN_GENERATE = (
    NEVER - {"idlc.codegen", "idlc.output", "idlc.commands.generate", "base64"}
) | {
    "idlc.codegen.jinja_env",
    "tempfile",
    "markupsafe",
    "idlc.commands.check",
    "idlc.commands.fmt",
    "idlc.syntax.format",
    "tomllib",
    "idlc.discovery",
    "difflib",
    "shlex",
    "subprocess",
}


def test_generate_of_files_imports_only_what_it_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The package is written by the first run (the parse tables then kept in a cache of
    # the test's own, so the imports pinned are those of every later run).
    monkeypatch.setenv("IDLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("IDLC_JINJA_TEMPLATES", raising=False)
    names = [*map(str, SEEDS), "--out", str(tmp_path / "out"), "--package", "seeds"]
    _imported(*names, cwd=tmp_path, command="generate")
    for options in ([], ["--check"]):
        imported = _imported(*names, *options, cwd=tmp_path, command="generate")
        assert {"idlc.codegen.render", "idlc.codegen.compiled", "idlc.output.package"} <= imported
        assert not _offending(imported, NEVER_IN_GENERATE)


def test_typescript_generate_imports_no_jinja2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `--target` is click's to parse (so `inspect`, `json`, `threading` come with it), but
    # the TypeScript templates render from their compiled modules too.
    monkeypatch.setenv("IDLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("IDLC_JINJA_TEMPLATES", raising=False)
    names = ["--target", "typescript", *map(str, SEEDS), "--out", str(tmp_path / "out")]
    imported = _imported(*names, "--package", "seeds", cwd=tmp_path, command="generate")
    assert "idlc.codegen.compiled" in imported
    assert not _offending(imported, {"jinja2", "markupsafe", "idlc.codegen.jinja_env"})
