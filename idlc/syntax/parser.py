"""Parse IDL text into an `ast.File`.

The AST is built by `_Builder`, whose methods the LALR driver calls as it reduces (no
intermediate Lark tree: at 4 MB that tree costs about twice the parse, and the garbage
collector doubles it again); each parse has a builder of its own, so parses can run side
by side. Lark builds and checks the tables (`strict=True`, cached); `lalr.Parser` runs them.
Comments are reported by the lexer as it skips them; doc comments are attached to the node
that follows them as that node is built. Syntax errors go through `recovery.Recovery`,
which reports them and lets the parser continue to find more.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import marshal
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from idlc import __version__, cachedir
from idlc.diagnostics import Diagnostics, codes
from idlc.gcpause import paused_gc
from idlc.nodes import fields_of
from idlc.resources import data_dir
from idlc.source import SourceFile, Span
from idlc.syntax import ast, escapes, lalr
from idlc.syntax.lalr import Tok
from idlc.syntax.recovery import Recovery

#: Deeper type nesting than this is refused: nothing real nests this deep, and every
#: later stage walks types recursively.
MAX_TYPE_DEPTH = 64

_PRIMITIVES = {kind.value: kind for kind in ast.PrimitiveKind}
_CARDINALITIES = {kind.value: kind for kind in ast.Cardinality}


class _ParseState:
    """What one parse needs besides the parser: the source, comments seen, problems found."""

    def __init__(self, source: SourceFile, diagnostics: Diagnostics) -> None:
        self.source = source
        self.diagnostics = diagnostics
        self.comments: list[ast.Comment] = []
        self.comment_starts: list[int] = []
        self.attached_docs: set[int] = set()  # start offsets of doc comments used
        self.depths: dict[int, int] = {}  # id(type node) -> nesting depth
        self.has_attributes = False


class _Builder:
    """Builds AST nodes bottom-up as the LALR parser reduces rules.

    Children arrive as the driver's tokens (`lalr.Tok`), None for an absent `[optional]`
    part, or nodes built by the methods below; no tokens are filtered, so every span is
    exact. One builder serves one parse.
    """

    def __init__(self, state: _ParseState) -> None:
        self.state = state
        #: `state.source.span`, looked up once: every node's span is made with it.
        self.new_span = state.source.span

    # -- helpers ----------------------------------------------------------------------

    def _span(self, first: Any, last: Any) -> Span:
        start = first.start if type(first) is Tok else first.span.start
        end = last.end if type(last) is Tok else last.span.end
        return self.new_span(start, end)

    def _token_span(self, token: Tok) -> Span:
        return self.new_span(token.start, token.end)

    def _span_of(self, children: Sequence[Any]) -> Span:
        """From the first child present to the last (an absent `[optional]` part is None)."""
        first = children[0]
        if first is None:
            first = next(child for child in children if child is not None)
        last = children[-1]
        if last is None:
            last = next(child for child in reversed(children) if child is not None)
        start = first.start if type(first) is Tok else first.span.start
        end = last.end if type(last) is Tok else last.span.end
        return self.new_span(start, end)

    def _with_attributes(self, written: list[ast.Attribute] | None, span: Span) -> Span:
        """`span` widened to the first of the attributes written before it, if any."""
        if written is None:
            return span
        return self.new_span(written[0].span.start, span.end)

    def _doc(self, start: int) -> ast.Doc | None:
        """The run of `///` lines directly before offset `start`, if any."""
        state = self.state
        if not state.comment_starts:
            return None  # no comment so far (most nodes of most files)
        index = bisect.bisect_right(state.comment_starts, start) - 1
        text = state.source.text
        lines: list[ast.Comment] = []
        limit = start
        while index >= 0:
            comment = state.comments[index]
            if not comment.is_doc or text[comment.span.end : limit].strip():
                break
            lines.append(comment)
            limit = comment.span.start
            index -= 1
        if not lines:
            return None
        lines.reverse()
        for comment in lines:
            state.attached_docs.add(comment.span.start)
        return ast.Doc(
            tuple(_doc_line(comment.text) for comment in lines),
            lines[0].span.to(lines[-1].span),
        )

    def _depth(self, node: Any, *children: Any) -> Any:
        depths = self.state.depths
        depth = 1
        for child in children:
            inner = depths.pop(id(child), 1)
            if inner >= depth:
                depth = inner + 1
        if depth > MAX_TYPE_DEPTH:
            if depth == MAX_TYPE_DEPTH + 1:
                self.state.diagnostics.add(
                    codes.NESTING_TOO_DEEP,
                    f"type nested more than {MAX_TYPE_DEPTH} levels deep",
                    node.span,
                    help="name an inner part with `type Name = …;`",
                )
            # Stand in a leaf so no later stage has to recurse through the rest.
            leaf = ast.PrimitiveType(ast.PrimitiveKind.JSON, node.span)
            depths[id(leaf)] = depth
            return leaf
        depths[id(node)] = depth
        return node

    # -- comments (reported by the lexer) ---------------------------------------------

    def comment(self, text: str, start: int, end: int) -> None:
        state = self.state
        state.comments.append(ast.Comment(text, state.source.span(start, end)))
        state.comment_starts.append(start)

    # -- leaves -----------------------------------------------------------------------

    # NAME and STRING tokens are turned into nodes as they are shifted (no rule to reduce).

    def NAME(self, value: str, start: int, end: int) -> ast.Name:
        return ast.Name(value, self.new_span(start, end))

    def STRING(self, raw: str, start: int, end: int) -> ast.StringLiteral:
        span = self.new_span(start, end)

        def report(start: int, end: int, message: str, help: str | None) -> None:
            self.state.diagnostics.add(
                codes.INVALID_ESCAPE,
                message,
                self.state.source.span(span.start + start, span.start + end),
                help=help,
            )

        return ast.StringLiteral(escapes.decode(raw, report), raw, span)

    def literal(self, children: list[Any]) -> ast.Literal:
        token = children[0]
        span = self._span_of(children)
        kind = getattr(token, "type", "STRING")
        if kind == "TRUE" or kind == "FALSE":
            return ast.Literal(ast.LiteralKind.BOOL, kind == "TRUE", str(token), span)
        if kind == "LSQB":
            return ast.Literal(ast.LiteralKind.EMPTY_LIST, None, "[]", span)
        if kind == "LBRACE":
            return ast.Literal(ast.LiteralKind.EMPTY_OBJECT, None, "{}", span)
        if isinstance(token, ast.StringLiteral):
            return ast.Literal(ast.LiteralKind.STRING, token.value, token.raw, span)
        text = str(token)
        number: int | float
        if any(mark in text for mark in ".eE"):
            number = float(text)
            if number in (float("inf"), float("-inf")):
                self.state.diagnostics.add(
                    codes.INVALID_NUMBER, f"number `{text}` is too large", span
                )
        else:
            number = int(text)
        return ast.Literal(ast.LiteralKind.NUMBER, number, text, span)

    # -- types ------------------------------------------------------------------------

    # Leaves (primitives, references, named types) have depth 1 and are not recorded.

    def primitive(self, children: list[Tok]) -> Any:
        token = children[0]
        return ast.PrimitiveType(_PRIMITIVES[token.value], self._token_span(token))

    def optional_type(self, children: list[Any]) -> Any:
        return self._depth(ast.OptionalType(children[2], self._span_of(children)), children[2])

    def nullable_type(self, children: list[Any]) -> Any:
        node = ast.OptionalType(children[2], self._span_of(children), nullable=True)
        return self._depth(node, children[2])

    def list_type(self, children: list[Any]) -> Any:
        return self._depth(ast.ListType(children[2], self._span_of(children)), children[2])

    def map_type(self, children: list[Any]) -> Any:
        return self._depth(ast.MapType(children[4], self._span_of(children)), children[4])

    def atom_ref(self, children: list[Any]) -> Any:
        return ast.AtomRefType(children[2], self._span(children[0], children[3]))

    def interface_ref(self, children: list[Any]) -> Any:
        return ast.InterfaceRefType(children[2], self._span(children[0], children[3]))

    def named_type(self, children: list[Any]) -> Any:
        name: ast.Name = children[0]
        return ast.NamedType(name, name.span)

    def record_type(self, children: list[Any]) -> Any:
        fields = tuple(children[3:-1])
        record = ast.RecordType(fields, self._span_of(children), children[0] is not None)
        return self._depth(record, *(f.type for f in fields))

    def field(self, children: list[Any]) -> ast.Field:
        # [attributes] NAME COLON type [EQ literal] [field_modifiers] SEMI, absent parts None.
        name: ast.Name = children[1]
        attributes = children[0]
        start = name.span.start if attributes is None else attributes[0].span.start
        span = self.new_span(start, children[7].end)
        written = children[6]
        if written is None and attributes is None:  # most fields
            return ast.Field(name, children[3], children[5], self._doc(start), span)
        # The modifiers, in any order (`idlc fmt` writes them in one); each at most once.
        modifiers: dict[str, Span] = {}
        for token in written or ():
            token_span = self._token_span(token)
            if token.type in modifiers:
                self.state.diagnostics.add(
                    codes.UNEXPECTED_TOKEN,
                    f"`{token.value}` is written twice",
                    token_span,
                    help=f"remove this `{token.value}`",
                )
            else:
                modifiers[token.type] = token_span
        return ast.Field(
            name,
            children[3],
            children[5],
            self._doc(start),
            span,
            modifiers.get("LENIENT"),
            modifiers.get("SKIP_INVALID"),
            modifiers.get("NULL_DEFAULT"),
            tuple(attributes or ()),
        )

    def attributes(self, children: list[Any]) -> list[ast.Attribute]:
        """The attributes before an item, in the order written."""
        if len(children) == 1:
            return [children[0]]
        written: list[ast.Attribute] = children[0]
        written.append(children[1])
        return written

    def attribute(self, children: list[Any]) -> ast.Attribute:
        # AT NAME LPAR NAME EQ NAME RPAR
        self.state.has_attributes = True
        span = self._span(children[0], children[6])
        return ast.Attribute(children[1], children[3], children[5], span)

    def field_modifiers(self, children: list[Any]) -> list[Any]:
        """The modifier tokens of a field, in the order written."""
        if len(children) == 1:
            return [children[0]]
        written: list[Any] = children[0]
        written.append(children[1])
        return written

    def enum_type(self, children: list[Any]) -> Any:
        return self._depth(
            ast.EnumType(children[0] is not None, tuple(children[3:-1]), self._span_of(children))
        )

    def enum_value(self, children: list[Any]) -> ast.EnumValue:
        value: ast.StringLiteral = children[1]
        attributes = children[0]
        if attributes is None:
            return ast.EnumValue(value, self._doc(value.span.start), self._span(value, children[2]))
        span = self._span(attributes[0], children[2])
        return ast.EnumValue(value, self._doc(span.start), span, tuple(attributes))

    def variant_type(self, children: list[Any]) -> Any:
        shared: ast.RecordType | None = children[4]
        cases: tuple[ast.VariantCase, ...] = tuple(children[6:-1])
        variant = ast.VariantType(
            children[0] is not None, children[3], cases, self._span_of(children), shared
        )
        inner = [case.type for case in cases]
        if shared is not None:
            inner.append(shared)
        return self._depth(variant, *inner)

    def shared_fields(self, children: list[Any]) -> Any:
        fields = tuple(children[2:-1])
        return self._depth(
            ast.RecordType(fields, self._span_of(children)), *(f.type for f in fields)
        )

    def tagged_case(self, children: list[Any]) -> ast.VariantCase:
        tag: ast.StringLiteral = children[1]
        attributes = children[0]
        span = self._with_attributes(attributes, self._span(tag, children[4]))
        return ast.VariantCase(
            tag, children[3], self._doc(span.start), span, attributes=tuple(attributes or ())
        )

    def default_case(self, children: list[Any]) -> ast.VariantCase:
        start = self._token_span(children[0])
        return ast.VariantCase(None, children[2], self._doc(start.start), self._span_of(children))

    def unknown_case(self, children: list[Any]) -> ast.VariantCase:
        start = self._token_span(children[0])
        span = self._span_of(children)
        return ast.VariantCase(None, children[2], self._doc(start.start), span, unknown=True)

    def union_type(self, children: list[Any]) -> Any:
        alternatives = tuple(children[2:-1])
        return self._depth(ast.UnionType(alternatives, self._span_of(children)), *alternatives)

    def union_alternative(self, children: list[Any]) -> Any:
        return children[0]

    # -- members ----------------------------------------------------------------------

    def cardinality(self, children: list[Tok]) -> tuple[ast.Cardinality, Span]:
        token = children[0]
        return _CARDINALITIES[str(token)], self._token_span(token)

    def target(self, children: list[Any]) -> ast.Target:
        kind = ast.TargetKind.ATOM if children[0].type == "ATOM" else ast.TargetKind.INTERFACE
        return ast.Target(kind, children[1], self._span_of(children))

    def execution_binding(self, children: list[Any]) -> ast.Binding:
        verb = children[0]
        return ast.Binding(
            ast.Verb(str(verb)),
            self._token_span(verb),
            children[2],
            ast.Execution(str(children[4])),
            self._span_of(children),
        )

    def notify_binding(self, children: list[Any]) -> ast.Binding:
        verb = children[0]
        return ast.Binding(
            ast.Verb.NOTIFY, self._token_span(verb), children[2], None, self._span_of(children)
        )

    def binding_block(self, children: list[Any]) -> tuple[ast.Binding, Tok]:
        return children[1], children[2]

    def _member_span(self, children: list[Any], close: Tok) -> Span:
        """From the attributes (or `required`, or the keyword) to the binding's `}`."""
        attributes = children[0]
        if attributes is not None:
            return self._span(attributes[0], close)
        return self._span(children[1] if children[1] is not None else children[2], close)

    def value_member(self, children: list[Any]) -> ast.ValueMember:
        # [attributes] [REQUIRED] QUERYABLE VALUE NAME ID STRING COLON type binding_block
        binding, close = children[9]
        span = self._member_span(children, close)
        return ast.ValueMember(
            children[1] is not None,
            children[4],
            children[6],
            children[8],
            binding,
            self._doc(span.start),
            span,
            tuple(children[0] or ()),
        )

    def relation_member(self, children: list[Any]) -> ast.RelationMember:
        # [attributes] [REQUIRED] QUERYABLE RELATION NAME ID STRING COLON cardinality target
        # binding_block
        binding, close = children[10]
        cardinality, cardinality_span = children[8]
        span = self._member_span(children, close)
        return ast.RelationMember(
            children[1] is not None,
            children[4],
            children[6],
            cardinality,
            cardinality_span,
            children[9],
            binding,
            self._doc(span.start),
            span,
            tuple(children[0] or ()),
        )

    def operation_member(self, children: list[Any]) -> ast.OperationMember:
        # [attributes] [REQUIRED] OPERATION NAME ID STRING COLON type ARROW type binding_block
        binding, close = children[10]
        span = self._member_span(children, close)
        return ast.OperationMember(
            children[1] is not None,
            children[3],
            children[5],
            children[7],
            children[9],
            binding,
            self._doc(span.start),
            span,
            tuple(children[0] or ()),
        )

    # -- declarations -----------------------------------------------------------------

    def atom_decl(self, children: list[Any]) -> ast.AtomDecl:
        # [attributes] EXTERNAL ATOM NAME ID STRING SEMI
        span = self._with_attributes(children[0], self._span(children[1], children[6]))
        doc = self._doc(span.start)
        return ast.AtomDecl(children[3], children[5], doc, span, tuple(children[0] or ()))

    def import_decl(self, children: list[Any]) -> ast.ImportDecl:
        span = self._span_of(children)
        return ast.ImportDecl(children[2], self._doc(span.start), span)

    def type_decl(self, children: list[Any]) -> ast.TypeDecl:
        # [attributes] TYPE NAME EQ type SEMI
        span = self._with_attributes(children[0], self._span(children[1], children[5]))
        self.state.depths.pop(id(children[4]), None)
        doc = self._doc(span.start)
        return ast.TypeDecl(children[2], children[4], doc, span, tuple(children[0] or ()))

    def interface_decl(self, children: list[Any]) -> ast.InterfaceDecl:
        # [attributes] INTERFACE NAME ID STRING REVISION STRING LBRACE member* RBRACE
        span = self._with_attributes(children[0], self._span(children[1], children[-1]))
        members = tuple(children[8:-1])
        for member in members:
            for part in _member_types(member):
                self.state.depths.pop(id(part), None)
        return ast.InterfaceDecl(
            children[2],
            children[4],
            children[6],
            members,
            self._doc(span.start),
            span,
            tuple(children[0] or ()),
        )

    def start(self, children: list[Any]) -> tuple[ast.Decl, ...]:
        return tuple(children)


