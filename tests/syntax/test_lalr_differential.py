"""idlc's LALR driver (idlc/syntax/lalr.py) against Lark's own LALR parser.

The driver runs Lark's tables with a lexer and a parse loop of its own, and it reads Lark
internals to do so; these tests keep it honest. Texts are derived at random from the
grammar's own rules (so most are valid, and every construct is reached), then some are
mutated (a token dropped, doubled, swapped or replaced, a stray character put in). Both
parsers must build the same tree — rule names, tokens' terminals and texts, the `None` of an
absent optional part — or both must refuse the text.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.resources import data_dir
from idlc.source import SourceFile
from idlc.syntax import lalr, parser

lark = pytest.importorskip("lark")

Shape = Any  # (rule, [children]) | (terminal, text) | None


@functools.cache
def _lark() -> Any:
    grammar = (data_dir("grammar") / "idl.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="lalr", lexer="contextual", maybe_placeholders=True)


@functools.cache
def _tables() -> lalr.Tables:
    data = parser._table_data()
    names = {plan.method for plan in data.rules if plan.method is not None}

    def method(name: str) -> Any:
        return lambda self, children: (name, [_shape(child) for child in children])

    builder = type("TreeBuilder", (), {name: method(name) for name in names})
    return lalr.bind(data, builder)


def _shape(value: Any) -> Shape:
    if value is None:
        return None
    if isinstance(value, lalr.Tok):
        return (value.type, value.value)
    if isinstance(value, lark.Token):
        return (str(value.type), str(value))
    if isinstance(value, lark.Tree):
        return (str(value.data), [_shape(child) for child in value.children])
    if isinstance(value, tuple):  # already shaped by the tree builder
        return value
    raise AssertionError(f"unexpected value {value!r}")


class _Refuse:
    """No recovery: the first unexpected character or token ends the parse."""

    def characters(self, parser: lalr.Parser, position: int) -> int | None:
        return None

    def token(self, parser: lalr.Parser, token: lalr.Tok) -> bool:
        return False


def _ours(text: str) -> Shape | None:
    run = lalr.Parser(_tables(), text, lambda text, start, end: None, _Refuse())
    try:
        result = run.parse()
    except lalr.SyntaxStop:
        return None
    return _shape(result)


def _theirs(text: str) -> Shape | None:
    try:
        tree = _lark().parse(text)
    except lark.exceptions.UnexpectedInput:
        return None
    return _shape(tree)


def _same_answer(text: str) -> bool:
    """Both parsers give the same tree, or both refuse; or the text shows the one known
    difference (`test_a_keyword_glued_to_a_word_is_one_word`): Lark accepts a keyword glued
    to the word after it, which idlc refuses."""
    ours, theirs = _ours(text), _theirs(text)
    if ours == theirs:
        return True
    return ours is None and theirs is not None and _glued_keyword().search(text) is not None


@functools.cache
def _glued_keyword() -> re.Pattern[str]:
    words = sorted(
        (spelling for spelling in parser._table_data().keywords if spelling[:1].isalpha()),
        key=len,
        reverse=True,
    )
    return re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, words)) + r")(?=[\w])")


# -- texts derived from the grammar ----------------------------------------------------


@functools.cache
def _grammar() -> tuple[dict[str, list[list[tuple[bool, str]]]], dict[str, str], dict[str, int]]:
    """Rules by name (alternatives of (is terminal, name)), each keyword's and punctuation
    terminal's spelling, and each rule's least derivation height."""
    rules: dict[str, list[list[tuple[bool, str]]]] = {}
    for rule in _lark().rules:
        rules.setdefault(str(rule.origin.name), []).append(
            [(bool(symbol.is_term), str(symbol.name)) for symbol in rule.expansion]
        )
    data = parser._table_data()
    spellings = {terminal: text for text, terminal in {**data.keywords, **data.punctuation}.items()}
    height: dict[str, int] = {}
    changed = True
    while changed:
        changed = False
        for name, alternatives in rules.items():
            for expansion in alternatives:
                inner = [height.get(symbol) for is_term, symbol in expansion if not is_term]
                if None in inner:
                    continue
                value = 1 + max([h for h in inner if h is not None], default=0)
                if value < height.get(name, 1 << 30):
                    height[name] = value
                    changed = True
    return rules, spellings, height


_NAMES = ["A", "x_1", "Note", "type", "value", "record", "atom", "string", "id", "default", "ref"]
_STRINGS = ['"a:b"', '""', '"\\u00e9"', '"é"', '"x\\"y"']
_NUMBERS = ["0", "-1", "2.5", "1e3", "-0.5E-2"]
_SEPARATORS = [" ", " ", " ", "\n", "\t", "\r\n", " // c\n", "/* c */", " /// d\n", ""]
_STRAY = ["-", "@", "é", '"', "/", "*", "\\", "#"]


@st.composite
def _tokens(draw: st.DrawFn, max_depth: int = 7, names: tuple[str, ...] = ()) -> list[str]:
    rules, spellings, height = _grammar()
    out: list[str] = []

    def derive(name: str, depth: int) -> None:
        alternatives = rules[name]
        if depth >= max_depth:
            # Deep enough: only the alternatives that end soonest.
            def cost(expansion: list[tuple[bool, str]]) -> int:
                return max((height[s] for t, s in expansion if not t), default=0)

            least = min(cost(expansion) for expansion in alternatives)
            alternatives = [expansion for expansion in alternatives if cost(expansion) == least]
        expansion = draw(st.sampled_from(alternatives))
        for is_term, symbol in expansion:
            if not is_term:
                derive(symbol, depth + 1)
            elif symbol == "NAME":
                out.append(draw(st.sampled_from(names or _NAMES)))
            elif symbol == "STRING":
                out.append(draw(st.sampled_from(_STRINGS)))
            elif symbol == "NUMBER":
                out.append(draw(st.sampled_from(_NUMBERS)))
            else:
                out.append(spellings[symbol])

    derive("start", 0)
    return out


@st.composite
def _texts(draw: st.DrawFn) -> str:
    tokens = draw(_tokens())
    _, spellings, _ = _grammar()
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["drop", "double", "swap", "replace", "insert", "stray"]))
        if not tokens and kind != "insert":
            continue
        index = draw(st.integers(0, max(len(tokens) - 1, 0)))
        if kind == "drop":
            del tokens[index]
        elif kind == "double":
            tokens.insert(index, tokens[index])
        elif kind == "swap" and index + 1 < len(tokens):
            tokens[index], tokens[index + 1] = tokens[index + 1], tokens[index]
        elif kind == "replace":
            tokens[index] = draw(st.sampled_from(sorted(spellings.values()) + _NAMES))
        elif kind == "insert":
            tokens.insert(index, draw(st.sampled_from(sorted(spellings.values()) + _NAMES)))
        elif kind == "stray":
            tokens.insert(index, draw(st.sampled_from(_STRAY)))
    pieces: list[str] = []
    for index, token in enumerate(tokens):
        pieces.append(token)
        separator = draw(st.sampled_from(_SEPARATORS))
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if not separator and _wordy(token[-1:]) and _wordy(following[:1]):
            separator = " "  # two words glued are one word (see the test below)
        pieces.append(separator)
    return "".join(pieces)


def _wordy(char: str) -> bool:
    return char.isalnum() or char == "_"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts())
def test_the_driver_builds_what_larks_parser_builds(text: str) -> None:
    assert _ours(text) == _theirs(text), text


@pytest.mark.parametrize(
    "text",
    [
        "",
        "type type = record { value : atom-ref<atom>; };",
        "type T = atom-refx;",  # not the hyphenated keyword: refused by both
        "type T = record { x : int32 = -1; y : list<string> = []; };",
        "type T = string;type U=optional<T>;",
        'external atom A id "a";\ninterface I id "i" revision "i@1" {\n'
        '  required queryable relation r id "r" : many-unique atom A { resolve id "r:r" '
        "execution snapshot; }\n"
        '  operation o id "o" : unit -> unit { notify id "o:n"; }\n}',
        'type T = open variant tag "k" { "a" : unit; default : json; };',
        'interface I id "i" revision "r" { }',
        "type T = union { string; T; };",
        "type T = record { }",
        "type T = 1;",
        'external atom A id "a"',
    ],
)
def test_examples_agree(text: str) -> None:
    assert _ours(text) == _theirs(text)


def test_a_keyword_glued_to_a_word_is_one_word() -> None:
    """The one known difference: where no name can stand, Lark's contextual lexer reads a
    keyword at the start of a longer word (`interfaceA` as `interface` `A`); idlc reads a
    word as a whole, as a person does, and refuses it. If Lark changes, so will this."""
    text = "import interfaceA;"
    assert _ours(text) is None
    assert _theirs(text) == (
        "start",
        [
            (
                "import_decl",
                [("IMPORT", "import"), ("INTERFACE", "interface"), ("NAME", "A"), ("SEMI", ";")],
            )
        ],
    )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tokens(names=("A", "x_1", "Note")))
def test_every_derived_text_is_accepted(tokens: list[str]) -> None:
    """Unmutated, with names that are no keywords (a keyword where it can stand is one), a
    derivation is a sentence of the grammar: both parsers take it, so the comparison above
    sees real trees, not only refusals."""
    text = " ".join(tokens)
    ours = _ours(text)
    assert ours is not None, text
    assert ours == _theirs(text)


# -- parses share nothing ---------------------------------------------------------------


def test_a_parse_can_run_inside_another() -> None:
    """Parses are reentrant: a second parse started while the first one is reducing (here,
    from inside a builder method) leaves the first one's state alone."""
    inner: list[Any] = []

    class Nesting(parser._Builder):
        def atom_decl(self, children: list[Any]) -> Any:
            if not inner:
                source = SourceFile("inner.idl", "/// inner\ntype Inner = string;")
                inner.append(parser.parse(source, Diagnostics()))
            return super().atom_decl(children)

    text = '/// the atom\nexternal atom A id "a";\ntype T = record { f : A; };\n'
    diagnostics = Diagnostics()
    state = parser._ParseState(SourceFile("outer.idl", text), diagnostics)
    builder = Nesting(state)
    run = lalr.Parser(
        lalr.bind(parser._table_data(), Nesting),
        text,
        builder.comment,
        _Refuse(),
        {"NAME": builder.NAME, "STRING": builder.STRING},
        builder,
    )
    decls = run.parse()
    assert not list(diagnostics)
    assert [type(decl).__name__ for decl in decls] == ["AtomDecl", "TypeDecl"]
    assert decls[0].doc is not None and decls[0].doc.lines == ("the atom",)
    assert [comment.text for comment in state.comments] == ["/// the atom"]
    assert inner[0] is not None and inner[0].path == "inner.idl"
    assert [comment.text for comment in inner[0].comments] == ["/// inner"]


