"""Syntax error reporting and recovery, so one run reports several syntax errors.

The parser calls a `Recovery` for every error it meets. It reports the error (unless it is
the echo of one just reported), then repairs the parse in the cheapest way that lets the
parser go on:

1. pretend a missing `;`, `}` or `>` was there, when that lets the offending token fit;
2. otherwise skip the rest of the broken item (through its `;` or its balanced `{ … }`),
   then pop parser states (yacc-style) until the next token fits, or drop that token.

Unexpected characters are skipped as one run. Errors are capped, so no input, however
broken, can make the parser spin.
"""

from __future__ import annotations

import bisect
import re

from idlc.diagnostics import Diagnostics, Related, codes
from idlc.source import SourceFile
from idlc.syntax import ast, keywords
from idlc.syntax.lalr import END, Parser, Tok
from idlc.syntax.tokens import describe_found, expected_list, spelling

#: Reported syntax errors per file before giving up on the file.
MAX_REPORTED = 20
#: Recovery steps per file (reported or not) before giving up; bounds the work on junk.
MAX_ATTEMPTS = 500

# Tokens we may pretend were there, tried in this order.
_INSERTABLE = ("SEMI", "RBRACE", "RANGLE")
# The token each closing one closes: a missing closer is shown with the opener it lacks.
_OPENERS = {"RBRACE": "LBRACE", "RANGLE": "LANGLE"}

# Characters that can begin some token; anything else is junk to skip as a run.
_JUNK_RUN = re.compile(r"[^A-Za-z0-9_\"/{}<>\[\]:;,=\-\s]+")
# What matters when skipping a broken item: strings and comments (whose contents do not
# count) and the characters that end items or nest them.
# Possessive repeats (`++`, `*+`) keep no backtracking state per character: a plain
# `(?:…|…)*` costs the regex engine hundreds of bytes per character it repeats over, and a
# megabyte string in a broken item cost a gigabyte.
_ITEM_SCAN = re.compile(r'"(?:[^"\\\n]++|\\.)*+"?|//[^\n]*|/\*.*?(?:\*/|\Z)|[{};]', re.DOTALL)
# The word a token follows, and the name after a token (looked at within a few characters).
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_UNICODE_WORD = re.compile(r"\w+")
_LONGEST_KEYWORD = 16  # longer words are not taken for misspelt keywords
_NEXT_NAME = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]{0,63})\b")
_SIGNIFICANT = re.compile(r"(?:\s++|//[^\n]*+|/\*.*?(?:\*/|\Z))*+", re.DOTALL)