def _member_types(member: ast.Member) -> tuple[ast.TypeExpr, ...]:
    if isinstance(member, ast.OperationMember):
        return member.input, member.output
    if isinstance(member, ast.ValueMember):
        return (member.type,)
    return ()


def _doc_line(text: str) -> str:
    # A line comment runs to `\n`, so in a CRLF file its text ends with `\r`.
    body = text[3:].rstrip("\r")
    return body[1:] if body.startswith(" ") else body


@functools.cache
def _tables() -> lalr.Tables:
    return lalr.bind(_table_data(), _Builder)


def _table_data() -> lalr.TableData:
    """The parse tables: from the cache when the grammar is unchanged, else built by Lark.

    Building (and checking, `strict=True`) takes Lark a quarter of a second and importing
    Lark a tenth; the cached tables load in a few milliseconds, which keeps `idlc check`
    quick to start. The cache is keyed by the grammar, idlc's, Python's and Lark's
    versions (Lark's read from its files: importing it would cost what the cache saves).
    It is stored with `marshal` (tuples, dicts, strings: the tables are plain data), which
    the interpreter has loaded already, where `pickle` would be one more import to start.
    """
    grammar = (data_dir("grammar") / "idl.lark").read_bytes()
    key = hashlib.sha256(
        grammar
        + f"|{__version__}|{_CACHE_FORMAT}|{sys.version}|lark {_lark_version()}".encode()
        + ",".join(fields_of(lalr.TableData)).encode()
    ).hexdigest()[:20]
    name = f"idl-tables-{key}.marshal"
    entries = cachedir.store()
    # Only bytes that passed the folder's keyed digest are unmarshalled (`idlc.cachedir`).
    kept = entries.load(name) if entries is not None else None
    if kept is not None:
        try:
            return _from_plain(marshal.loads(kept))
        except (EOFError, ValueError, TypeError, IndexError, KeyError):
            pass
    data = _build_table_data(grammar.decode("utf-8"))
    if entries is not None:
        entries.store(name, marshal.dumps(_to_plain(data)))  # a refusal costs a rebuild
    return data


