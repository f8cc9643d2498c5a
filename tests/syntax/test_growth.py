"""The front end's cost grows with its input, not faster: long tokens cost memory in
proportion to their length, and lists of items are built without copying.

Measured by counting (allocated bytes, objects reused), never by the clock; the timings
are in `bench/growth.py`.
"""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.diagnostics.render import render_human
from idlc.pipeline import compile_files
from idlc.source import SourceFile, SourceMap
from idlc.syntax import escapes, lalr
from idlc.syntax.parser import parse

#: Bytes allocated at the peak per character of input. The text itself, the token's copy
#: and the decoded value take a few; the old patterns took about 230.
_BYTES_PER_CHARACTER = 16

_SIZE = 400_000

_LONG_TOKENS = {
    "string": 'type T = record { f : string = "' + "a" * _SIZE + '"; };\n',
    "escapes": 'type T = record { f : string = "' + "\\n" * (_SIZE // 2) + '"; };\n',
    "non-ASCII string": 'type T = record { f : string = "' + "é" * _SIZE + '"; };\n',
    "block comment": "/* " + "a*" * (_SIZE // 2) + " */\ntype T = unit;\n",
    "unterminated string": 'type T = record { f : string = "' + "a" * _SIZE + "; };\n",
    "string in a broken item": 'type T = record { f : strin g = "' + "a" * _SIZE + '"; };\n',
    "string after junk": 'type T = record { f : string = § "' + "a" * _SIZE + '"; };\n',
}


@pytest.mark.parametrize("name", sorted(_LONG_TOKENS))
def test_a_long_token_costs_memory_in_proportion_to_its_length(name: str) -> None:
    text = _LONG_TOKENS[name]
    source = SourceFile("long.idl", text)
    parse(SourceFile("warm.idl", "type T = unit;"), Diagnostics())  # tables loaded
    gc.collect()
    tracemalloc.start()
    try:
        parse(source, Diagnostics())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / len(text) < _BYTES_PER_CHARACTER, f"{peak / len(text):.0f} bytes per character"


def test_a_list_of_items_grows_in_place() -> None:
    """The callback of `_items: _items item` appends to the list it is given."""
    plan = lalr.RulePlan(
        method=None, expand1=False, include=((0, True, 0), (1, False, 0)), trailing=0
    )
    callback = lalr._callback(plan, builder=None)
    items = ["first", "second"]
    assert callback(None, [items, "third"]) is items
    assert items == ["first", "second", "third"]


def test_declarations_are_collected_without_copying_the_list_so_far() -> None:
    """Every reduction of the declaration list passes the same list object on: one list
    for the whole file, not one per declaration."""
    text = "".join(f"type T{i} = record {{ f : string; }};\n" for i in range(300))
    seen: set[int] = set()
    original = lalr._appending

    def recording(plan: lalr.RulePlan):  # type: ignore[no-untyped-def]
        callback = original(plan)
        if callback is None:
            return None

        def record(builder: object, children: list[object]) -> object:
            result = callback(builder, children)
            seen.add(id(result))
            return result

        return record

    lalr._appending = recording  # type: ignore[assignment]
    try:
        tables = lalr.bind(_table_data(), _Builder)
    finally:
        lalr._appending = original  # type: ignore[assignment]
    parser = lalr.Parser(tables, text, lambda *_: None, _NoRecovery(), {})
    declarations = parser.parse()
    assert len(declarations) == 300
    assert len(seen) == 1


class _Builder:
    """No methods: every rule yields its children as a list."""


class _NoRecovery:
    def characters(self, parser: lalr.Parser, position: int) -> int | None:
        raise AssertionError(f"unexpected character at {position}")

    def token(self, parser: lalr.Parser, token: lalr.Tok) -> bool:
        raise AssertionError(f"unexpected token {token!r}")


def _table_data() -> lalr.TableData:
    from idlc.syntax.parser import _table_data as load

    return load()


# -- the JSON fast path of string decoding agrees with the reporting loop --------------

_PIECES = st.one_of(
    st.text(alphabet=st.characters(blacklist_characters='"\\\n\r'), max_size=4),
    st.sampled_from(
        ["\\n", "\\t", "\\/", '\\"', "\\\\", "\\b", "\\f", "\\r", "\\u00e9", "\\uD83D\\uDE00",
         "\\uD83D", "\\uDE00", "\\u12", "\\x", "\\é", "\\u0000"]
    ),
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=12))
def test_fast_decoding_agrees_with_the_reporting_loop(pieces: list[str]) -> None:
    raw = '"' + "".join(pieces) + '"'
    fast: list[tuple[int, int, str]] = []
    slow: list[tuple[int, int, str]] = []
    decoded = escapes.decode(raw, lambda start, end, message, _: fast.append((start, end, message)))
    expected = escapes.decode_reporting(
        raw, lambda start, end, message, _: slow.append((start, end, message))
    )
    assert decoded == expected
    assert fast == slow


# -- rendering: a diagnostic copies the part of its line it shows, not the whole line ----


class _CountingText(str):
    """Source text that counts the characters sliced out of it."""

    sliced = 0

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        part = str.__getitem__(self, key)
        if isinstance(key, slice):
            _CountingText.sliced += len(part)
        return part


def test_rendering_diagnostics_on_one_long_line_copies_only_what_is_shown(tmp_path: Path) -> None:
    n = 2000
    text = "".join(f"type T{i} = record {{ f : Missing{i}; }}; " for i in range(n))
    path = tmp_path / "minified.idl"
    path.write_text(text)
    compilation = compile_files([path])
    assert len(compilation.diagnostics) == n
    sources = SourceMap()
    for source in compilation.sources:
        sources.add(SourceFile(source.path, _CountingText(source.text)))
    _CountingText.sliced = 0
    rendered = render_human(compilation.diagnostics, sources)
    assert rendered.count("unknown type") == n
    # Each diagnostic shows at most 120 characters of the line (it used to copy all of it).
    assert _CountingText.sliced <= 250 * n, _CountingText.sliced
