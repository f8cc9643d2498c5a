"""Generated files do not churn: they depend on the IDL's meaning, not on its comments, its
layout, or the folder `idlc generate` ran in (docs/python-mapping.md, "The package")."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.codegen import generate
from idlc.pipeline import compile_files

from .test_cli import REPO, idlc

FEATURES = REPO / "tests" / "codegen" / "corpus" / "features.idl"

PYPROJECT = """\
[tool.idlc]
[[tool.idlc.packages]]
name = "api"
sources = ["idl/api.idl"]
out = "gen"
"""


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "idl").mkdir(parents=True)
    (project / "sub").mkdir()
    shutil.copy(FEATURES, project / "idl" / "api.idl")
    (project / "pyproject.toml").write_text(PYPROJECT)
    return project


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_the_same_bytes_whatever_folder_generate_runs_in_and_no_absolute_path(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    assert idlc("generate", cwd=project).returncode == 0
    configured = _files(project / "gen" / "api")
    assert idlc("generate", "--check", cwd=project / "sub").returncode == 0
    # Named files, absolute, from inside the project: the headers name them relative to it.
    named = idlc(
        "generate",
        project / "idl" / "api.idl",
        "--out",
        tmp_path / "named",
        "--package",
        "api",
        cwd=project / "sub",
    )
    assert named.returncode == 0, named.stderr
    assert _files(tmp_path / "named" / "api") == configured
    init = configured["__init__.py"].decode()
    assert "#   idl/api.idl\n" in init
    assert all(str(tmp_path).encode() not in data for data in configured.values())
    assert all(b"sha256" not in data for data in configured.values())


def test_check_stays_green_after_a_comment_or_layout_edit_and_fails_after_a_change_of_meaning(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    source = project / "idl" / "api.idl"
    assert idlc("generate", cwd=project).returncode == 0
    original = source.read_text()
    source.write_text(
        "// A licence header.\n/* and a\n   block comment */\n\n"
        + original.replace("label: string;", "label  :  string ;  // the label").replace(
            "\n\n", "\n\n\n"
        )
    )
    checked = idlc("generate", "--check", cwd=project)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    source.write_text(original.replace("label: string;", "label: uint32;"))
    checked = idlc("generate", "--check", cwd=project)
    assert checked.returncode == 1
    assert "stale: gen/api/_types.py" in checked.stderr

    # A doc comment is meaning: it becomes the docstring.
    source.write_text(original.replace("/// The node's label.", "/// The node's name."))
    checked = idlc("generate", "--check", cwd=project)
    assert checked.returncode == 1
    assert (
        "stale: gen/api/_types.py" in checked.stderr
        and '+    """The node\'s name."""' in checked.stdout
    )


def _generated(text: str, folder: Path) -> dict[str, str]:
    source = folder / "api.idl"
    source.write_text(text)
    compilation = compile_files([source])
    assert compilation.model is not None, list(compilation.diagnostics)
    return generate(compilation.model, "api", source_names=["api.idl"]).files


_COMMENT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12).map(
    lambda text: "// " + text
)
_EDIT = st.tuples(
    st.sampled_from(["", " ", "\t", "    "]),  # more indentation
    st.sampled_from(["", " ", "  "]) | _COMMENT,  # at the end of the line
    st.sampled_from(["", "\n", "\n\n"])
    | _COMMENT.map(lambda comment: comment + "\n"),  # lines before
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=st.lists(_EDIT, min_size=1, max_size=200))
def test_comments_and_white_space_never_change_a_generated_byte(
    tmp_path: Path, edits: list[tuple[str, str, str]]
) -> None:
    original = FEATURES.read_text()
    expected = _generated(original, tmp_path)
    lines = original.splitlines()
    edited = []
    for index, line in enumerate(lines):
        indent, end, before = edits[index % len(edits)]
        if line.lstrip().startswith("///") or (
            index and lines[index - 1].lstrip().startswith("///")
        ):
            edited.append(line)  # a doc comment, or what it documents: must stay together
            continue
        edited.append(before + indent + line + end)
    assert _generated("\n".join(edited) + "\n", tmp_path) == expected
