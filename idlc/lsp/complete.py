"""Completion from the grammar itself: the parser is run over the text before the cursor
and asked what it could take next, so keywords are offered exactly where they fit.

The parse uses the compiler's own tables, bound to a builder that builds nothing (the
values left on the parser's stack are its tokens and plain lists), and the compiler's own
error recovery, so text broken earlier in the file still gets completions further on.
"""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass

from idlc.diagnostics import Diagnostics
from idlc.lsp.index import ATOM, IMPORTED, INTERFACE, TYPEDEF, Declaration, Index
from idlc.source import SourceFile
from idlc.syntax import lalr, parser
from idlc.syntax.lalr import END, Parser, Tok
from idlc.syntax.recovery import Recovery
from idlc.syntax.tokens import spelling, type_starts

#: The word being typed, hyphenated keywords (`atom-ref`) included.
_NAME_STARTS = frozenset(string.ascii_letters + "_")
_NAME_CHARACTERS = _NAME_STARTS | frozenset(string.digits)
#: Stands in for the cursor: no token can begin with it.
_CURSOR = "\x00"

#: Which binding verbs fit which member (docs/language.md, "Bindings").
_VERBS_FOR = {
    "VALUE": ("GET",),
    "RELATION": ("RESOLVE",),
    "OPERATION": ("CALL", "NOTIFY"),
}
_VERBS = frozenset({"GET", "RESOLVE", "CALL", "NOTIFY"})


@dataclass(frozen=True, slots=True)
class Candidate:
    label: str
    #: "keyword", or the kind of declaration named (index kinds).
    kind: str
    detail: str | None = None
    documentation: str | None = None


@dataclass(frozen=True, slots=True)
class Completions:
    #: Where the word being typed starts: candidates replace text from here to the cursor.
    start: int
    candidates: list[Candidate]


class _Inert:
    """A builder with no methods: every reduction yields the list of its children."""


@functools.cache
def _tables() -> lalr.Tables:
    return lalr.bind(parser._table_data(), _Inert)


@dataclass(slots=True)
class Expectation:
    """What the parser could take at the cursor, and the tokens and lists on its stack."""

    terminals: set[str]
    values: list[object]


class _AtCursor:
    """Error recovery as the compiler does it, except at the cursor, where it stops."""

    def __init__(self, source: SourceFile, cursor: int) -> None:
        self.cursor = cursor
        self.recovery = Recovery(source, Diagnostics(), [])
        self.found: Expectation | None = None

    def characters(self, parser: Parser, position: int) -> int | None:
        if position >= self.cursor:
            self.found = Expectation(parser.expected(), list(parser.values))
            return None
        return self.recovery.characters(parser, position)

    def token(self, parser: Parser, token: Tok) -> bool:
        if token.type == END:
            return False  # the cursor was inside a comment or a string
        return self.recovery.token(parser, token)


def expectation(text: str, cursor: int) -> Expectation | None:
    """What can be written at offset `cursor` of `text`; None inside a comment or string."""
    prefix = text[:cursor] + _CURSOR
    at = _AtCursor(SourceFile("<completion>", prefix), cursor)
    run = Parser(_tables(), prefix, lambda text, start, end: None, at)
    try:
        run.parse()
    except lalr.SyntaxStop:
        pass
    return at.found


def word_start(text: str, cursor: int) -> int:
    """Where the word that ends at `cursor` begins: the earliest offset from which
    `text[offset:cursor]` is a name, or a keyword with one hyphen (`atom-ref`).

    A scan backwards over the run of name characters, so linear in the word's length: a
    regular expression searched from the line's start tried every offset of a long run
    and was quadratic (16,000 characters took seconds).
    """
    part_start = _run_start(text, cursor)
    if part_start > 0 and text[part_start - 1] == "-":
        before = _first_name_start(text, _run_start(text, part_start - 1), part_start - 1)
        if before is not None:
            return before
    found = _first_name_start(text, part_start, cursor)
    return cursor if found is None else found


def _run_start(text: str, end: int) -> int:
    """Where the run of `[A-Za-z0-9_]` characters that ends at `end` begins."""
    start = end
    while start > 0 and text[start - 1] in _NAME_CHARACTERS:
        start -= 1
    return start


def _first_name_start(text: str, start: int, end: int) -> int | None:
    """The first offset in `start..end` (a run of name characters) where a name may begin."""
    for offset in range(start, end):
        if text[offset] in _NAME_STARTS:
            return offset
    return None


def complete(text: str, cursor: int, index: Index) -> Completions:
    start = word_start(text, cursor)
    found = expectation(text, start)
    if found is None:
        return Completions(start, [])
    terminals = found.terminals
    tokens = [value for value in found.values if isinstance(value, Tok)]
    candidates: list[Candidate] = []
    if terminals & _VERBS:
        member = next((token.type for token in reversed(tokens) if token.type in _VERBS_FOR), None)
        allowed = _VERBS_FOR.get(member or "", tuple(_VERBS))
        terminals = (terminals - _VERBS) | set(allowed)
    if terminals & _MODIFIERS:
        terminals = terminals - _written_modifiers(found.values)
    if "NAME" in terminals:
        candidates.extend(_names(_name_context(terminals, found.values), index))
    for terminal in sorted(terminals):
        word = spelling(terminal)
        if word and word[0].isalpha():
            candidates.append(Candidate(word, "keyword"))
    return Completions(start, candidates)


#: A field's modifiers: offered in any order, but each at most once (a second is an error).
_MODIFIERS = frozenset({"LENIENT", "SKIP_INVALID", "NULL_DEFAULT"})


def _written_modifiers(values: list[object]) -> set[str]:
    """The modifiers already written in the field being completed: the modifier tokens (or
    the list the parser has made of them) at the top of its stack."""
    written: set[str] = set()
    for value in reversed(values):
        items = value if isinstance(value, list) else [value]
        if not items or not all(isinstance(t, Tok) and t.type in _MODIFIERS for t in items):
            break
        written.update(t.type for t in items if isinstance(t, Tok))
    return written


def _name_context(terminals: set[str], values: list[object]) -> str | None:
    """What kind of declared name fits where a NAME can come, None where one is declared."""
    last = values[-1] if values else None
    before = values[-2] if len(values) >= 2 else None
    if isinstance(last, Tok) and last.type == "LANGLE" and isinstance(before, Tok):
        if before.type == "ATOM_REF":
            return ATOM
        if before.type == "INTERFACE_REF":
            return INTERFACE
    if (
        isinstance(last, Tok)
        and last.type in ("ATOM", "INTERFACE")
        and len(values) >= 3
        and isinstance(values[-3], Tok)
        and values[-3].type == "COLON"
    ):
        return ATOM if last.type == "ATOM" else INTERFACE  # a relation's target
    if isinstance(last, Tok) and last.type == "INTERFACE" and isinstance(before, Tok):
        if before.type == "IMPORT":
            return IMPORTED
    if type_starts() <= terminals:
        return TYPEDEF
    return None


def _names(context: str | None, index: Index) -> list[Candidate]:
    if context is None:
        return []
    wanted = {
        ATOM: (ATOM,),
        INTERFACE: (INTERFACE, IMPORTED),
        IMPORTED: (INTERFACE,),
        TYPEDEF: (TYPEDEF,),
    }[context]
    return [_candidate(decl) for decl in index.top_level() if decl.kind in wanted]


def _candidate(decl: Declaration) -> Candidate:
    doc = getattr(decl.node, "doc", None)
    return Candidate(
        decl.name,
        decl.kind,
        f"{decl.kind} ({decl.span.file})",
        doc.text if doc is not None else None,
    )
