"""The formatter's copying of canonical runs (`idlc.syntax.format`, `_Writer.run`) gives the
same text as writing every token: on drawn perturbations of formatted files, where runs
that are nearly canonical are the ones to get wrong, and on the corpus with comments and
line breaks inserted anywhere."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.source import SourceFile, Span
from idlc.syntax import format as formatting
from idlc.syntax.format import format_file
from idlc.syntax.parser import parse
from tests.syntax.support import INPUTS, ROOT, fmt, read
from tests.syntax.test_format_properties import _commented

sys.path.insert(0, str(ROOT / "bench"))
from synthetic import schema  # noqa: E402

_EXAMPLES = int(os.environ.get("IDLC_FUZZ_EXAMPLES", "150"))
#: Formatted texts: what `fmt --check` mostly sees, so where most runs are copied.
_FORMATTED = [fmt(read(path), str(path)) for path in INPUTS] + [fmt(schema(3))]

_BODIES = """type A = record {
  a : string;

  b : list<T> = [] lenient;
};

type E = open enum {
  "x";
  "y";
};

type U = union {
  A;
  list<E>;
};

type V = variant tag "kind" {
  "a" : A;
  default : unit;
};

type C = record {
  a : string; // a comment: entry by entry
  b : string;
};

type N = record {
  a : record {
    b : string;
    c : string;
  };
  d : string;
};
"""

# Places a perturbation may touch: white space, and the edges of punctuation.
_SPOTS = re.compile(r'"(?:[^"\\\n\r]|\\.)*"|\s+|->|[{}<>;:,=\[\]]')


def _both(text: str) -> tuple[str, str] | None:
    """The output with and without copying, or None when `text` does not parse."""
    diagnostics = Diagnostics()
    tree = parse(SourceFile("input.idl", text), diagnostics)
    if tree is None:
        return None
    source = SourceFile("input.idl", text)
    return format_file(tree, source), format_file(tree, source, copy_runs=False)


@st.composite
def _perturbed(draw: st.DrawFn) -> str:
    """A formatted file with a few white-space edits next to tokens: a space removed or
    doubled, a line joined to the one before, a newline or a tab put in, an indentation
    changed — each of which makes some run nearly, but not quite, canonical."""
    text = draw(st.sampled_from(_FORMATTED))
    spots = [m.span() for m in _SPOTS.finditer(text) if not m.group().startswith('"')]
    for _ in range(draw(st.integers(1, 4))):
        start, end = draw(st.sampled_from(spots))
        piece = text[start:end]
        if piece.isspace():
            replacement = draw(st.sampled_from(["", " ", "  ", "\n", "\n\n", "\t", " \n  "]))
            text = text[:start] + replacement + text[end:]
        else:
            where = draw(st.sampled_from([start, end]))
            text = text[:where] + draw(st.sampled_from([" ", "\n", "\n  "])) + text[where:]
        spots = [m.span() for m in _SPOTS.finditer(text) if not m.group().startswith('"')]
    return text


@st.composite
def _relined(draw: st.DrawFn) -> str:
    """A formatted file with a few edits at line breaks — a blank line put in or taken out,
    a line's indentation changed, two lines joined — which is where a copied body
    (`_Writer.body_copy`) must tell the canonical layout from one nearly so."""
    # Half of them from texts made of exploded bodies, the rest from the whole corpus.
    text = draw(st.sampled_from([_BODIES, _FORMATTED[-1]] if draw(st.booleans()) else _FORMATTED))
    for _ in range(draw(st.integers(1, 3))):
        breaks = [match.start() for match in re.finditer("\n", text)]
        at = draw(st.sampled_from(breaks))
        edit = draw(st.sampled_from(["\n\n", "\n\n\n", "\n ", "\n   ", " ", "", "\n\t"]))
        end = at + 1
        if draw(st.booleans()):  # the indentation after the break goes too
            while end < len(text) and text[end] == " ":
                end += 1
            edit += text[at + 1 : end].replace(" ", "", draw(st.integers(0, 2)))
        text = text[:at] + edit + text[end:]
    return text


@settings(max_examples=_EXAMPLES, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(_relined())
def test_copying_agrees_with_line_breaks_edited(text: str) -> None:
    outputs = _both(text)
    if outputs is not None:
        assert outputs[0] == outputs[1]


@settings(max_examples=_EXAMPLES, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(_perturbed())
def test_copying_runs_gives_the_text_token_by_token_gives(text: str) -> None:
    outputs = _both(text)
    if outputs is not None:
        assert outputs[0] == outputs[1]


@settings(max_examples=_EXAMPLES, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(_commented())
def test_copying_runs_agrees_with_comments_anywhere(text: str) -> None:
    outputs = _both(text)
    assert outputs is not None
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("path", INPUTS, ids=lambda path: Path(path).name)
def test_copying_runs_agrees_on_the_corpus(path: Path) -> None:
    outputs = _both(read(path))
    assert outputs is not None
    assert outputs[0] == outputs[1]


def test_a_formatted_file_is_mostly_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without comments, every flat declaration, member and field of formatted text is
    copied, as one run or as a line of a copied body — else the copying could be broken
    into never copying, unseen."""
    copied: list[str] = []
    original = formatting._Writer.run

    def run(self: formatting._Writer, start: int, end: int, space: bool = True) -> bool:
        done = original(self, start, end, space)
        if done:
            copied.append(self.text[start:end])
        return done

    original_body = formatting._Writer.body_copy

    def body_copy(self: formatting._Writer, spans: Sequence[Span], closing: int) -> bool:
        before = len(self.lines)
        done = original_body(self, spans, closing)
        if done:  # the entries' lines (and the line of the `{`, which is no item)
            copied.extend(line.strip() for line in self.lines[before:])
        return done

    monkeypatch.setattr(formatting._Writer, "run", run)
    monkeypatch.setattr(formatting._Writer, "body_copy", body_copy)
    text = fmt(schema(3))
    assert fmt(text) == text
    # Lines that are one whole item (not the `{` or `}` of an exploded body).
    items = [line.strip() for line in text.splitlines() if line.endswith((";", "}"))]
    items = [line for line in items if not line.startswith("}")]
    assert items
    assert [line for line in items if line not in copied] == []


