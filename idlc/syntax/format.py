"""The canonical layout of an IDL file (`idlc fmt`).

`format_file` walks the AST and writes its tokens again, in exactly the order and spelling
of the source (strings and numbers as written), with canonical spacing and line breaks.
Comments are not part of the AST's tree: they are merged back by position. Because the
tokens come out in source order, every token's place in the source is found by skipping
whitespace and comments from the end of the one before, and each comment is written just
before the first token that followed it in the source. So no comment can ever move across
a token, let alone across a declaration, member or field.

Layout rules:

- One declaration per line. A blank line separates declarations of different kinds
  (atoms, imports, typedefs), and stands before and after every interface and every typedef
  written on several lines. Elsewhere one blank line is kept where the source had at least
  one between two items (declarations, members, fields, values, cases, alternatives), and
  none at the start of a block.
- A brace body (record, enum, variant, union) stays on one line — `record { a : string; }`,
  `record {}` — when it has at most one entry, contains no comment, and its entry is itself
  on one line. Otherwise it is exploded: one entry per line, indented by 2 more than the
  line holding the `{`, and `}` back on that line's indentation. This is the only rule;
  line width plays no part, so the result never depends on how long names are.
- An interface has one member per line, indented by 2; a member is one line in the seeds'
  shape, `queryable value data id "…" : T { get id "…" execution snapshot; }`, except
  for the exploded records it holds.
- Single spaces around `:`, `->` and `=`; `map<string, T>`; no space inside `<>`; no space
  before `;`.
- `///` doc comments stand on their own lines directly above their node, at its
  indentation. Other comments stay where they were, between the same two tokens: one that
  ended a source line stays at the end of its line; a `/* */` with code after it on the
  same source line stays inline, just before that code; one on its own line stays on its
  own line. A line comment ends its line; when that happens in the middle of an item
  (inside a type expression, say), the item continues on the next line indented by 4 more
  than the item. So comments inside type expressions are never hoisted out of them — which
  also keeps a `///` that documents nothing from becoming the next item's documentation.
  One blank line before a comment on its own line is kept. Trailing whitespace of `//`
  comments is dropped; block comments are kept verbatim.
- The file's line ending (`File.newline`) is used throughout; the output ends with exactly
  one line ending (an empty file stays empty). Whitespace outside tokens, comments and
  strings — tabs, a byte-order mark — is not kept.

Since every decision depends only on the AST and on where comments stand between tokens,
formatting formatted text changes nothing. `FormatError` means the AST was not parsed from
the source given (a bug in the caller), never a problem of the file.

Speed (docs/benchmarks.md, "The formatter copies canonical runs"): most of a file is
usually written already as the layout writes it, so a node with no comment before its end
whose source text is one line in the canonical spacing (`_CANONICAL_RUN`) is copied from
the source in one piece (`_Writer.run`) instead of token by token. Declarations but
interfaces, members, brace entries, bindings and type expressions are offered to it, and
the leading tokens of members and interfaces; what it refuses goes token by token, its
parts offered again; an exploded body whose entries are all such runs, with no comment
before its `}`, is written in one step (`_Writer.body_copy`). `format_file(...,
copy_runs=False)` writes every token, the reference tests hold both to. `is_canonical`
(`idlc fmt --check`) makes the same walk but compares the lines with the source as they
are settled and stops at the first that differs.
"""

from __future__ import annotations

import bisect
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar, get_args

from idlc.source import SourceFile, Span
from idlc.syntax import ast

__all__ = ["FormatError", "format_file", "is_canonical"]

_INDENT = 2
_CONTINUATION = 4
_WHITESPACE = frozenset(" \t\f\r\n\ufeff")

_T = TypeVar("_T")

#: `is_canonical` compares lines with the source once this many have been written since
#: the last comparison: often enough to stop within a few items of the first difference,
#: seldom enough to cost next to nothing against the walk (one length test per item, one
#: `join` and one `startswith` per comparison).
_SETTLE_EVERY = 8

