"""`idlc generate --target typescript` and `target` in [tool.idlc.packages]: the package
written, checked (`--check`) and refused as a Python one is (idlc/output)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .support import SEEDS


def idlc(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "idlc", *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_generate_and_check_a_typescript_package(tmp_path: Path) -> None:
    files = [str(path) for path in SEEDS]
    command = [
        *files,
        "--target",
        "typescript",
        "--out",
        str(tmp_path),
        "--package",
        "quixos-agent",
    ]
    done = idlc("generate", *command, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    package = tmp_path / "quixos-agent"
    assert sorted(path.name for path in package.iterdir()) == [
        ".idlc-manifest",
        "_refs.ts",
        "_types.ts",
        "agent_directory.ts",
        "agent_request.ts",
        "index.ts",
        "package.json",
    ]
    assert idlc("generate", *command, "--check", cwd=tmp_path).returncode == 0
    (package / "_refs.ts").write_text("// edited\n", encoding="utf-8")
    stale = idlc("generate", *command, "--check", cwd=tmp_path)
    assert stale.returncode == 1
    assert "--target typescript" in stale.stderr.splitlines()[-1]


def test_a_typescript_package_name_follows_npm(tmp_path: Path) -> None:
    done = idlc(
        "generate", str(SEEDS[0]), "--target", "typescript", "--out", str(tmp_path),
        "--package", "Quixos", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert "'--package'" in done.stderr and "lower-case" in done.stderr


def test_config_generates_both_targets(tmp_path: Path) -> None:
    (tmp_path / "idl").mkdir()
    for seed in SEEDS:
        (tmp_path / "idl" / seed.name).write_text(seed.read_text(encoding="utf-8"))
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        "[tool.idlc]\n[[tool.idlc.packages]]\n"
        'name = "quixos_agent"\nsources = ["idl"]\nout = "py"\n'
        'target = ["python", "typescript"]\ntypescript-out = "ts"\n',
        encoding="utf-8",
    )
    done = idlc("generate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "py" / "quixos_agent" / "__init__.py").is_file()
    assert (tmp_path / "ts" / "quixos_agent" / "index.ts").is_file()
    assert idlc("generate", "--check", cwd=tmp_path).returncode == 0
    pyproject.write_text(
        pyproject.read_text().replace('typescript-out = "ts"\n', ""), encoding="utf-8"
    )
    clash = idlc("generate", cwd=tmp_path)
    assert clash.returncode != 0 and "typescript-out" in clash.stderr


def test_the_build_hook_generates_the_python_packages_only(tmp_path: Path) -> None:
    from idlc.build.hatch import generate_packages

    (tmp_path / "idl").mkdir()
    for seed in SEEDS:
        (tmp_path / "idl" / seed.name).write_text(seed.read_text(encoding="utf-8"))
    (tmp_path / "pyproject.toml").write_text(
        "[tool.idlc]\n"
        '[[tool.idlc.packages]]\nname = "both"\nsources = ["idl"]\n'
        'target = ["python", "typescript"]\n'
        '[[tool.idlc.packages]]\nname = "web"\nsources = ["idl"]\ntarget = ["typescript"]\n',
        encoding="utf-8",
    )
    out = tmp_path / "wheel"
    assert generate_packages(tmp_path, out) == ["both"]
    assert sorted(path.name for path in out.iterdir()) == ["both"]
    assert (out / "both" / "__init__.py").is_file()
