"""The `idlc` command as users run it: a real process, its output and its exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SEEDS = [
    REPO / "idl" / "quixos" / "agent_directory.idl",
    REPO / "idl" / "quixos" / "agent_request.idl",
]


def idlc(
    *args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **(env or {})}
    environment.pop("NO_COLOR", None) if env is None or "NO_COLOR" not in env else None
    return subprocess.run(
        [sys.executable, "-m", "idlc", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        env=environment,
        timeout=60,
    )


def test_version() -> None:
    result = idlc("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("idlc, version ")


def test_check_seeds_alone_and_together() -> None:
    for files in ([SEEDS[0]], [SEEDS[1]], SEEDS):
        result = idlc("check", *files)
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""


def test_check_reports_located_error_with_suggestion(tmp_path: Path) -> None:
    broken = tmp_path / "broken.idl"
    broken.write_text("type Job = record { submission: AgentSubmision; };\n")
    result = idlc("check", broken, SEEDS[0], cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0] == "error[E0101]: unknown type `AgentSubmision`"
    assert lines[1] == " --> broken.idl:1:33"
    assert "1 | type Job = record { submission: AgentSubmision; };" in result.stderr
    assert "  |                                 ^^^^^^^^^^^^^^" in result.stderr
    assert "help: did you mean `AgentSubmission`?" in result.stderr
    assert "\x1b[" not in result.stderr  # not a terminal: no colour


def test_several_syntax_errors_in_one_run(tmp_path: Path) -> None:
    broken = tmp_path / "broken.idl"
    broken.write_text(
        "type A = record { a: string b: uint32; };\n"
        "type B = list<string;\n"
        'type C = "unterminated\n'
    )
    result = idlc("check", broken, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.count("error[") == 3, result.stderr
    assert "error[E0003]: expected `;`, found `b`" in result.stderr
    assert "error[E0003]: expected `>`, found `;`" in result.stderr
    assert "error[E0005]: unterminated string" in result.stderr


def test_json_error_format(tmp_path: Path) -> None:
    broken = tmp_path / "broken.idl"
    broken.write_text("type A = Missing;\n")
    result = idlc("check", "--error-format", "json", broken, cwd=tmp_path)
    assert result.returncode == 1
    [line] = result.stdout.splitlines()
    diagnostic = json.loads(line)
    assert diagnostic["code"] == "E0101"
    assert diagnostic["severity"] == "error"
    assert diagnostic["span"] == {
        "file": "broken.idl",
        "line": 1,
        "column": 10,
        "endLine": 1,
        "endColumn": 17,
    }


def test_github_error_format(tmp_path: Path) -> None:
    broken = tmp_path / "broken.idl"
    broken.write_text("type A = Missing;\n")
    result = idlc("check", "--error-format", "github", broken, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith(
        "::error file=broken.idl,line=1,col=10,endLine=1,endColumn=17,title=E0101 unknown type::"
    )


def test_warnings_do_not_fail(tmp_path: Path) -> None:
    linted = tmp_path / "linted.idl"
    linted.write_text(
        'interface I id "i" revision "1" {\n'
        '  queryable value v id "i:v" : string {get id "i:v:get" execution snapshot;}\n'
        "}\n"
    )
    result = idlc("check", linted, cwd=tmp_path)
    assert result.returncode == 0
    assert "warning[W0001]" in result.stderr


def test_colour_only_on_a_terminal_and_never_with_no_color(tmp_path: Path) -> None:
    broken = tmp_path / "broken.idl"
    broken.write_text("type A = Missing;\n")
    script = (
        "import pty, os, sys\n"
        "pid, fd = pty.fork()\n"
        "if pid == 0:\n"
        f"    os.execv(sys.executable, [sys.executable, '-m', 'idlc', 'check', {str(broken)!r}])\n"
        "out = b''\n"
        "while True:\n"
        "    try:\n"
        "        chunk = os.read(fd, 4096)\n"
        "    except OSError:\n"
        "        break\n"
        "    if not chunk:\n"
        "        break\n"
        "    out += chunk\n"
        "os.waitpid(pid, 0)\n"
        "sys.stdout.write(repr(out))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    env["PYTHONPATH"] = str(REPO)
    on_tty = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert "\\x1b[" in on_tty.stdout
    env["NO_COLOR"] = "1"
    no_color = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert "error[E0101]" in no_color.stdout
    assert "\\x1b[" not in no_color.stdout


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert idlc("check", "--no-such-option").returncode == 2
    assert idlc("dump", SEEDS[0]).returncode == 2  # --json is required
    assert idlc("generate", SEEDS[0]).returncode == 2  # --out is required with files


def test_missing_file_is_a_diagnostic(tmp_path: Path) -> None:
    result = idlc("check", tmp_path / "nope.idl", cwd=tmp_path)
    assert result.returncode == 1
    assert "error[E0901]" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe\x00binary\x00junk\x80",
        b"type A = " + b"list<" * 5000 + b"string" + b">" * 5000 + b";",
        b"x" * 10_000_000,
        b"interface " * 2000,
    ],
    ids=["binary", "deep-nesting", "10MB-line", "keyword-soup"],
)
def test_hostile_input_gives_diagnostics_not_tracebacks(tmp_path: Path, content: bytes) -> None:
    hostile = tmp_path / "hostile.idl"
    hostile.write_bytes(content)
    result = idlc("check", hostile, cwd=tmp_path)
    assert result.returncode == 1
    assert "error[E" in result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_dump_json_is_the_resolved_model() -> None:
    result = idlc("dump", "--json", *SEEDS)
    assert result.returncode == 0, result.stderr
    model = json.loads(result.stdout)
    assert isinstance(model, dict)
    text = result.stdout
    for name in ("AgentDirectory", "AgentRequest", "AgentSubmission", "AgentObject"):
        assert name in text


def test_fmt_check_diff_and_write(tmp_path: Path) -> None:
    messy = tmp_path / "messy.idl"
    messy.write_text("type   A =record{a:string;};\n")
    before = messy.read_bytes()

    checked = idlc("fmt", "--check", messy, cwd=tmp_path)
    assert checked.returncode == 1
    assert "would reformat messy.idl" in checked.stderr
    assert messy.read_bytes() == before

    diffed = idlc("fmt", "--diff", messy, cwd=tmp_path)
    assert diffed.returncode == 1
    assert diffed.stdout.startswith("--- a/messy.idl\n+++ b/messy.idl\n")
    assert messy.read_bytes() == before

    written = idlc("fmt", messy, cwd=tmp_path)
    assert written.returncode == 0
    assert "reformatted messy.idl" in written.stderr
    assert messy.read_bytes() != before
    assert idlc("fmt", "--check", messy, cwd=tmp_path).returncode == 0
    assert idlc("check", messy, cwd=tmp_path).returncode == 0


def test_fmt_without_files_leaves_packages_with_format_false_as_written(tmp_path: Path) -> None:
    # One package formatted, one kept byte for byte (a folder of it inside the other's folder),
    # and the repository's own configuration, whose seeds are kept: `fmt --check` passes there.
    (tmp_path / "idl" / "kept").mkdir(parents=True)
    messy = "type   A =record{a:string;};\n"
    (tmp_path / "idl" / "mine.idl").write_text(messy)
    (tmp_path / "idl" / "kept" / "theirs.idl").write_text(messy.replace("A", "B"))
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.idlc.packages]]\nname = "mine"\nsources = ["idl"]\nout = "gen"\n'
        '[[tool.idlc.packages]]\nname = "theirs"\nsources = ["idl/kept"]\nout = "gen"\n'
        "format = false\n"
    )
    checked = idlc("fmt", "--check", cwd=tmp_path)
    assert checked.returncode == 1
    assert checked.stderr.splitlines() == ["would reformat idl/mine.idl"]
    assert idlc("fmt", cwd=tmp_path).returncode == 0
    assert (tmp_path / "idl" / "kept" / "theirs.idl").read_text() == messy.replace("A", "B")
    assert (tmp_path / "idl" / "mine.idl").read_text() != messy
    named = idlc("fmt", "--check", tmp_path / "idl" / "kept" / "theirs.idl", cwd=tmp_path)
    assert named.returncode == 1, "a file named on the command line is formatted"
    assert idlc("fmt", "--check").returncode == 0, "the repository's own sources"


def test_format_must_be_true_or_false(tmp_path: Path) -> None:
    (tmp_path / "a.idl").write_text("type A = string;\n")
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.idlc.packages]]\nname = "a"\nsources = ["a.idl"]\nout = "gen"\nformat = "no"\n'
    )
    result = idlc("fmt", "--check", cwd=tmp_path)
    assert result.returncode == 1
    assert "`tool.idlc.packages[0].format` must be true or false, got 'no'" in result.stderr


def test_fmt_leaves_files_with_syntax_errors_alone(tmp_path: Path) -> None:
    broken = tmp_path / "broken.idl"
    broken.write_text("type A = record { a: string b: uint32; };\n")
    before = broken.read_bytes()
    result = idlc("fmt", broken, cwd=tmp_path)
    assert result.returncode == 1
    assert "error[E0003]" in result.stderr
    assert broken.read_bytes() == before


def test_configuration_drives_commands_without_files(tmp_path: Path) -> None:
    (tmp_path / "idl").mkdir()
    for seed in SEEDS:
        (tmp_path / "idl" / seed.name).write_bytes(seed.read_bytes())
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n'
        "[[tool.idlc.packages]]\n"
        'name = "demo_api"\nsources = ["idl"]\nout = "src"\n'
    )
    assert idlc("check", cwd=tmp_path).returncode == 0
    (tmp_path / "idl" / "extra.idl").write_text("type Broken = Nope;\n")
    result = idlc("check", cwd=tmp_path)
    assert result.returncode == 1
    assert "idl/extra.idl:1:15" in result.stderr


@pytest.mark.parametrize(
    "table, message",
    [
        ("[tool.idlc]\npackages = 3\n", "must be a non-empty array of tables"),
        (
            '[[tool.idlc.packages]]\nname = "bad name"\nsources = ["x"]\nout = "o"\n',
            "must be a Python package name",
        ),
        (
            '[[tool.idlc.packages]]\nname = "ok"\nsources = ["x"]\nout = ""\n',
            "`tool.idlc.packages[0].out` must be a folder path",
        ),
        (
            '[[tool.idlc.packages]]\nname = "ok"\nsources = ["x"]\nout = 3\n',
            "`tool.idlc.packages[0].out` must be a folder path, got 3",
        ),
        (
            '[[tool.idlc.packages]]\nname = "ok"\nsources = ["x"]\nout = "o"\ncolour = 1\n',
            "unknown key `tool.idlc.packages[0].colour`",
        ),
        ("[tool.idlc\n", "cannot be read"),
        (
            '[[tool.idlc.packages]]\nname = "p"\nsources = ["x"]\nout = "o"\n'
            '[[tool.idlc.packages]]\nname = "p"\nsources = ["y"]\nout = "o/../o"\n',
            "package `p` is configured twice",
        ),
    ],
)
def test_bad_configuration_is_a_diagnostic(tmp_path: Path, table: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n' + table)
    result = idlc("check", cwd=tmp_path)
    assert result.returncode == 1
    assert "error[E0902]" in result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_package_without_out_is_the_build_hooks_and_generate_says_so(tmp_path: Path) -> None:
    (tmp_path / "idl").mkdir()
    for seed in SEEDS:
        (tmp_path / "idl" / seed.name).write_bytes(seed.read_bytes())
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n[tool.hatch.build.hooks.idlc]\n\n'
        '[[tool.idlc.packages]]\nname = "hooked"\nsources = ["idl"]\n\n'
        '[[tool.idlc.packages]]\nname = "kept"\nsources = ["idl"]\nout = "src"\n'
    )
    assert idlc("check", cwd=tmp_path).returncode == 0
    written = idlc("generate", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert "package `hooked` has no `out`" in written.stderr
    assert "nothing to write" in written.stderr
    assert (tmp_path / "src" / "kept" / "__init__.py").is_file()
    assert not list(tmp_path.rglob("hooked"))
    checked = idlc("generate", "--check", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert "package `hooked` has no `out`" in checked.stderr
    assert "nothing committed to compare" in checked.stderr
    assert "missing" not in checked.stderr


def test_breaking_without_new_still_needs_the_configuration(tmp_path: Path) -> None:
    """Only `check`, `fmt` and `generate --out` find IDL files themselves (tests/cli/test_discovery.py)."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    result = idlc("breaking", "--against", "git:main", cwd=tmp_path)
    assert result.returncode == 1
    assert "error[E0902]" in result.stderr and "has no `[tool.idlc]` table" in result.stderr


