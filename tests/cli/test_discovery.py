"""Commands given no files in a project that does not configure idlc: every `*.idl` file under
the working folder is one compilation, outside hidden folders, environments and build output."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.discovery import discover

from .test_cli import idlc

#: Two files in different folders: `api/clock.idl` uses a type of `types/time.idl`, so they
#: only check together, as one compilation.
TIME = "/// Seconds since the epoch.\ntype Time = uint64;\n"
CLOCK = """\
interface Clock id "clock" revision "clock@1" {
  queryable value now id "clock:now" : Time { get id "clock:now:get" execution snapshot; }
}
"""
BROKEN = "type Broken = Nope;\n"
MESSY = "type   Messy =string;\n"


def project(root: Path) -> Path:
    """A project without configuration, with broken IDL where discovery must not look."""
    (root / "types").mkdir(parents=True)
    (root / "types" / "time.idl").write_text(TIME)
    (root / "api").mkdir()
    (root / "api" / "clock.idl").write_text(CLOCK)
    skipped = {
        ".venv/lib/python3.11/site-packages/dep/dep.idl": "pyvenv.cfg",  # a virtual environment
        "env/dep.idl": "pyvenv.cfg",  # one by any name
        ".hidden/dep.idl": None,
        "node_modules/pkg/dep.idl": None,
        "api/__pycache__/dep.idl": None,
        "build/lib/dep.idl": None,
        "dist/dep.idl": None,
        "demo.egg-info/dep.idl": None,
    }
    for name, marker in skipped.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(BROKEN + MESSY)
        if marker is not None:
            (root / name.split("/")[0] / marker).write_text("home = /usr/bin\n")
    return root


def test_check_without_files_or_configuration_checks_every_idl_file_as_one_compilation(
    tmp_path: Path,
) -> None:
    root = project(tmp_path / "repo")
    clean = idlc("check", cwd=root)
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "")

    (root / "api" / "more.idl").write_text("type Later = Tim;\n")
    broken = idlc("check", cwd=root)
    assert broken.returncode == 1
    assert "error[E0101]: unknown type `Tim`" in broken.stderr
    assert "--> api/more.idl:1:14" in broken.stderr
    assert "help: did you mean `Time`?" in broken.stderr
    assert "Broken" not in broken.stderr, "a skipped folder was checked"


def test_a_pyproject_without_a_tool_idlc_table_is_no_configuration(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "1"\n')
    (root / "api" / "more.idl").write_text(BROKEN)
    result = idlc("check", cwd=root)
    assert result.returncode == 1
    assert "--> api/more.idl:1:15" in result.stderr
    assert "E0902" not in result.stderr


def test_fmt_without_files_or_configuration_formats_every_idl_file(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    (root / "api" / "messy.idl").write_text(MESSY)
    untouched = {path: path.read_bytes() for path in root.rglob("dep.idl")}

    checked = idlc("fmt", "--check", cwd=root)
    assert checked.returncode == 1
    assert checked.stderr == "would reformat api/messy.idl\n"

    written = idlc("fmt", cwd=root)
    assert (written.returncode, written.stderr) == (0, "reformatted api/messy.idl\n")
    assert (root / "api" / "messy.idl").read_text() == "type Messy = string;\n"
    assert {path: path.read_bytes() for path in root.rglob("dep.idl")} == untouched
    assert idlc("fmt", "--check", cwd=root).returncode == 0


def test_no_idl_file_at_all_is_one_line_and_success(tmp_path: Path) -> None:
    """A hook or CI step in a repository without IDL has nothing to check: it passes, and
    says why in one line."""
    (tmp_path / "README.md").write_text("no IDL here\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / ".venv" / "dep.idl").write_text(BROKEN)
    for command in (("check",), ("fmt",), ("fmt", "--check"), ("generate", "--out", "gen")):
        result = idlc(*command, cwd=tmp_path)
        assert result.returncode == 0, command
        assert result.stdout == ""
        [line] = result.stderr.splitlines()
        assert line.startswith("idlc: no .idl file under the current folder"), line
        assert "nothing to do" in line
    assert not (tmp_path / "gen").exists()


def test_generate_without_configuration_needs_out_and_says_so_in_one_line(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    for command in (("generate",), ("generate", "--check")):
        result = idlc(*command, cwd=root)
        assert result.returncode == 2, command
        [line] = result.stderr.splitlines()
        assert line.startswith("Error: `idlc generate` needs `--out DIR`"), line
        assert "[tool.idlc]" in line

    generated = idlc("generate", "--out", "gen", "--package", "clock_api", cwd=root)
    assert generated.returncode == 0, generated.stderr
    assert (root / "gen" / "clock_api" / "clock.py").is_file()
    assert (
        idlc("generate", "--check", "--out", "gen", "--package", "clock_api", cwd=root).returncode
        == 0
    )


def test_a_configured_project_is_not_searched(tmp_path: Path) -> None:
    root = project(tmp_path / "repo")
    (root / "pyproject.toml").write_text(
        '[[tool.idlc.packages]]\nname = "time_api"\nsources = ["types"]\nout = "gen"\n'
    )
    (root / "api" / "more.idl").write_text(BROKEN)  # not among the configured sources
    assert idlc("check", cwd=root).returncode == 0
    refused = idlc("generate", "--out", "elsewhere", cwd=root)
    assert refused.returncode == 2 and "go with named files" in refused.stderr


# ---------------------------------------------------------------- discover() itself

#: Folder names a tree is built from: kept ones, and ones discovery must skip.
KEPT = ("idl", "api", "v1", "venv_notes", "builder")
SKIPPED = (
    ".git",
    ".tox",
    "node_modules",
    "__pycache__",
    "build",
    "dist",
    "site-packages",
    "x.egg-info",
)
#: Folders made into virtual environments (a `pyvenv.cfg` inside) whatever their name.
ENVIRONMENT = "env"

_paths = st.lists(
    st.tuples(
        st.lists(st.sampled_from((*KEPT, *SKIPPED, ENVIRONMENT)), max_size=4),
        st.sampled_from(("a.idl", "b.idl", "notes.txt", "c.idl.bak")),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(_paths)
def test_discover_finds_exactly_the_idl_files_outside_skipped_folders(
    paths: list[tuple[list[str], str]],
) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary) / ".root-may-be-hidden"
        root.mkdir()
        expected: set[Path] = set()
        for folders, name in paths:
            folder = root.joinpath(*folders)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(TIME)
            if name.endswith(".idl") and not any(
                part in SKIPPED or part == ENVIRONMENT for part in folders
            ):
                expected.add(folder / name)
        for environment in root.rglob(ENVIRONMENT):
            (environment / "pyvenv.cfg").write_text("home = /usr/bin\n")
        diagnostics = Diagnostics()
        found = discover(root, diagnostics)
        assert not diagnostics.items
        assert list(found) == sorted(found), "in a stable order"
        assert len(set(found)) == len(found), "each file once"
        assert set(found) == expected


def test_discover_does_not_follow_links_to_folders(tmp_path: Path) -> None:
    (tmp_path / "idl").mkdir()
    (tmp_path / "idl" / "a.idl").write_text(TIME)
    (tmp_path / "idl" / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "linked.idl").symlink_to(tmp_path / "idl" / "a.idl")
    diagnostics = Diagnostics()
    assert discover(tmp_path, diagnostics) == (tmp_path / "idl" / "a.idl", tmp_path / "linked.idl")
    assert not diagnostics.items


def test_a_folder_that_cannot_be_searched_is_reported_not_left_out(tmp_path: Path) -> None:
    # A folder that vanished is the refusal a test running as root can produce; an
    # unreadable one goes through the same `onerror`.
    diagnostics = Diagnostics()
    assert discover(tmp_path / "gone", diagnostics) == ()
    [diagnostic] = diagnostics.items
    assert diagnostic.code.id == "E0010"
    assert "cannot be searched for IDL files" in diagnostic.message


def test_the_skipped_folders_are_documented() -> None:
    from idlc.discovery import SKIPPED_FOLDER_NAMES

    text = (Path(__file__).resolve().parents[2] / "docs" / "commands.md").read_text(
        encoding="utf-8"
    )
    section = text.split("## Without files", 1)[1].split("\n## ", 1)[0]
    for name in (*SKIPPED_FOLDER_NAMES, "*.egg-info", "pyvenv.cfg", "conda-meta"):
        assert f"`{name}`" in section, name