# One node's source text as the layout writes it on one line: tokens (the lexer's patterns,
# grammar/idl.lark, each taken whole) with the gap the layout puts between two of them —
# none after `<`, before `;` `,` `<` `>`, or in `[]` and `{}`; one space elsewhere — and a
# `;` followed only by ` }`: a `;` followed by another entry means a body of several
# entries, which the layout explodes over several lines. The text comes from a parsed file,
# so only gaps need checking, not which token may follow which.
# Alternatives in order of frequency (they cannot match the same text; each is taken whole).
_TOKEN = (
    r"(?>[A-Za-z_][A-Za-z0-9_]*+(?:-[A-Za-z_][A-Za-z0-9_]*+)?+"
    r'|"(?:[^"\\\n\r]++|\\[^\n\r])*+"'
    r"|[{}\[\]<>:;,=]"
    r"|->"
    r"|-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][+-]?[0-9]++)?+)"
)
_GAP = (
    r"(?:(?<![;<\[{]) (?![;,<>])|(?=[;,<>])|(?<=<)|(?<=\{) (?!\})|(?<=;) (?=\})"
    r"|(?<=[\[{])(?=[\]}]))"
)
_CANONICAL_RUN = re.compile(f"{_TOKEN}(?:{_GAP}{_TOKEN})*+")
_TYPE_NODES = get_args(ast.TypeExpr)


def format_file(file: ast.File, source: SourceFile, *, copy_runs: bool = True) -> str:
    """The canonical text of `file`, which must have been parsed from `source`.

    `copy_runs=False` writes every token one by one instead of copying the source's
    canonical runs (`_Writer.run`): the same text, slower; the reference for tests.
    """
    writer = _Writer(file, source, copy_runs)
    _Layout(writer, file).file()
    return writer.finish(file.newline)


def is_canonical(file: ast.File, source: SourceFile) -> bool:
    """Whether `source`'s text is already `format_file`'s text (`idlc fmt --check`).

    The same walk as `format_file`, but each line is compared with the source as soon as
    no later step can change it (`_Writer.settle`), and the walk stops at the first line
    that differs: a file that needs formatting is not formatted to its end.
    """
    writer = _Writer(file, source, compare=file.newline)
    try:
        _Layout(writer, file).file()
        writer.settle()
        return writer.finish(file.newline) == source.text
    except _Differs:
        return False


class FormatError(Exception):
    """The AST does not match the source text it is said to come from."""


class _Differs(Exception):
    """A settled line of the output is not the source's (`is_canonical` stops there)."""