def test_allowed_warnings_are_not_reported(tmp_path: Path) -> None:
    linted = tmp_path / "linted.idl"
    linted.write_text(
        'interface I id "i" revision "1" {\n'
        '  queryable value v id "i:v" : string {get id "fixed/method" execution snapshot;}\n'
        "}\n"
    )
    both = idlc("check", linted, cwd=tmp_path)
    assert "warning[W0001]" in both.stderr and "warning[W0002]" in both.stderr
    one = idlc("check", "-A", "W0002", linted, cwd=tmp_path)
    assert "warning[W0001]" in one.stderr and "W0002" not in one.stderr
    assert idlc("check", "-A", "W0001", "--allow", "W0002", linted, cwd=tmp_path).stderr == ""

    (tmp_path / "pyproject.toml").write_text(
        '[tool.idlc]\nallow = ["W0001"]\n\n[[tool.idlc.packages]]\n'
        'name = "linted"\nsources = ["linted.idl"]\nout = "out"\nallow = ["W0002"]\n'
    )
    configured = idlc("check", cwd=tmp_path)
    assert (configured.returncode, configured.stderr) == (0, "")


def test_only_known_warnings_can_be_allowed(tmp_path: Path) -> None:
    refused = idlc("check", "-A", "E0101", SEEDS[0])
    assert refused.returncode == 2
    assert "only warnings can be allowed" in refused.stderr
    assert idlc("check", "-A", "W9999", SEEDS[0]).returncode == 2
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.idlc.packages]]\nname = "x"\nsources = ["x.idl"]\nout = "o"\nallow = ["E0101"]\n'
    )
    configured = idlc("check", cwd=tmp_path)
    assert configured.returncode == 1
    assert (
        "error[E0902]" in configured.stderr and "only warnings can be allowed" in configured.stderr
    )


