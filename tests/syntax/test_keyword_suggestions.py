"""Did-you-mean for keywords: every one-edit typo of a keyword gets the keyword suggested,
wherever the keyword stands, and names beyond ASCII are said to be the problem."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.source import SourceFile
from idlc.suggest import edit_distance
from idlc.syntax.parser import _table_data, parse
from tests.syntax.support import ROOT, SEEDS, VALID, read

_KEYWORDS = frozenset(_table_data().keywords)

#: Keywords where a type is expected, each in a type it begins (`{}` for the keyword).
_TYPE_USES = {
    "optional": "{}<string>",
    "list": "{}<int32>",
    "map": "{}<string, bool>",
    "record": "{} {{ x : string; }}",
    "enum": '{} {{ "a"; }}',
    "union": "{} {{ string; bool; }}",
    "variant": '{} tag "kind" {{ "a" : unit; }}',
    "open": '{} enum {{ "a"; }}',
    "atom-ref": "{}<Note>",
    "interface-ref": "{}<Shop>",
}
#: Keywords that begin a declaration or member, in one.
_DECLARATION_USES = {
    "type": "{} T = unit;",
    "external": '{} atom Note id "note";',
    "import": "{} interface Other;",
    "interface": '{} Shop id "shop" revision "shop@1" {{}}',
}
_MEMBER_USES = {
    "operation": 'interface Shop id "shop" revision "shop@1" {{\n  {} pay id "shop:pay" : unit -> unit {{call id "shop:pay:call" execution transaction;}}\n}}',
    "queryable": 'interface Shop id "shop" revision "shop@1" {{\n  {} value total id "shop:total" : int64 {{get id "shop:total:get" execution snapshot;}}\n}}',
    "required": 'interface Shop id "shop" revision "shop@1" {{\n  {} operation pay id "shop:pay" : unit -> unit {{call id "shop:pay:call" execution transaction;}}\n}}',
}


def _typos(word: str) -> list[str]:
    """Every spelling one deletion, insertion, substitution or swap from `word`."""
    letters = string.ascii_lowercase
    found = set()
    for i in range(len(word) + 1):
        head, tail = word[:i], word[i:]
        if tail:
            found.add(head + tail[1:])
            if len(tail) > 1:
                found.add(head + tail[1] + tail[0] + tail[2:])
            found.update(head + char + tail[1:] for char in letters)
        found.update(head + char + tail for char in letters)
    return sorted(typo for typo in found if typo and typo not in _KEYWORDS and typo[0].isalpha())


def _diagnostics(text: str) -> Diagnostics:
    diagnostics = Diagnostics()
    assert parse(SourceFile("typo.idl", text), diagnostics) is None, text
    return diagnostics


def _suggested(diagnostics: Diagnostics) -> list[str]:
    return [d.help for d in diagnostics if d.help and "did you mean" in d.help]


def _uses() -> list[tuple[str, str]]:
    cases = [(k, "type T = " + use + ";") for k, use in _TYPE_USES.items()]
    cases += list(_DECLARATION_USES.items()) + list(_MEMBER_USES.items())
    return cases


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_uses()), st.data())
def test_a_one_edit_typo_of_a_keyword_gets_it_suggested(
    case: tuple[str, str], data: st.DataObject
) -> None:
    keyword, template = case
    typo = data.draw(st.sampled_from(_typos(keyword)))
    if keyword.endswith("-ref") and "-" not in typo:
        return  # `atomref` is one word: a name, and the `<` after it finds no keyword
    diagnostics = _diagnostics(template.format(typo))
    suggestions = _suggested(diagnostics)
    assert suggestions, [f"{d.code} {d.message} {d.help}" for d in diagnostics]
    # The suggested keyword is a nearest one (a swap is one typo, two Levenshtein edits).
    named = suggestions[0].split("`")[1]
    assert edit_distance(typo, named, 2) <= 2, (typo, suggestions)


@pytest.mark.parametrize(
    ("text", "help"),
    [
        (
            "type T = record { a : struct { x : string; }; };",
            "did you mean `record` instead of `struct`?",
        ),
        ("type T = record { a : array<string>; };", "did you mean `list` instead of `array`?"),
        ('enum Color { "red"; }', "a type is declared with `type`: `type Color = enum { … };`"),
        (
            "struct Point { x : int32; }",
            "a type is declared with `type`: `type Point = record { … };`",
        ),
        # `open` is followed by the kind, not the name (it used to say `type record = open enum`).
        ("open record Failure { code : int32; }", "`type Name = open record { … };`"),
        ('open variant tag "k" {}', "`type Name = open variant { … };`"),
        ('service Shop id "shop" revision "shop@1" {}', "did you mean `interface`?"),
        ("typedef T = unit;", "did you mean `type`?"),
        ('atom Note id "note";', 'an atom is declared as `external atom Note id "…";`'),
    ],
)
def test_words_of_other_languages_get_the_keyword_of_this_one(text: str, help: str) -> None:
    assert any(help in (d.help or "") for d in _diagnostics(text))


def test_a_repaired_keyword_lets_the_parser_find_the_next_error() -> None:
    diagnostics = _diagnostics("type T = record { a : optinal<string>; b : lsit<bool>; };")
    assert _suggested(diagnostics) == [
        "did you mean `optional` instead of `optinal`?",
        "did you mean `list` instead of `lsit`?",
    ]


@pytest.mark.parametrize(
    ("name", "message", "help"),
    [
        ("Café", "non-ASCII character `é` in the name `Café`", "did you mean `Cafe`?"),
        ("été", "non-ASCII characters in the name `été`", "did you mean `ete`?"),
        ("名前", "non-ASCII characters in the name `名前`", None),
    ],
)
def test_a_name_beyond_ascii_is_one_error_that_says_names_are_ascii(
    name: str, message: str, help: str | None
) -> None:
    diagnostics = _diagnostics(
        f"type {name} = record {{}};\ntype Other = record {{ {name} : string; }};"
    )
    assert [d.message for d in diagnostics] == [message, message]
    for diagnostic in diagnostics:
        assert diagnostic.help is not None and diagnostic.help.startswith("names are ASCII")
        assert help is None or diagnostic.help.endswith(help)


def test_a_long_word_is_not_taken_for_a_misspelt_keyword() -> None:
    """Comparing a megabyte word with keywords (its swaps, its edits) would take minutes."""
    diagnostics = _diagnostics("x" * 1_000_000)
    assert [d.help for d in diagnostics] == [None]


# -- fuzz: misspelt keywords and non-ASCII letters anywhere in real files ----------------

_SOURCES = [read(path.relative_to(ROOT)) for path in [*SEEDS, *sorted(VALID.glob("*.idl"))]]
_WORD_IN_FILE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_SOURCES), st.data())
def test_typos_and_foreign_letters_in_real_files_give_located_errors(
    text: str, data: st.DataObject
) -> None:
    words = list(_WORD_IN_FILE.finditer(text))
    for _ in range(data.draw(st.integers(1, 4))):
        word = data.draw(st.sampled_from(words))
        kind = data.draw(st.sampled_from(["typo", "foreign", "synonym"]))
        if kind == "typo":
            replacement = data.draw(st.sampled_from(_typos(word.group()) or [word.group()]))
        elif kind == "synonym":
            replacement = data.draw(
                st.sampled_from(["struct", "array", "service", "typedef", "enum"])
            )
        else:
            at = data.draw(st.integers(0, len(word.group())))
            letter = data.draw(st.sampled_from(["é", "ß", "名", "Ω", "ı"]))
            replacement = word.group()[:at] + letter + word.group()[at:]
        text = text[: word.start()] + replacement + text[word.end() :]
        words = list(_WORD_IN_FILE.finditer(text))
    diagnostics = Diagnostics()
    tree = parse(SourceFile("fuzz.idl", text), diagnostics)
    for diagnostic in diagnostics:
        if diagnostic.span is not None:
            assert 0 <= diagnostic.span.start <= diagnostic.span.end <= len(text)
    if tree is None:
        assert diagnostics.has_errors
