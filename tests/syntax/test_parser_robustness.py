"""The parser on hostile input: mutated seeds and random token soup only ever produce
diagnostics (never another exception, never a hang), and parse time grows linearly."""

from __future__ import annotations

import gc
import os
import re
import statistics
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.source import SourceFile
from idlc.syntax import ast
from idlc.syntax.format import format_file
from idlc.syntax.parser import parse
from tests.syntax.support import ROOT, SEEDS, VALID, comment_texts, read, strip_spans

_SOURCES = [read(path.relative_to(ROOT)) for path in [*SEEDS, *sorted(VALID.glob("*.idl"))]]

_FUZZ = settings(
    # A few seconds per test in CI; `IDLC_FUZZ_EXAMPLES=5000` for a longer hunt.
    max_examples=int(os.environ.get("IDLC_FUZZ_EXAMPLES", "150")),
    deadline=2000,  # milliseconds per example: a hang or a blow-up fails, slow CI does not
    suppress_health_check=[HealthCheck.too_slow],
)


def _parse(text: str) -> tuple[ast.File | None, Diagnostics]:
    diagnostics = Diagnostics()
    return parse(SourceFile("fuzz.idl", text), diagnostics), diagnostics


def _check(text: str) -> None:
    """Parsing `text` either succeeds or says why; a success formats to the same meaning."""
    tree, diagnostics = _parse(text)
    if tree is None:
        assert diagnostics.has_errors
        for diagnostic in diagnostics:
            if diagnostic.span is not None:
                assert 0 <= diagnostic.span.start <= diagnostic.span.end <= len(text)
        return
    formatted = format_file(tree, SourceFile("fuzz.idl", text))
    again, problems = _parse(formatted)
    assert again is not None, ([f"{d.code} {d.message} {d.span}" for d in problems], formatted)
    if formatted:  # an empty output has no line ending to keep
        assert strip_spans(again) == strip_spans(tree)
    else:
        assert not tree.decls and not tree.comments
    assert comment_texts(again) == comment_texts(tree)
    assert format_file(again, SourceFile("fuzz.idl", formatted)) == formatted


# -- mutated seeds ------------------------------------------------------------------------


@st.composite
def _mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(_SOURCES))
    for _ in range(draw(st.integers(1, 6))):
        size = len(text)
        start = draw(st.integers(0, size))
        end = draw(st.integers(start, min(size, start + 40)))
        kind = draw(st.sampled_from(["delete", "insert", "duplicate", "replace"]))
        if kind == "delete":
            text = text[:start] + text[end:]
        elif kind == "duplicate":
            text = text[:end] + text[start:end] + text[end:]
        else:
            piece = draw(
                st.one_of(
                    st.text(max_size=4),
                    st.sampled_from(_PUNCTUATION + ['"', "\\", "/*", "*/", "//", "///", "\r\n"]),
                )
            )
            text = text[:start] + piece + text[end if kind == "replace" else start :]
    return text


@_FUZZ
@given(_mutated())
def test_mutated_seeds_give_diagnostics_not_exceptions(text: str) -> None:
    _check(text)


# -- token soup ---------------------------------------------------------------------------

_GRAMMAR = (ROOT / "grammar" / "idl.lark").read_text(encoding="utf-8")
_KEYWORDS = sorted(set(re.findall(r'^[A-Z_0-9]+(?:\.\d)?: "([a-z][a-z0-9-]*)"$', _GRAMMAR, re.M)))
_PUNCTUATION = ["->", "{", "}", "<", ">", "[", "]", ":", ";", ",", "="]
_LEAVES = st.one_of(
    st.sampled_from(_KEYWORDS),
    st.sampled_from(_PUNCTUATION),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True),
    st.from_regex(r'"(?:[^"\\\n\r]|\\[nt"\\/]|\\u[0-9a-fA-F]{4}|\\x){0,6}"', fullmatch=True),
    st.from_regex(
        r"-?(?:0|[1-9][0-9]{0,25})(?:\.[0-9]{1,3})?(?:[eE][+-]?[0-9]{1,4})?", fullmatch=True
    ),
    st.sampled_from(["// c", "/// doc", "/* b */", "/* b", '"open', "@", "\t", "\ufeff"]),
)
_SEPARATORS = st.sampled_from([" ", "", "\n", "\r\n", "  "])


@_FUZZ
@given(st.lists(st.tuples(_LEAVES, _SEPARATORS), max_size=80))
def test_token_soup_gives_diagnostics_not_exceptions(tokens: list[tuple[str, str]]) -> None:
    _check("".join(token + separator for token, separator in tokens))


def test_the_token_soup_knows_the_grammar() -> None:
    # Guards the regular expression above against a reformatted grammar file.
    assert {"external", "atom-ref", "many-unique", "variant", "notify", "uint64"} <= set(_KEYWORDS)


@_FUZZ
@given(
    st.lists(st.sampled_from([*_PUNCTUATION, "record", "list", "optional", "{", "<"]), max_size=300)
)
def test_deep_and_unbalanced_nesting_is_reported(tokens: list[str]) -> None:
    _check("type A = " + " ".join(tokens))


def test_very_deep_nesting_is_refused_without_recursion_errors() -> None:
    tree, diagnostics = _parse("type A = " + "list<" * 5000 + "string" + ">" * 5000 + ";")
    assert tree is None
    assert any(d.code.id == "E0008" for d in diagnostics)


# -- linear time --------------------------------------------------------------------------

_BLOCK = """
/// A record with a doc comment.
type Data{n} = record {{text: string; data: optional<string>; items: list<atom-ref<Obj>>; extra: record {{a: uint32; b: bool = true;}};}};
interface Service{n} id "interface:org.example:service{n}" revision "interface:org.example:service{n}@1" {{
  queryable value data id "service{n}:data" : Data{n} {{get id "service{n}:data:get" execution snapshot;}} // trailing
  operation run id "service{n}:run" : record {{key: string; value: map<string, json>;}} -> unit {{call id "service{n}:run:call" execution transaction;}}
}}
"""


def _median_parse_seconds(copies: int) -> float:
    text = 'external atom Obj id "atom:x";\n' + "".join(_BLOCK.format(n=n) for n in range(copies))
    timings = []
    for _ in range(5):
        # Collector pauses depend on what earlier tests left on the heap, not on the parser.
        gc.collect()
        gc.disable()
        try:
            started = time.perf_counter()
            tree, diagnostics = _parse(text)
            timings.append(time.perf_counter() - started)
        finally:
            gc.enable()
        assert tree is not None, list(diagnostics)
    return statistics.median(timings)


def test_doubling_the_input_roughly_doubles_parse_time() -> None:
    _median_parse_seconds(20)  # warm up: grammar tables, caches
    ratios = []
    # A busy machine can slow one measurement; a quadratic parser fails every attempt.
    for _ in range(3):
        small = _median_parse_seconds(200)
        large = _median_parse_seconds(400)
        ratios.append(large / small)
        if ratios[-1] < 3:
            return
    raise AssertionError(f"parse time ratios for 2N/N copies: {ratios}")
