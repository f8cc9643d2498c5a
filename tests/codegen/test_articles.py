"""Generated prose says "a `Note`" and "an `Item`": the article fits how the name is read."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from idlc.codegen import generate
from idlc.codegen.articles import indefinite_article
from idlc.pipeline import compile_files


@pytest.mark.parametrize(
    ("name", "article"),
    [
        ("Note", "a"),
        ("SessionObject", "a"),
        ("Item", "an"),
        ("AgentObject", "an"),
        ("EventObject", "an"),
        ("OrderObject", "an"),
        ("UpdateObject", "an"),
        ("UnknownObject", "an"),
        ("UserObject", "a"),
        ("UnicodeObject", "a"),
        ("UnitObject", "a"),
        ("EuroAccount", "a"),
        ("OneShot", "a"),
        ("HourGlass", "an"),
        ("HostObject", "a"),
        ("_item", "an"),
        ("__Note", "a"),
        ("_", "a"),
    ],
)
def test_examples(name: str, article: str) -> None:
    assert indefinite_article(name) == article


_NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)


@given(_NAME)
def test_case_and_leading_underscores_do_not_matter(name: str) -> None:
    article = indefinite_article(name)
    assert article in ("a", "an")
    assert indefinite_article(name.upper()) == article == indefinite_article("_" + name.lower())


@given(_NAME)
def test_a_consonant_letter_other_than_h_takes_a(name: str) -> None:
    first = name.lstrip("_")[:1].lower()
    if first and first not in "aeiouh":
        assert indefinite_article(name) == "a"


def test_the_generated_docstrings_use_it(tmp_path: Path) -> None:
    source = tmp_path / "notes.idl"
    source.write_text(
        'external atom Note id "atom:note";\nexternal atom Item id "atom:item";\n'
        'interface Notes id "notes" revision "notes@1" {\n'
        '  queryable relation notes id "notes:notes" : many-unique atom Note '
        '{ resolve id "notes:notes:resolve" execution snapshot; }\n'
        '  queryable relation items id "notes:items" : many-unique atom Item '
        '{ resolve id "notes:items:resolve" execution snapshot; }\n'
        "}\n"
    )
    compilation = compile_files([source])
    assert compilation.model is not None, list(compilation.diagnostics)
    refs = generate(compilation.model, "notes", source_names=["notes.idl"]).files["_refs.py"]
    assert "A reference to a `Note` (atom `atom:note`)." in refs
    assert "A reference to an `Item` (atom `atom:item`)." in refs
    assert "an `Note`" not in refs
