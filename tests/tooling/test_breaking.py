"""`idlc breaking` as users run it: a corpus of old/new pairs, one per rule, each report a
snapshot, with the revision kept (exit 1) and bumped (exit 0); compatible changes, identical
inputs and reformatting report nothing; `git:REF` reads a revision of the same paths."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from idlc.breaking.rules import REGISTRY

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BREAKING = HERE / "breaking"
COMPATIBLE = HERE / "compatible"
SEEDS = REPO / "idl" / "quixos"

RULE_CASES = sorted(path.name for path in BREAKING.iterdir() if path.is_dir())
COMPATIBLE_CASES = sorted(path.name for path in COMPATIBLE.iterdir() if path.is_dir())


def idlc(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "idlc", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
        timeout=60,
    )


def bump_revisions(text: str) -> str:
    return re.sub(
        r'revision "([^"@]*)@(\d+)"', lambda m: f'revision "{m[1]}@{int(m[2]) + 1}"', text
    )


def test_every_rule_has_a_corpus_case() -> None:
    assert set(RULE_CASES) == {rule.name for rule in REGISTRY.values()}


def test_list_rules_prints_the_registry() -> None:
    result = idlc("breaking", "--list-rules", cwd=REPO)
    assert result.returncode == 0
    assert len(result.stdout.splitlines()) == len(REGISTRY)
    assert "B0003  field-removed: " in result.stdout


@pytest.mark.parametrize("case", RULE_CASES)
def test_rule_case(case: str, tmp_path: Path, snapshot: SnapshotAssertion) -> None:
    folder = BREAKING / case
    kept = idlc("breaking", "new.idl", "--against", "old.idl", cwd=folder)
    assert kept.returncode == 1, kept.stdout + kept.stderr
    assert kept.stderr == ""
    assert kept.stdout == snapshot(name="revision kept")

    as_json = idlc(
        "breaking", "new.idl", "--against", "old.idl", "--error-format", "json", cwd=folder
    )
    assert as_json.returncode == 1
    changes = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert changes and {change["name"] for change in changes} == {case}
    assert {change["severity"] for change in changes} == {"error"}

    shutil.copy(folder / "old.idl", tmp_path / "old.idl")
    bumped_text = bump_revisions((folder / "new.idl").read_text())
    (tmp_path / "new.idl").write_text(bumped_text)
    bumped = idlc("breaking", "new.idl", "--against", "old.idl", cwd=tmp_path)
    # A removed interface has no revision to bump: removing it always fails.
    assert bumped.returncode == (1 if case == "interface-removed" else 0), bumped.stdout
    assert bumped.stdout == snapshot(name="revision bumped")


@pytest.mark.parametrize("case", COMPATIBLE_CASES)
def test_compatible_changes_report_nothing(case: str) -> None:
    folder = COMPATIBLE / case
    result = idlc("breaking", "new.idl", "--against", "old.idl", cwd=folder)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    # The other way round each is incompatible: the corpus case really changes something.
    reverse = idlc("breaking", "old.idl", "--against", "new.idl", cwd=folder)
    assert reverse.returncode in (0, 1)
    if case not in ("renames-keeping-ids", "typedef-renamed-and-inlined"):
        assert reverse.returncode == 1 and reverse.stdout


def test_identical_inputs_report_nothing() -> None:
    result = idlc("breaking", SEEDS, "--against", SEEDS, cwd=REPO)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_reformatting_alone_reports_nothing(tmp_path: Path) -> None:
    formatted = tmp_path / "formatted"
    shutil.copytree(SEEDS, formatted)
    fmt = idlc("fmt", formatted, cwd=tmp_path)
    assert fmt.returncode == 0, fmt.stderr
    assert [p.read_text() for p in sorted(formatted.glob("*.idl"))] != [
        p.read_text() for p in sorted(SEEDS.glob("*.idl"))
    ], "the seeds are expected not to be in the canonical layout"
    for new, old in ((formatted, SEEDS), (SEEDS, formatted)):
        result = idlc("breaking", new, "--against", old, cwd=tmp_path)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_seed_change_is_reported_for_the_interface_that_reaches_the_typedef(tmp_path: Path) -> None:
    new = tmp_path / "new"
    shutil.copytree(SEEDS, new)
    directory = new / "agent_directory.idl"
    directory.write_text(
        directory.read_text().replace("causalDepth:uint32;", "causalDepth:string;")
    )
    result = idlc("breaking", new, "--against", SEEDS, "--error-format", "json", cwd=tmp_path)
    assert result.returncode == 1
    [change] = [json.loads(line) for line in result.stdout.splitlines()]
    assert change["interface"] == "AgentDirectory"
    assert (
        change["message"]
        == "`causalDepth` in `AgentSubmission` changed type from `uint32` to `string`"
    )
    assert change["span"]["file"] == "new/agent_directory.idl"


def test_github_format(tmp_path: Path) -> None:
    result = idlc(
        "breaking",
        "new.idl",
        "--against",
        "old.idl",
        "--error-format",
        "github",
        cwd=BREAKING / "member-removed",
    )
    assert result.returncode == 1
    assert result.stdout.startswith(
        "::error file=old.idl,line=3,col=3,endLine=3,endColumn=102,title=B0002 member-removed::"
        "operation `reset` was removed%0A"
    ), result.stdout


def test_errors_on_either_side_are_reported_and_fail(tmp_path: Path) -> None:
    (tmp_path / "good.idl").write_text((BREAKING / "member-removed" / "old.idl").read_text())
    (tmp_path / "bad.idl").write_text("type A = Missing;\n")
    for new, old in (("bad.idl", "good.idl"), ("good.idl", "bad.idl")):
        result = idlc("breaking", new, "--against", old, cwd=tmp_path)
        assert result.returncode == 1
        assert result.stdout == ""
        assert "error[E0101]: unknown type `Missing`" in result.stderr
        assert " --> bad.idl:1:10" in result.stderr


def test_usage_errors(tmp_path: Path) -> None:
    assert idlc("breaking", "x.idl", cwd=tmp_path).returncode == 2
    no_new = idlc("breaking", "--against", "old.idl", cwd=tmp_path)
    assert no_new.returncode == 2 and "must be `git:REF`" in no_new.stderr
    not_a_repo = idlc("breaking", tmp_path, "--against", "git:HEAD", cwd=tmp_path)
    assert not_a_repo.returncode == 2 and "not in a git repository" in not_a_repo.stderr


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def test_against_a_git_revision(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    api = repo / "idl" / "api"
    api.mkdir(parents=True)
    _git(repo, "init", "-q")
    shutil.copy(BREAKING / "field-removed" / "old.idl", api / "shapes.idl")
    (repo / "README").write_text("not IDL\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    shutil.copy(BREAKING / "field-removed" / "new.idl", api / "shapes.idl")
    # A file that did not exist at the revision: everything in it is new.
    shutil.copy(BREAKING / "member-removed" / "new.idl", api / "clock.idl")

    clean = idlc("breaking", "idl", "--against", "git:HEAD", cwd=repo)
    assert clean.returncode == 1, clean.stderr
    assert clean.stdout.count("error[B0003]: field `label` was removed from `Point`") == 2
    assert " --> HEAD:idl/api/shapes.idl:2:43" in clean.stdout
    assert "1 | " not in clean.stdout  # the old side's line 2 is shown, from the revision
    assert (
        "2 | type Point = record { x: int32; y: int32; label: optional<string>; };" in clean.stdout
    )

    # From a sub-folder, with a file as NEW: paths are relative to the repository root.
    result = idlc(
        "breaking", "shapes.idl", "--against", "git:HEAD", "--error-format", "json", cwd=api
    )
    assert result.returncode == 1
    spans = {json.loads(line)["span"]["file"] for line in result.stdout.splitlines()}
    assert spans == {"HEAD:idl/api/shapes.idl"}

    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "second")
    assert idlc("breaking", "idl", "--against", "git:HEAD", cwd=repo).stdout == ""
    assert idlc("breaking", "idl", "--against", "git:HEAD~1", cwd=repo).returncode == 1

    unknown = idlc("breaking", "idl", "--against", "git:no-such-branch", cwd=repo)
    assert unknown.returncode == 2
    assert "`no-such-branch` is not a git revision" in unknown.stderr


def test_against_git_with_the_configured_packages(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "idl").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(
        '[tool.idlc]\n[[tool.idlc.packages]]\nname = "clock"\nsources = ["idl"]\nout = "gen"\n'
    )
    shutil.copy(BREAKING / "execution-changed" / "old.idl", repo / "idl" / "counter.idl")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    shutil.copy(BREAKING / "execution-changed" / "new.idl", repo / "idl" / "counter.idl")
    result = idlc("breaking", "--against", "git:HEAD", cwd=repo)
    assert result.returncode == 1
    assert result.stdout.startswith("error[B0303]: `increment` changed execution")


def test_an_unknown_case_type_added_to_an_input_variant_is_reported(tmp_path: Path) -> None:
    """`unknown: T;` refuses unknown tags without T's fields (docs/language.md, "Variants"):
    adding it breaks callers; removing it breaks peers reading an output."""
    old = (
        'type V = open variant tag "k" { "a": unit; };\n'
        'interface I id "i" revision "i@1" {\n'
        '  operation send id "i:send" : V -> unit {call id "i:send:call" execution snapshot;}\n'
        "}\n"
    )
    new = old.replace('"a": unit;', '"a": unit; unknown: record { id: string; };')
    (tmp_path / "old.idl").write_text(old)
    (tmp_path / "new.idl").write_text(new)
    added = idlc("breaking", "new.idl", "--against", "old.idl", cwd=tmp_path)
    assert added.returncode == 1 and "B0101" in added.stdout
    assert "must now also be" in added.stdout
    (tmp_path / "old.idl").write_text(new.replace(": V -> unit", ": unit -> V"))
    (tmp_path / "new.idl").write_text(old.replace(": V -> unit", ": unit -> V"))
    removed = idlc("breaking", "new.idl", "--against", "old.idl", cwd=tmp_path)
    assert removed.returncode == 1 and "need no longer be" in removed.stdout, removed.stdout