class _Writer:
    """Writes tokens and the comments between them, keeping track of lines and indentation.

    `item_indent` is the indentation of the line-level item being written (declaration,
    member, field …); `item_started` tells whether a token of it was written yet, so a line
    broken inside an item continues at `item_indent + _CONTINUATION`.
    """

    def __init__(
        self,
        file: ast.File,
        source: SourceFile,
        copy_runs: bool = True,
        compare: str | None = None,
    ) -> None:
        self.text = source.text
        self.copy_runs = copy_runs
        #: The line ending when lines are compared with the source as they settle
        #: (`is_canonical`), None when the whole text is only built.
        self.compare = compare
        self.settled = 0  # lines[:settled] are known to be the source's first lines
        self.settled_end = 0  # where they end in the source text
        #: `item` compares once `lines` is this long (never when only building).
        self.settle_at = _SETTLE_EVERY if compare is not None else sys.maxsize
        #: Lines from this index on may still move (`ensure_blank_before` may insert a
        #: blank line there); None when every line written so far is final.
        self.movable_from: int | None = None
        self.comments = sorted(file.comments, key=lambda comment: comment.span.start)
        self.comment_starts = [comment.span.start for comment in self.comments]
        self.comment_at = {comment.span.start: comment for comment in self.comments}
        self.doc_starts = _attached_doc_starts(file, self.comments, self.comment_starts)
        self.next_comment = 0
        self.pos = 0  # source offset just after the last token or comment written
        self.lines: list[str] = []
        self.line = ""  # the line being written; "" when none is open
        self.line_indent = 0
        self.item_indent = 0
        self.item_started = False
        self.next_line_indent: int | None = None  # overrides the indentation of a new line
        self.blank_ok = False  # a blank line may precede the next line
        self.want_blank = False  # the layout asks for a blank line before the next item
        self.after_doc = False  # the last line is a doc comment of what follows
        self.decl_first_line = 0  # index in `lines` of the current declaration's first token

    # -- what the layout calls ------------------------------------------------------------

    def token(self, text: str, space: bool = True) -> None:
        """Write the next token of the source, `text`, after the comments before it."""
        start = self._next_token_start()
        if not self.text.startswith(text, start):
            found = self.text[start : start + len(text) + 10]
            raise FormatError(f"expected {text!r} at offset {start}, found {found!r}")
        self._comments_before(start)
        if not self.line:
            self._open_line(self.text[self.pos : start])
        elif space and not self.line.endswith(" "):
            self.line += " "
        if not self.item_started and self.item_indent == 0:
            self.decl_first_line = len(self.lines)
        self.line += text
        self.pos = start + len(text)
        self.item_started = True
        self.after_doc = False

    def run(self, start: int, end: int, space: bool = True) -> bool:
        """Copy the source text [start, end) — the next tokens, one node's or the leading
        ones of a node — as it stands, when that is exactly what writing its tokens one by
        one would give: no comment before its end (so none is due before or inside it, and
        the gap before it is white space only), and its text one canonical line
        (`_CANONICAL_RUN`, which also means that no brace body in it has more entries than
        one). False, and nothing written, otherwise."""
        starts = self.comment_starts
        if (
            not self.copy_runs
            or (self.next_comment < len(starts) and starts[self.next_comment] < end)
            or _CANONICAL_RUN.fullmatch(self.text, start, end) is None
        ):
            return False
        # The first token as `token` writes it; the rest of the line is the source's.
        if not self.line:
            self._open_line(self.text[self.pos : start])
        elif space and not self.line.endswith(" "):
            self.line += " "
        if not self.item_started and self.item_indent == 0:
            self.decl_first_line = len(self.lines)
        self.line += self.text[start:end]
        self.pos = end
        self.item_started = True
        self.after_doc = False
        return True

    def body_copy(self, spans: Sequence[Span], closing: int) -> bool:
        """After the `{` of a body the layout explodes: write its entries (`spans`, each a
        source range the entry's `;` ends or follows) and the `}` as `open_block`, an
        `item` and a `run` per entry and `close_block` would, without a call per entry —
        when there is no comment before the `}` and every entry is one canonical run
        (`_CANONICAL_RUN`) with its `;` right after it. Between entries there is only white
        space then (the parse put the entries there), so the lines are the entries' text at
        the entries' indentation, with a blank line between two entries where the source
        has one (never before the first: `open_block`), and the `}` on a line of its own at
        `closing`. False, and nothing written, otherwise."""
        starts = self.comment_starts
        text = self.text
        if not self.copy_runs or not spans or self.next_line_indent is not None:
            return False
        # A comment before the `}` (the first `}` after the last entry, or one in that
        # comment, which starts before it then).
        if self.next_comment < len(starts) and starts[self.next_comment] < text.find(
            "}", spans[-1].end
        ):
            return False
        indent = " " * (closing + _INDENT)
        run = _CANONICAL_RUN.fullmatch
        copied: list[str] = []
        position = self.pos
        for span in spans:
            start, end = span.start, span.end
            if copied and text.count("\n", position, start) >= 2:
                copied.append("")
            if text[end - 1] != ";":
                if text[end : end + 1] != ";":
                    return False
                end += 1  # an alternative: its `;` is not in its span
            if run(text, start, end) is None:
                return False
            copied.append(indent + text[start:end])
            position = end
        self._close_line()
        self.lines.extend(copied)
        self.pos = position
        brace = self._next_token_start()  # the `}`: white space only before it
        self.line = " " * closing + "}"
        self.line_indent = closing
        self.pos = brace + 1
        self.blank_ok = True
        self.want_blank = False
        self.after_doc = False
        self.item_started = True
        if len(self.lines) >= self.settle_at:
            self.settle()
        return True

    def item(self, indent: int, blank: bool = False) -> None:
        """Start a line-level item (declaration, member, field …) on a new line."""
        self._trailing_comments()
        self._close_line()
        if len(self.lines) >= self.settle_at:
            self.settle()
        self.item_indent = indent
        self.item_started = False
        self.want_blank = blank

    def open_block(self) -> int:
        """After a `{` that opens an exploded body: the indentation of its entries."""
        self.blank_ok = False
        return self.line_indent + _INDENT

    def close_block(self, inner: int, outer_item: tuple[int, bool], closing_indent: int) -> None:
        """Before the `}` of an exploded body: comments left inside it, then a new line."""
        self.item(inner)
        self._comments_before(self._next_token_start())
        self._trailing_comments()
        self._close_line()
        self.item_indent, self.item_started = outer_item
        self.next_line_indent = closing_indent
        self.want_blank = False

    def settle(self) -> None:
        """Compare the lines no later step can change with the source; `_Differs` at the
        first one that is not the source's next line.

        Lines are only ever appended, but for the blank line `ensure_blank_before` may
        insert at `movable_from`, and the blank lines at the end, which `finish` drops: so
        the lines before both are the output's first lines, whatever follows them."""
        lines = self.lines
        end = len(lines) if self.movable_from is None else self.movable_from
        while end > self.settled and not lines[end - 1]:
            end -= 1
        if end <= self.settled:
            self.settle_at = len(lines) + _SETTLE_EVERY
            return
        newline = self.compare
        assert newline is not None
        chunk = newline.join(lines[self.settled : end]) + newline
        if not self.text.startswith(chunk, self.settled_end):
            raise _Differs
        self.settled = end
        self.settled_end += len(chunk)
        self.settle_at = len(lines) + _SETTLE_EVERY

    def decl_line_count(self) -> int:
        """How many lines the declaration just written spans (its leading comments apart)."""
        return len(self.lines) - self.decl_first_line + (1 if self.line else 0)

    def ensure_blank_before(self, index: int) -> None:
        """Make sure a blank line separates `lines[index:]` from what is above."""
        if 0 < index and self.lines[index - 1] and (index == len(self.lines) or self.lines[index]):
            self.lines.insert(index, "")
            self.decl_first_line += 1

    def finish(self, newline: str) -> str:
        self._trailing_comments()
        self._close_line()
        self.item_indent = 0
        self.item_started = False
        self._comments_before(len(self.text) + 1)
        self._close_line()
        while self.lines and not self.lines[-1]:
            self.lines.pop()
        if not self.lines:
            return ""
        return newline.join(self.lines) + newline

    def has_comment_inside(self, start: int, end: int) -> bool:
        """Whether a comment starts strictly inside the source range [start, end)."""
        index = bisect.bisect_right(self.comment_starts, start)
        return index < len(self.comment_starts) and self.comment_starts[index] < end

    # -- lines ----------------------------------------------------------------------------

    def _open_line(self, gap: str) -> None:
        """Open a new line; `gap` is the source text between the last thing and this one."""
        if self.next_line_indent is not None:
            indent = self.next_line_indent
            self.next_line_indent = None
        elif self.item_started:
            indent = self.item_indent + _CONTINUATION
        else:
            indent = self.item_indent
            blank = self.want_blank or gap.count("\n") >= 2
            if blank and self.blank_ok and not self.after_doc and self.lines and self.lines[-1]:
                self.lines.append("")
            self.want_blank = False
        self.line = " " * indent
        self.line_indent = indent
        self.blank_ok = True

    def _close_line(self) -> None:
        if self.line:
            self.lines.append(self.line.rstrip(" "))
            self.line = ""

    # -- comments -------------------------------------------------------------------------

    def _next_token_start(self) -> int:
        text = self.text
        position = self.pos
        while True:
            while position < len(text) and text[position] in _WHITESPACE:
                position += 1
            comment = self.comment_at.get(position)
            if comment is None:
                return position
            position = comment.span.end

    def _comments_before(self, limit: int) -> None:
        while (
            self.next_comment < len(self.comments)
            and self.comments[self.next_comment].span.start < limit
        ):
            self._comment(self.comments[self.next_comment])
            self.next_comment += 1

    def _trailing_comments(self) -> None:
        """Comments on the same source line as the last token, written at the end of its line.

        When the next token is on that source line too, the comments between stay inline,
        before that token (`{ /* a */ b`), wherever the layout breaks the line.
        """
        index = self.next_comment
        if index == len(self.comment_starts) or 0 <= self.text.find(
            "\n", self.pos, self.comment_starts[index]
        ):
            return  # no comment left on the last token's line
        following = self._next_token_start()
        if following < len(self.text) and "\n" not in self.text[self.pos : following]:
            return
        while self.next_comment < len(self.comments) and self.line:
            comment = self.comments[self.next_comment]
            gap = self.text[self.pos : comment.span.start]
            if "\n" in gap or gap.strip(" \t\f\r\ufeff") or comment.span.start in self.doc_starts:
                return
            self._comment(comment)
            self.next_comment += 1

    def _comment(self, comment: ast.Comment) -> None:
        gap = self.text[self.pos : comment.span.start]
        own_line = "\n" in gap or self.pos == 0 or comment.span.start in self.doc_starts
        body = comment.text if comment.is_block else comment.text.rstrip()
        if self.line and not own_line:
            self.line = self.line.rstrip(" ") + " " + body
        else:
            self._close_line()
            self._open_line(gap)
            self.line += body
        self.pos = comment.span.end
        following = self._next_token_start()
        if self.next_comment + 1 < len(self.comments):
            following = min(following, self.comments[self.next_comment + 1].span.start)
        if not comment.is_block or "\n" in comment.text or "\n" in self.text[self.pos : following]:
            self._close_line()
        else:
            self.line += " "
        self.after_doc = comment.span.start in self.doc_starts


