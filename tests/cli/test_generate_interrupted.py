"""`idlc generate` killed (`kill -9`) at any moment of a large run leaves the package
entirely old or entirely new, hand-written files included; `--check` then names what the
interrupted run left behind, and the next run removes it.

The kill points are random (seeded) moments: one anywhere in the run, the others once the
run has begun to write (its first trace in the output folder is watched for), spread over
as long as writing took in an uninterrupted run. Whatever the moment, the assertions must
hold.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.semantics.synthetic import synthetic_schema

from .test_cli import idlc

#: 3 declarations per interface (two records and the interface): about 1000 in all.
INTERFACES = 334
PACKAGE = "pkg"
KILL_POINTS = 4
HAND_WRITTEN = {"NOTES.md": b"# mine\n", "extra/helper.py": b"HELPER = 1\n"}

Tree = dict[str, object]


def tree(folder: Path) -> Tree:
    """Every entry below `folder`: a file's bytes, "folder", or a symlink's target."""
    entries: Tree = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_symlink():
            entries[relative] = ("symlink", os.readlink(path))
        elif path.is_dir():
            entries[relative] = "folder"
        else:
            entries[relative] = path.read_bytes()
    return entries


def differences(actual: Tree, expected: Tree) -> list[str]:
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    changed = sorted(key for key in set(actual) & set(expected) if actual[key] != expected[key])
    return (
        [f"missing {key}" for key in missing[:5]]
        + [f"extra {key}" for key in extra[:5]]
        + [f"different {key}" for key in changed[:5]]
        + [f"({len(missing)} missing, {len(extra)} extra, {len(changed)} different)"]
    )


def add_hand_written(package: Path) -> None:
    for relative, data in HAND_WRITTEN.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_bytes(data)


def generate_command(idl: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "idlc",
        "generate",
        str(idl),
        "--out",
        str(out),
        "--package",
        PACKAGE,
    ]


def first_write(process: subprocess.Popen[bytes], out: Path) -> bool:
    """Wait until the running `generate` leaves its first trace in `out` (a new entry in
    the output folder or in the package folder); False if it ended first."""
    package = out / PACKAGE
    before = set(os.listdir(package))
    while process.poll() is None:
        if os.listdir(out) != [PACKAGE] or set(os.listdir(package)) != before:
            return True
        time.sleep(0.001)
    return False


def imports(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-B", "-c", f"import {PACKAGE}"],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def schemas(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The old and the new schema, the package trees each gives (hand-written files
    included), and how long an uninterrupted switch from old to new takes."""
    base = tmp_path_factory.mktemp("interrupted")
    old_idl = base / "old.idl"
    new_idl = base / "new.idl"
    text = synthetic_schema(INTERFACES)
    old_idl.write_text(text)
    # A field of every interface's inline record changes type: every interface module
    # changes, so a package mixing old and new modules cannot pass for either.
    new_idl.write_text(text.replace("optionalWork:bool;", "optionalWork:string;"))
    old_out = base / "old"
    result = idlc("generate", old_idl, "--out", old_out, "--package", PACKAGE, cwd=base)
    assert result.returncode == 0, result.stderr
    add_hand_written(old_out / PACKAGE)
    new_out = base / "new"
    shutil.copytree(old_out, new_out, symlinks=True)
    started = time.monotonic()
    process = subprocess.Popen(
        generate_command(new_idl, new_out), cwd=base, stdout=subprocess.DEVNULL
    )
    assert first_write(process, new_out)
    writing_started = time.monotonic()
    assert process.wait(timeout=300) == 0
    ended = time.monotonic()
    assert sorted(os.listdir(new_out)) == [PACKAGE]
    old_tree, new_tree = tree(old_out / PACKAGE), tree(new_out / PACKAGE)
    assert {key: new_tree.get(key) for key in HAND_WRITTEN} == HAND_WRITTEN
    assert sum(old_tree[key] != new_tree[key] for key in old_tree) >= INTERFACES
    for out in (old_out, new_out):
        imported = imports(out)
        assert imported.returncode == 0, imported.stderr
    return {
        "base": base,
        "old": old_out,
        "new_idl": new_idl,
        "old_tree": old_tree,
        "new_tree": new_tree,
        "duration": ended - started,
        "writing": ended - writing_started,
    }


@pytest.mark.parametrize("point", range(KILL_POINTS))
def test_a_run_killed_at_any_moment_leaves_the_package_old_or_new(
    point: int, schemas: dict[str, object], tmp_path: Path
) -> None:
    base, old_out = Path(str(schemas["base"])), Path(str(schemas["old"]))
    new_idl = Path(str(schemas["new_idl"]))
    old_tree, new_tree = schemas["old_tree"], schemas["new_tree"]
    assert isinstance(old_tree, dict) and isinstance(new_tree, dict)
    duration, writing = float(str(schemas["duration"])), float(str(schemas["writing"]))
    out = tmp_path / "out"
    shutil.copytree(old_out, out, symlinks=True)
    chance = random.Random(point)  # seeded, so that a failure can be replayed
    process = subprocess.Popen(
        generate_command(new_idl, out),
        cwd=base,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if point == 0:
        moment = f"{duration * chance.random():.2f}s after the start"
        delay = float(moment.split("s")[0])
    else:
        first_write(process, out)
        delay = writing * chance.random()
        moment = f"{delay:.3f}s after its first write (writing took {writing:.3f}s)"
    try:
        process.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        process.kill()  # SIGKILL: no clean-up of any kind runs
    process.wait()

    after = tree(out / PACKAGE)
    assert after in (old_tree, new_tree), (
        f"killed {moment}: neither old nor new; against old: "
        f"{differences(after, old_tree)}; against new: {differences(after, new_tree)}"
    )
    leftovers = sorted(name for name in os.listdir(out) if name != PACKAGE)
    checked = idlc("generate", new_idl, "--out", out, "--package", PACKAGE, "--check", cwd=base)
    assert checked.returncode == (0 if after == new_tree and not leftovers else 1), checked.stderr
    for name in leftovers:
        assert f"leftover: {out / name}" in checked.stderr, checked.stderr

    rerun = idlc("generate", new_idl, "--out", out, "--package", PACKAGE, cwd=base)
    assert rerun.returncode == 0, rerun.stderr
    assert sorted(os.listdir(out)) == [PACKAGE], "the leftovers of the killed run are gone"
    assert tree(out / PACKAGE) == new_tree