def test_the_table_cache_is_keyed_by_larks_version() -> None:
    assert parser._lark_version() == lark.__version__


def test_terminal_names_and_spellings_come_from_the_tables() -> None:
    from idlc.syntax import tokens

    data = parser._table_data()
    assert data.name == "NAME"
    assert data.comments == {"LINE_COMMENT", "BLOCK_COMMENT"}
    assert data.closers == {"RBRACE", lalr.END}
    assert tokens.spelling("ATOM_REF") == "atom-ref"
    assert tokens.spelling("STRING_KW") == "string"
    assert tokens.spelling("ARROW") == "->"
    assert tokens.spelling("NAME") is None
    assert tokens.type_starts() == {
        "STRING_KW", "BOOL", "UNIT", "FLOAT64", "BYTES", "JSON", "INT8", "INT16", "INT32",
        "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "OPTIONAL", "NULLABLE", "LIST", "MAP",
        "ATOM_REF", "INTERFACE_REF", "RECORD", "OPEN", "ENUM", "VARIANT", "UNION", "NAME",
    }  # fmt: skip


_ROOT = Path(__file__).resolve().parents[2]
_FILES = sorted(
    path
    for folder in ("idl", "tests/corpus", "tests/codegen/corpus")
    for path in (_ROOT / folder).rglob("*.idl")
    if path.is_file()
)


@pytest.mark.parametrize("path", _FILES, ids=lambda path: str(path.relative_to(_ROOT)))
def test_real_files_agree(path: Path) -> None:
    """Every IDL file of the repository (the seeds, ACP, the test corpora with their
    syntax errors) gets the same tree from both parsers, or is refused by both."""
    text = path.read_text(encoding="utf-8", errors="replace")
    assert _ours(text) == _theirs(text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_cut_real_files_agree(data: st.DataObject) -> None:
    """A real file with a piece cut out (a half-typed edit) gets the same answer."""
    path = data.draw(st.sampled_from([p for p in _FILES if p.stat().st_size < 20_000]))
    text = path.read_text(encoding="utf-8", errors="replace")
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, min(len(text), start + 40)))
    cut = text[:start] + text[end:]
    assert _same_answer(cut), (path.name, start, end)