class Recovery:
    def __init__(
        self, source: SourceFile, diagnostics: Diagnostics, comments: list[ast.Comment]
    ) -> None:
        self.source = source
        self.diagnostics = diagnostics
        self.comments = comments
        self.reported = 0
        self.attempts = 0
        # Errors at or before this offset are echoes of the last one and not reported.
        self.quiet_until = -1
        self.gave_up = False
        #: Where reading stopped once the budget was spent.
        self.stopped_at = 0

    def _budget(self, position: int) -> bool:
        self.attempts += 1
        if self.attempts > MAX_ATTEMPTS or self.reported >= MAX_REPORTED:
            if not self.gave_up:
                self.gave_up = True
                self.stopped_at = position
            return False
        return True

    def finish(self) -> None:
        if self.gave_up:
            # Said where reading stopped, so an editor shows it in the file (at that place).
            self.diagnostics.add(
                codes.TOO_MANY_ERRORS,
                "too many syntax errors; stopped reading this file here",
                self.source.span(self.stopped_at, self.stopped_at),
                help="fix the errors above and run again",
            )

    # -- unexpected characters --------------------------------------------------------

    def characters(self, parser: Parser, position: int) -> int | None:
        """Report what cannot start a token at `position`; where to go on lexing."""
        if not self._budget(position):
            return None
        text = self.source.text
        if text.startswith('"', position):
            end = _line_end(text, position)
            self._report(
                codes.UNTERMINATED_STRING,
                "unterminated string",
                position,
                end,
                help='close the string with `"` on the same line; write a line break as `\\n`',
            )
            # The string was some item's part: abandon that item, as for a bad token.
            self._resynchronize(parser, Tok("STRING", text[position:end], position, end))
            return parser.position
        if text.startswith("/*", position):
            self._report(
                codes.UNTERMINATED_COMMENT,
                "unterminated block comment",
                position,
                position + 2,
                help="close it with `*/`",
            )
            self.quiet_until = len(text)  # the end of file that follows is no news
            return len(text)
        word = None if text[position].isascii() else _UNICODE_WORD.match(text, position)
        if word is not None:
            return self._non_ascii_name(position, word.end())
        junk = _JUNK_RUN.match(text, position)
        end = junk.end() if junk else position + 1
        shown = text[position:end]
        what = (
            f"unexpected character `{_printable(shown)}`"
            if len(shown) == 1
            else f"unexpected characters `{_printable(shown[:20])}{'…' if len(shown) > 20 else ''}`"
        )
        self._report(
            codes.UNEXPECTED_CHARACTER,
            what,
            position,
            end,
            help=self._hyphenated_keyword_help(parser, position)
            or f"expected {expected_list(parser.expected())}",
        )
        # What follows junk is often the rest of a broken word (`many-unique` where a
        # type is expected); its errors are echoes.
        self.quiet_until = _next_significant(text, end)
        return end

    def _non_ascii_name(self, position: int, end: int) -> int:
        """Report a name with letters beyond ASCII (`Café`, `名前`) as one error; skip it.
        `position` is its first such letter, `end` the end of the name."""
        text = self.source.text
        start = _word_start(text, position)
        name = text[start:end]
        foreign = "".join(char for char in name if not char.isascii())
        what = f"character `{_printable(foreign)}`" if len(foreign) == 1 else "characters"
        ascii_name = _ascii_spelling(name)
        self._report(
            codes.UNEXPECTED_CHARACTER,
            f"non-ASCII {what} in the name `{_printable(name[:40])}`",
            position,
            end,
            label="names are ASCII",
            help="names are ASCII (letters, digits and `_`)"
            + (f"; did you mean `{ascii_name}`?" if ascii_name else ""),
        )
        self.quiet_until = _next_significant(text, end)
        return end

    def _hyphenated_keyword_help(self, parser: Parser, position: int) -> str | None:
        """`atom-rf<Note>`: the words around a `-` spell nearly a hyphenated keyword that
        fits where the first word stands."""
        text = self.source.text
        if not text.startswith("-", position):
            return None
        start = _word_start(text, position)
        after = _WORD.match(text, position + 1)
        depth = parser.depth_of(start)
        if start == position or after is None or depth is None:
            return None
        state = parser.tables.actions[parser.stack[depth]]
        hyphenated = [
            word
            for word, terminal in parser.tables.keywords.items()
            if "-" in word and terminal in state
        ]
        keyword = keywords.suggest(text[start : after.end()], hyphenated)
        return f"did you mean `{keyword}`?" if keyword is not None else None

    # -- unexpected tokens ------------------------------------------------------------

    def token(self, parser: Parser, token: Tok) -> bool:
        """Handle a token the parser cannot take. False stops the parse."""
        if not self._budget(token.start):
            return False
        expected = parser.expected()
        if token.type == END:
            closer = next((closer for closer in _OPENERS if closer in expected), None)
            self._report(
                codes.UNEXPECTED_EOF,
                f"unexpected end of file, expected {expected_list(expected)}",
                token.start,
                token.start,
                help=_closing_help(expected),
                related=self._unclosed(parser, closer) if closer is not None else (),
            )
            return False
        quiet = token.start <= self.quiet_until
        if not quiet:
            if self._misspelt_keyword_before(parser, token, expected):
                return True
            if self._insert_missing(parser, token, expected):
                return True
            self._report(
                codes.UNEXPECTED_TOKEN,
                f"expected {expected_list(expected)}, "
                f"found {describe_found(token.type, token.value)}",
                token.start,
                token.end,
                help=self._keyword_help(token, expected) if token.type == "NAME" else None,
            )
        self._resynchronize(parser, token)
        return True

    def _misspelt_keyword_before(self, parser: Parser, token: Tok, expected: set[str]) -> bool:
        """Repair `optinal<string>`, `struct { … }`, `opne enum`: the word before `token`
        was read as a name, but a keyword like it would have let `token` fit.

        Reports the error at `token` with the keyword to write, then goes on as if the
        keyword had been written, so nothing after it is an echo.
        """
        text = self.source.text
        end = self._previous_token_end(token.start)
        start = end
        while start > 0 and end - start <= _LONGEST_KEYWORD and text[start - 1] in _WORD_CHARACTERS:
            start -= 1
        word = _WORD.fullmatch(text, start, end)
        if word is None or word.group() in parser.tables.keywords:
            return False
        depth = parser.depth_of(start)
        if depth is None:
            return False
        before = parser.stack[: depth + 1]
        readings = [token.type]
        keyword_reading = parser.tables.keywords.get(token.value)
        if keyword_reading is not None and keyword_reading != token.type:
            readings.append(keyword_reading)  # `tag` after `variant`, `enum` after `open`
        fitting: dict[str, tuple[str, str]] = {}
        for terminal in parser.tables.actions[before[-1]]:
            spelled = spelling(terminal)
            if spelled is None or parser.tables.keywords.get(spelled) != terminal:
                continue
            for reading in readings:
                if parser.accepts([terminal, reading], before):
                    fitting[spelled] = (terminal, reading)
                    break
        keyword = keywords.suggest(word.group(), fitting)
        if keyword is None:
            return False
        self._report(
            codes.UNEXPECTED_TOKEN,
            f"expected {expected_list(expected)}, found {describe_found(token.type, token.value)}",
            token.start,
            token.end,
            help=f"did you mean `{keyword}` instead of `{word.group()}`?",
        )
        terminal, reading = fitting[keyword]
        parser.rewind(depth)
        parser.feed(Tok(terminal, keyword, start, end))
        parser.feed(Tok(reading, token.value, token.start, token.end))
        return True

    def _keyword_help(self, token: Tok, expected: set[str]) -> str | None:
        """Help for a word where only keywords (or `}`, or the end) may stand."""
        spellings = [spelling(name) for name in expected]
        words = [word for word in spellings if word and word[0].isalpha()]
        after = _NEXT_NAME.match(self.source.text, token.end)
        return keywords.declaration_help(token.value, after.group(1) if after else None, words)

    def _insert_missing(self, parser: Parser, token: Tok, expected: set[str]) -> bool:
        """Pretend a missing `;`, `}` or `>` was there, if the token then fits."""
        # A word was lexed for the state before the missing token; after it, the same
        # word may be a keyword (`} type B` is `}` then the keyword `type`).
        readings = [token.type]
        keyword = parser.tables.keywords.get(token.value)
        if keyword is not None and keyword != token.type:
            readings.append(keyword)
        for candidate in _INSERTABLE:
            if candidate not in expected:
                continue
            for reading in readings:
                if not parser.accepts([candidate, reading]):
                    continue
                at = self._previous_token_end(token.start)
                word = spelling(candidate) or candidate
                self._report(
                    codes.UNEXPECTED_TOKEN,
                    f"expected `{word}`, found {describe_found(reading, token.value)}",
                    at,
                    at,
                    label=f"expected `{word}` here",
                    help=f"add `{word}` here",
                    related=self._unclosed(parser, candidate),
                )
                parser.feed(Tok(candidate, word, at, at))
                parser.feed(Tok(reading, token.value, token.start, token.end))
                return True
        return False

    def _resynchronize(self, parser: Parser, token: Tok) -> None:
        """Abandon the broken item: back to the list that holds it, past its text.

        The item is a declaration, member, field, enum value, case or union alternative:
        whatever the innermost block (or the file) lists. Its text is skipped from where
        it began, so braces inside it balance; errors right after the skip are echoes and
        stay quiet.
        """
        begun = parser.pop_to_list()
        item_start = token.start if begun is None else min(begun, token.start)
        end = _item_end(self.source.text, item_start)
        if end > token.start:
            parser.position = end
        elif parser.accepts([token.type]):
            parser.position = token.start  # the token closes the list: read it again
        else:
            parser.position = token.end  # nothing can take it: drop it
        self.quiet_until = _next_significant(self.source.text, parser.position)

    # -- helpers ----------------------------------------------------------------------

    def _report(
        self,
        code: codes.Code,
        message: str,
        start: int,
        end: int,
        *,
        help: str | None = None,
        label: str | None = None,
        related: tuple[Related, ...] = (),
    ) -> None:
        if start <= self.quiet_until:
            return
        self.reported += 1
        span = self.source.span(start, end)
        self.diagnostics.add(code, message, span, help=help, label=label, related=related)

    def _unclosed(self, parser: Parser, closer: str) -> tuple[Related, ...]:
        """The `{` (or `<`) that the missing `closer` would close, as a related place.

        A block's opening token stays on the value stack, unreduced, until its rule is
        reduced, which may wait for the token after its closer: a closed block can still
        be there as its `{`, its items and its `}`. Brackets nest, so walking back and
        skipping each closed pair finds the innermost opener still open.
        """
        opener = _OPENERS.get(closer)
        closed = 0
        for value in reversed(parser.values):
            if not isinstance(value, Tok):
                continue  # a reduced rule: its brackets, if any, are balanced
            if value.type == closer:
                closed += 1
            elif value.type == opener:
                if closed == 0:
                    span = self.source.span(value.start, value.end)
                    return (Related(f"this `{value.value}` is not closed", span),)
                closed -= 1
        return ()

    def _previous_token_end(self, offset: int) -> int:
        """Where the last token before `offset` ends, skipping white space and comments."""
        text = self.source.text
        starts = [comment.span.start for comment in self.comments]
        while True:
            while offset > 0 and text[offset - 1].isspace():
                offset -= 1
            index = bisect.bisect_right(starts, offset) - 1
            if (
                index >= 0
                and self.comments[index].span.end >= offset > self.comments[index].span.start
            ):
                offset = self.comments[index].span.start
                continue
            return offset