def _to_plain(data: lalr.TableData) -> tuple[Any, ...]:
    """`data` as nested tuples, dicts, lists, sets and strings (what `marshal` stores)."""
    values = [getattr(data, name) for name in fields_of(lalr.TableData)]
    values[1] = [(r.method, r.expand1, r.include, r.trailing) for r in data.rules]
    return tuple(values)


def _from_plain(values: Any) -> lalr.TableData:
    """The inverse of `_to_plain`; a `TypeError` or `ValueError` for anything else."""
    if type(values) is not tuple or len(values) != len(fields_of(lalr.TableData)):
        raise ValueError("not a table cache")
    fields = list(values)
    fields[1] = [lalr.RulePlan(*rule) for rule in fields[1]]
    return lalr.TableData(*fields)


def _lark_version() -> str:
    """Lark's `__version__`, read from its `__init__.py` as found on the import path (no
    import: neither of Lark, nor of `importlib.util`, on `idlc check`'s start-up path)."""
    for folder in sys.path:
        try:
            with open(os.path.join(folder or ".", "lark", "__init__.py"), encoding="utf-8") as file:
                text = file.read()
        except (OSError, ValueError):
            continue
        found = _VERSION.search(text)
        return found.group(1) if found else "unknown"
    return "absent"


_VERSION = re.compile(r"""^__version__\s*(?::\s*str\s*)?=\s*["']([^"']+)["']""", re.MULTILINE)


