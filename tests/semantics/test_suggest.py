"""Did-you-mean from an index: the same answers as comparing with every name, at a cost
that grows linearly with the number of unknown names and declared ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc import suggest
from idlc.pipeline import compile_files
from idlc.suggest import NameIndex, closest, edit_distance

_NAMES = st.text(alphabet="abcAB_1", min_size=1, max_size=9)


@settings(max_examples=300, deadline=None)
@given(st.lists(_NAMES, max_size=30), st.lists(_NAMES, min_size=1, max_size=5))
def test_the_index_answers_like_comparing_with_every_name(
    names: list[str], queries: list[str]
) -> None:
    index = NameIndex(names)
    for query in queries:
        if query in names:
            continue  # only unknown names are looked up
        assert index.closest(query) == closest(query, names)


@settings(max_examples=300, deadline=None)
@given(st.lists(_NAMES, max_size=30), _NAMES)
def test_past_its_budget_the_index_still_finds_every_one_edit_typo(
    names: list[str], query: str
) -> None:
    if query in names:
        return
    index = NameIndex(names)
    index.budget = 0  # as if many unknown names had used it up
    expected = closest(query, names)
    found = index.closest(query)
    if expected is not None and edit_distance(query.lower(), expected.lower(), 1) <= 1:
        assert found == expected
    if found is not None:  # never a worse suggestion than the limit allows
        assert edit_distance(query.lower(), found.lower(), 9) <= max(1, len(query) // 3)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abc_1", max_size=10), st.text(alphabet="abc_1", max_size=10))
def test_bit_parallel_distance_is_levenshtein(a: str, b: str) -> None:
    assert suggest.bit_parallel_distance(a)(b) == edit_distance(a, b, 20)


def test_past_its_budget_the_index_finds_swapped_letters() -> None:
    index = NameIndex(["Record", "Other"])
    index.budget = 0
    assert index.closest("Recrod") == "Record"


def test_only_the_first_unknown_names_get_suggestions() -> None:
    index = NameIndex(["Record"])
    answers = [index.closest("Recrd") for _ in range(suggest.MAX_SUGGESTED + 5)]
    assert answers[: suggest.MAX_SUGGESTED] == ["Record"] * suggest.MAX_SUGGESTED
    assert answers[suggest.MAX_SUGGESTED :] == [None] * 5


def _comparisons(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int) -> int:
    """How many name comparisons compiling n unknown names against n declared ones makes."""
    count = 0
    plain = suggest.edit_distance

    def counted_edit_distance(a: str, b: str, limit: int) -> int:
        nonlocal count
        count += 1
        return plain(a, b, limit)

    monkeypatch.setattr(suggest, "edit_distance", counted_edit_distance)
    original = getattr(suggest, "bit_parallel_distance", None)
    if original is not None:

        def counted_bit_parallel(a: str):  # type: ignore[no-untyped-def]
            distance = original(a)

            def counted(b: str) -> int:
                nonlocal count
                count += 1
                return distance(b)

            return counted

        monkeypatch.setattr(suggest, "bit_parallel_distance", counted_bit_parallel)
    path = tmp_path / f"unknown_{n}.idl"
    path.write_text(
        "".join(f"type Record{i} = record {{ next : optional<Recrod{i}>; }};\n" for i in range(n))
    )
    compilation = compile_files([path])
    assert len(compilation.diagnostics) == n
    assert compilation.diagnostics.items[0].help == "did you mean `Record0`?"
    monkeypatch.undo()
    return count


def test_comparisons_grow_linearly_with_unknown_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = _comparisons(tmp_path, monkeypatch, 500)
    large = _comparisons(tmp_path, monkeypatch, 2000)
    # Four times the names and errors: at most four times the comparisons (the product,
    # the old way, was sixteen times).
    assert large <= 4 * small, (small, large)


def test_long_names_are_not_compared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two names of 100,000 characters would cost 10^10 steps to compare: only a match in
    case is looked for."""
    long = "a" * 100_000
    index = NameIndex([long + "b", long.upper() + "C"])

    def refuse(a: str) -> object:
        raise AssertionError("compared a long name")

    monkeypatch.setattr(suggest, "bit_parallel_distance", refuse)
    assert index.closest(long + "c") == long.upper() + "C"
    assert index.closest(long + "d") is None


@pytest.mark.parametrize(
    ("word", "meant"),
    [
        ("int", "int64"),
        ("str", "string"),
        ("double", "float64"),
        ("boolean", "bool"),
        ("Void", "unit"),
    ],
)
def test_other_languages_words_for_built_in_types_get_the_type(word: str, meant: str) -> None:
    index = NameIndex(["string", "bool", "unit", "float64", "int8", "int64", "Intake"])
    assert index.closest(word) == meant


def test_a_synonym_is_only_suggested_when_it_is_a_candidate() -> None:
    assert NameIndex(["Interval", "inth"]).closest("int") == "inth"