def test_a_folder_without_idl_files_is_an_error_not_an_empty_success(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for command in (
        ("check",),
        ("fmt", "--check"),
        ("generate", "--out", "out", "--package", "pkg"),
    ):
        result = idlc(*command, "empty", cwd=tmp_path)
        assert result.returncode == 1, command
        assert "error[E0901]" in result.stderr and "no `.idl` file in this folder" in result.stderr
    assert not (tmp_path / "out").exists()


def test_fmt_through_a_symlink_formats_the_target_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.idl"
    real.write_text("type   A =string;\n")
    link = tmp_path / "link.idl"
    link.symlink_to(real)
    assert idlc("fmt", "link.idl", cwd=tmp_path).returncode == 0
    assert link.is_symlink()
    assert real.read_text() == "type A = string;\n"


@pytest.mark.parametrize("package", ["../escaped", "a.b", "class", "9lives"])
def test_package_names_must_be_importable_identifiers(tmp_path: Path, package: str) -> None:
    result = idlc(
        "generate", SEEDS[0], "--out", tmp_path / "out", "--package", package, cwd=tmp_path
    )
    assert result.returncode == 2
    assert "--package" in result.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "escaped").exists()


def test_a_tool_key_that_is_not_a_table_is_a_diagnostic(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("tool = 1\n")
    result = idlc("check", cwd=tmp_path)
    assert result.returncode == 1
    assert "error[E0902]" in result.stderr and "`tool` must be a table" in result.stderr


def test_one_package_name_in_two_out_folders(tmp_path: Path) -> None:
    """As `idlc_acp.unstable` and `idlc_acp.v2.unstable`: one name, two folders."""
    (tmp_path / "a.idl").write_text("type A = string;\n")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n'
        '[[tool.idlc.packages]]\nname = "p"\nsources = ["a.idl"]\nout = "one"\n\n'
        '[[tool.idlc.packages]]\nname = "p"\nsources = ["a.idl"]\nout = "one/p/two"\n'
    )
    written = idlc("generate", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "one" / "p" / "__init__.py").is_file()
    assert (tmp_path / "one" / "p" / "two" / "p" / "__init__.py").is_file()
    again = idlc("generate", "--check", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