def _build_table_data(grammar: str) -> lalr.TableData:
    from lark import Lark

    lark = Lark(grammar, parser="lalr", lexer="contextual", strict=True, maybe_placeholders=True)
    return lalr.table_data(lark)


_CACHE_FORMAT = 6


def parse(source: SourceFile, diagnostics: Diagnostics) -> ast.File | None:
    """Parse one file. Returns None when it has syntax errors (they are in `diagnostics`)."""
    found = Diagnostics()
    state = _ParseState(source, found)
    builder = _Builder(state)
    recovery = Recovery(source, found, state.comments)
    decls: tuple[ast.Decl, ...] | None = None
    tables = _tables()
    parser = lalr.Parser(
        tables,
        source.text,
        builder.comment,
        recovery,
        {tables.name: builder.NAME, "STRING": builder.STRING},
        builder,
    )
    try:
        with paused_gc():
            decls = parser.parse()
    except lalr.SyntaxStop:
        pass  # recovery gave up; it has reported why
    recovery.finish()
    for comment in state.comments:
        if (
            comment.is_doc
            and comment.span.start not in state.attached_docs
            and not found.has_errors
        ):
            found.add(
                codes.DANGLING_DOC_COMMENT,
                "this doc comment documents nothing",
                comment.span,
                help="put it directly before a declaration, member, field, enum value or "
                "case, or write `//` for an ordinary comment",
            )
    if decls is not None and not decls and not found.has_errors:
        # Legal (a file may be emptied on its way out), but more often a file saved before
        # it was written, or a source list naming the wrong file: say so once.
        found.add(
            codes.EMPTY_FILE,
            "this file declares nothing",
            source.span(0, 0),
            help="add a declaration, or remove the file from the sources",
        )
    diagnostics.extend(found)
    if decls is None or found.has_errors:
        return None
    newline = "\r\n" if "\r\n" in source.text else "\n"
    return ast.File(source.path, decls, tuple(state.comments), newline, state.has_attributes)