def _attached_doc_starts(
    file: ast.File, comments: Sequence[ast.Comment], starts: Sequence[int]
) -> frozenset[int]:
    """The start offsets of the `///` comments that are some node's documentation."""
    if not any(comment.is_doc for comment in comments):
        return frozenset()  # no walk of the tree for a file without any
    attached: set[int] = set()
    for doc in _docs(file):
        index = bisect.bisect_left(starts, doc.span.start)
        while index < len(comments) and comments[index].span.start < doc.span.end:
            if comments[index].is_doc:
                attached.add(comments[index].span.start)
            index += 1
    return frozenset(attached)


def _docs(file: ast.File) -> Iterator[ast.Doc]:
    for decl in file.decls:
        if decl.doc is not None:
            yield decl.doc
        if isinstance(decl, ast.TypeDecl):
            yield from _type_docs(decl.type)
        elif isinstance(decl, ast.InterfaceDecl):
            for member in decl.members:
                if member.doc is not None:
                    yield member.doc
                if isinstance(member, ast.ValueMember):
                    yield from _type_docs(member.type)
                elif isinstance(member, ast.OperationMember):
                    yield from _type_docs(member.input)
                    yield from _type_docs(member.output)


def _type_docs(node: ast.TypeExpr) -> Iterator[ast.Doc]:
    for entry in _entries(node):
        doc = getattr(entry, "doc", None)
        if isinstance(doc, ast.Doc):
            yield doc
    for child in _children(node):
        yield from _type_docs(child)