@pytest.mark.parametrize(
    "text",
    [
        "a : string;",
        'external atom A id "atom:x y  z";',
        "m : map<string, list<optional<T>>>;",
        "d : list<string> = [] lenient;",
        "o : R = {} skip-invalid null-default;",
        "n : int32 = -1.5e+3;",
        "r : record { a : record {}; };",
        'v : variant tag "k" fields { x : bool; } { "a" : unit; };',
        "type T = atom-ref<A>;",
    ],
)
def test_canonical_runs_are_recognised(text: str) -> None:
    assert formatting._CANONICAL_RUN.fullmatch(text)


@pytest.mark.parametrize(
    "text",
    [
        "a: string;",  # a space missing
        "a :string;",
        "a : string ;",  # a space too many
        "a  : string;",
        "m : map<string,T>;",
        "m : map< string, T>;",
        "m : list<T >;",
        "d : list<string> = [ ];",
        "r : record { };",
        "r : record {a : T; };",
        "r : record { a : T;};",
        "r : record { a : T; b : U; };",  # two entries: exploded over several lines
        "n : int32 = 1lenient;",  # two tokens the layout writes apart
        "o : T->U;",
        "o : T ->U;",
        "a :\tstring;",
        "a :\nstring;",
    ],
)
def test_non_canonical_runs_are_refused(text: str) -> None:
    assert not formatting._CANONICAL_RUN.fullmatch(text)


def test_exploded_bodies_of_flat_entries_are_copied_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exploded body of one-line entries without comments is one `body_copy` (else
    it could be broken into never copying, unseen); the rest go entry by entry."""
    copies: list[bool] = []
    original = formatting._Writer.body_copy

    def body_copy(self: formatting._Writer, spans: Sequence[Span], closing: int) -> bool:
        done = original(self, spans, closing)
        copies.append(done)
        return done

    monkeypatch.setattr(formatting._Writer, "body_copy", body_copy)
    assert fmt(_BODIES) == _BODIES
    # A, E, U, V copied; C (a comment) and N (an exploded entry) not; N's inner body is.
    assert copies == [True, True, True, True, False, False, True]
