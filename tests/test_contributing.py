"""docs/contributing.md stays true: the files its table names exist, those it says mypy finds
do dispatch exhaustively, its count is the table's, and every type node of the syntax has
its conversion into the model."""

from __future__ import annotations

import re
import typing

from idlc.semantics.types import _CONVERTERS
from idlc.syntax import ast
from tests.conftest import REPO

PAGE = REPO / "docs" / "contributing.md"
_ROW = re.compile(r"^\| `([^`]+)` \| (.+) \| (.+) \|$", re.MULTILINE)


def _rows() -> list[tuple[str, str]]:
    section = PAGE.read_text(encoding="utf-8").split("## Adding a type constructor", 1)[1]
    section = section.split("\n## ", 1)[0]
    return [(path, found) for path, _, found in _ROW.findall(section)]


def test_every_file_named_exists_and_the_count_is_right() -> None:
    rows = _rows()
    assert rows, "the table of files is gone"
    for path, _ in rows:
        assert (REPO / path).is_file(), path
    text = PAGE.read_text(encoding="utf-8")
    assert f"**{len(rows)} source files**" in text  # the grammar counts as one
    found_by_mypy = [path for path, found in rows if found.strip() == "mypy"]
    words = {
        7: "Seven",
        8: "Eight",
        9: "Nine",
        10: "Ten",
        11: "Eleven",
        12: "Twelve",
        13: "Thirteen",
        14: "Fourteen",
    }
    assert f"{words.get(len(found_by_mypy), len(found_by_mypy))} of the" in text


def test_the_files_said_to_be_found_by_mypy_match_exhaustively() -> None:
    for path, found in _rows():
        if found.strip() == "mypy":
            assert "assert_never(" in (REPO / path).read_text(encoding="utf-8"), path


# A `case` naming the class of a union type, in the model (`m.Union_`, `model.Union_`) or in
# the tree (`ast.UnionType`): a match over one of the two type unions.
_TYPE_UNION_CASE = re.compile(
    r"^\s*case .*\b(?:\w+\.Union_|ast\.UnionType|UnionType)\(", re.MULTILINE
)


def test_every_exhaustive_match_over_a_type_union_has_its_row() -> None:
    listed = {path for path, _ in _rows()}
    dispatching = {
        str(path.relative_to(REPO))
        for path in (REPO / "idlc").rglob("*.py")
        if "assert_never(" in (text := path.read_text(encoding="utf-8"))
        and _TYPE_UNION_CASE.search(text)
    }
    assert dispatching, "the pattern no longer finds the matches"
    assert dispatching <= listed, sorted(dispatching - listed)


def test_every_syntax_type_node_is_converted() -> None:
    assert set(typing.get_args(ast.TypeExpr)) == set(_CONVERTERS)