def _entries(node: ast.TypeExpr) -> Sequence[object]:
    """The entries of a brace body (fields, values, cases, alternatives); () for the rest."""
    if isinstance(node, ast.RecordType):
        return node.fields
    if isinstance(node, ast.EnumType):
        return node.values
    if isinstance(node, ast.VariantType):
        return node.cases
    if isinstance(node, ast.UnionType):
        return node.alternatives
    return ()


def _children(node: ast.TypeExpr) -> tuple[ast.TypeExpr, ...]:
    """The type expressions directly inside `node`."""
    if isinstance(node, (ast.OptionalType, ast.ListType)):
        return (node.inner,)
    if isinstance(node, ast.MapType):
        return (node.value,)
    if isinstance(node, ast.RecordType):
        return tuple(field.type for field in node.fields)
    if isinstance(node, ast.VariantType):
        cases = tuple(case.type for case in node.cases)
        return cases if node.shared is None else (node.shared, *cases)
    if isinstance(node, ast.UnionType):
        return node.alternatives
    return ()


class _Layout:
    """Decides the layout of each node and writes its tokens through a `_Writer`."""

    def __init__(self, writer: _Writer, file: ast.File) -> None:
        self.w = writer
        self.file_node = file

    # -- declarations ---------------------------------------------------------------------

    def file(self) -> None:
        w = self.w
        previous: ast.Decl | None = None
        previous_multiline = False
        for decl in self.file_node.decls:
            blank = previous is not None and (
                type(previous) is not type(decl)
                or isinstance(decl, ast.InterfaceDecl)
                or previous_multiline
            )
            w.item(0, blank)
            start = len(w.lines)
            if isinstance(decl, ast.TypeDecl):
                w.movable_from = start  # a blank line may go before it once it is written
            if isinstance(decl, ast.InterfaceDecl) or not w.run(decl.span.start, decl.span.end):
                self.decl(decl)
            # A typedef spanning several lines stands apart: known once it is written.
            previous_multiline = isinstance(decl, ast.TypeDecl) and (
                w.decl_line_count() > 1 or bool(decl.attributes)
            )
            if previous_multiline and previous is not None:
                w.ensure_blank_before(start)
            w.movable_from = None
            previous = decl

    def _flat(self, node: ast.TypeExpr) -> bool:
        """Whether `node` is written on one line (ignoring comments, checked apart)."""
        entries = _entries(node)
        if len(entries) > 1:
            return False
        return all(self._flat(child) for child in _children(node))

    def attributes(self, written: tuple[ast.Attribute, ...], indent: int) -> None:
        """Each attribute on a line of its own above the item (`_CANONICAL_RUN` knows no
        `@`, so an item with attributes is never copied as one run)."""
        w = self.w
        for attribute in written:
            w.token("@")
            self.name(attribute.name, space=False)
            w.token("(", space=False)
            self.name(attribute.key, space=False)
            w.token("=")
            self.name(attribute.value)
            w.token(")", space=False)
            w.item(indent)

    def decl(self, decl: ast.Decl) -> None:
        w = self.w
        if not isinstance(decl, ast.ImportDecl):
            self.attributes(decl.attributes, 0)
        if isinstance(decl, ast.AtomDecl):
            w.token("external")
            w.token("atom")
            self.name(decl.name)
            w.token("id")
            self.string(decl.id)
            w.token(";", space=False)
        elif isinstance(decl, ast.ImportDecl):
            w.token("import")
            w.token("interface")
            self.name(decl.name)
            w.token(";", space=False)
        elif isinstance(decl, ast.TypeDecl):
            w.token("type")
            self.name(decl.name)
            w.token("=")
            self.type(decl.type)
            w.token(";", space=False)
        else:
            self.interface(decl)

    def interface(self, decl: ast.InterfaceDecl) -> None:
        w = self.w
        if decl.attributes or not w.run(decl.span.start, decl.revision.span.end):  # to `{`
            w.token("interface")
            self.name(decl.name)
            w.token("id")
            self.string(decl.id)
            w.token("revision")
            self.string(decl.revision)
        exploded = bool(decl.members) or w.has_comment_inside(decl.name.span.end, decl.span.end)
        self.body(decl.members, self.member, exploded)

    # -- members --------------------------------------------------------------------------

    def member(self, member: ast.Member) -> None:
        w = self.w
        self.attributes(member.attributes, w.item_indent)
        # Up to the id: one copied run when it is canonical (the rest may hold a body).
        if member.attributes or not w.run(member.span.start, member.id.span.end):
            if member.required:
                w.token("required")
            if isinstance(member, ast.ValueMember):
                w.token("queryable")
                w.token("value")
            elif isinstance(member, ast.RelationMember):
                w.token("queryable")
                w.token("relation")
            else:
                w.token("operation")
            self.name(member.name)
            w.token("id")
            self.string(member.id)
        w.token(":")
        if isinstance(member, ast.ValueMember):
            self.type(member.type)
        elif isinstance(member, ast.RelationMember):
            w.token(member.cardinality.value)
            w.token(member.target.kind.value)
            self.name(member.target.name)
        else:
            self.type(member.input)
            w.token("->")
            self.type(member.output)
        self.binding(member.binding)

    def binding(self, binding: ast.Binding) -> None:
        w = self.w
        w.token("{")
        if w.run(binding.span.start, binding.span.end):
            w.token("}")
            return
        w.token(binding.verb.value)
        w.token("id")
        self.string(binding.id)
        if binding.execution is not None:
            w.token("execution")
            w.token(binding.execution.value)
        w.token(";", space=False)
        w.token("}")

    # -- types ----------------------------------------------------------------------------

    def type(self, node: ast.TypeExpr, space: bool = True) -> None:
        w = self.w
        if w.run(node.span.start, node.span.end, space):
            return
        if isinstance(node, ast.PrimitiveType):
            w.token(node.kind.value, space)
        elif isinstance(node, ast.OptionalType):
            keyword = "nullable" if node.nullable else "optional"
            self.generic(keyword, space, lambda: self.type(node.inner, space=False))
        elif isinstance(node, ast.ListType):
            self.generic("list", space, lambda: self.type(node.inner, space=False))
        elif isinstance(node, ast.MapType):

            def map_arguments() -> None:
                w.token("string", space=False)
                w.token(",", space=False)
                self.type(node.value)

            self.generic("map", space, map_arguments)
        elif isinstance(node, ast.AtomRefType):
            self.generic("atom-ref", space, lambda: self.name(node.atom, space=False))
        elif isinstance(node, ast.InterfaceRefType):
            self.generic("interface-ref", space, lambda: self.name(node.interface, space=False))
        elif isinstance(node, ast.NamedType):
            self.name(node.name, space)
        elif isinstance(node, ast.RecordType):
            if node.open:
                w.token("open", space)
            w.token("record", space or node.open)
            self.body(node.fields, self.field, self._exploded(node))
        elif isinstance(node, ast.EnumType):
            if node.open:
                w.token("open", space)
            w.token("enum", space or node.open)
            self.body(node.values, self.enum_value, self._exploded(node))
        elif isinstance(node, ast.VariantType):
            if node.open:
                w.token("open", space)
            w.token("variant", space or node.open)
            w.token("tag")
            self.string(node.tag_field)
            if node.shared is not None:
                w.token("fields")
                self.body(node.shared.fields, self.field, self._exploded(node.shared))
            self.body(node.cases, self.case, self._exploded(node))
        else:
            w.token("union", space)
            self.body(node.alternatives, self.alternative, self._exploded(node))

    def generic(self, keyword: str, space: bool, arguments: Callable[[], None]) -> None:
        self.w.token(keyword, space)
        self.w.token("<", space=False)
        arguments()
        self.w.token(">", space=False)

    def _exploded(self, node: ast.TypeExpr) -> bool:
        span = node.span
        entries = _entries(node)
        return self.w.has_comment_inside(span.start, span.end) or not (
            len(entries) <= 1
            and not any(getattr(entry, "attributes", ()) for entry in entries)
            and all(self._flat(child) for child in _children(node))
        )

    def body(self, entries: Sequence[_T], write: Callable[[_T], None], exploded: bool) -> None:
        """`{ entries }`: on one line, or one entry per line."""
        w = self.w
        w.token("{")
        if not exploded:
            for entry in entries:
                write(entry)
            w.token("}", space=bool(entries))
            return
        outer_item = (w.item_indent, w.item_started)
        closing_line = w.line_indent
        spans: list[Span] = [entry.span for entry in entries]  # type: ignore[attr-defined]
        if w.body_copy(spans, closing_line):
            return
        inner = w.open_block()
        for entry in entries:
            w.item(inner)
            # An alternative is a type, offered whole by `type` (its `;` is not in its span).
            span: Span = entry.span  # type: ignore[attr-defined]
            if isinstance(entry, _TYPE_NODES) or not w.run(span.start, span.end):
                write(entry)
        w.close_block(inner, outer_item, closing_line)
        w.token("}")

    def field(self, field: ast.Field) -> None:
        w = self.w
        self.attributes(field.attributes, w.item_indent)
        self.name(field.name)
        w.token(":")
        self.type(field.type)
        if field.default is not None:
            w.token("=")
            self.literal(field.default)
        # In the order written: the layout keeps the tokens (and comments between them).
        written = [
            (span.start, text)
            for span, text in (
                (field.lenient, "lenient"),
                (field.skip_invalid, "skip-invalid"),
                (field.null_default, "null-default"),
            )
            if span is not None
        ]
        for _, text in sorted(written):
            w.token(text)
        w.token(";", space=False)

    def enum_value(self, value: ast.EnumValue) -> None:
        self.attributes(value.attributes, self.w.item_indent)
        self.string(value.value)
        self.w.token(";", space=False)

    def case(self, case: ast.VariantCase) -> None:
        w = self.w
        self.attributes(case.attributes, w.item_indent)
        if case.unknown:
            w.token("unknown")
        elif case.tag is None:
            w.token("default")
        else:
            self.string(case.tag)
        w.token(":")
        self.type(case.type)
        w.token(";", space=False)

    def alternative(self, alternative: ast.TypeExpr) -> None:
        self.type(alternative)
        self.w.token(";", space=False)

    # -- leaves ---------------------------------------------------------------------------

    def literal(self, literal: ast.Literal) -> None:
        if literal.kind is ast.LiteralKind.EMPTY_LIST:
            self.w.token("[")
            self.w.token("]", space=False)
        elif literal.kind is ast.LiteralKind.EMPTY_OBJECT:
            self.w.token("{")
            self.w.token("}", space=False)
        else:
            self.w.token(literal.raw)

    def name(self, name: ast.Name, space: bool = True) -> None:
        self.w.token(name.value, space)

    def string(self, string: ast.StringLiteral) -> None:
        self.w.token(string.raw)