def _item_end(text: str, start: int) -> int:
    """The offset just past the item that contains `start`: through the first `;` outside
    braces, or through a balanced `{ … }` (and a `;` right after it); a `}` that closes the
    enclosing block ends the item without being part of it."""
    depth = 0
    for match in _ITEM_SCAN.finditer(text, start):
        char = match.group()
        if char == ";" and depth == 0:
            return match.end()
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return match.start()
            depth -= 1
            if depth == 0:
                after = _next_significant(text, match.end())
                return after + 1 if text.startswith(";", after) else match.end()
    return len(text)


def _next_significant(text: str, position: int) -> int:
    """The offset of the next character that is not white space or inside a comment."""
    match = _SIGNIFICANT.match(text, position)
    return match.end() if match else position


def _line_end(text: str, position: int) -> int:
    end = text.find("\n", position)
    end = len(text) if end == -1 else end
    return end - 1 if end > position and text[end - 1] == "\r" else end


def _word_start(text: str, position: int) -> int:
    """Where the ASCII word that ends at `position` begins (`position` if none does)."""
    start = position
    while start > 0 and position - start < 64 and text[start - 1] in _WORD_CHARACTERS:
        start -= 1
    return start


def _ascii_spelling(name: str) -> str | None:
    """`Cafe` for `Café`: the name without its accents, if that leaves a valid name."""
    import unicodedata  # only a name with accents pays for it

    stripped = "".join(
        char for char in unicodedata.normalize("NFKD", name) if not unicodedata.combining(char)
    )
    return stripped if _WORD.fullmatch(stripped) else None


def _printable(text: str) -> str:
    return "".join(
        char if char.isprintable() and char != "`" else f"\\u{{{ord(char):x}}}" for char in text
    )


def _closing_help(expected: set[str]) -> str | None:
    if "RBRACE" in expected:
        return "a `}` is missing"
    if "SEMI" in expected:
        return "a `;` is missing"
    return None
