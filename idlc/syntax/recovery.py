"""Syntax error reporting and recovery, so one run reports several syntax errors.

Lark calls a `Recovery` for every error the LALR parser meets. It reports the error (unless
it is the echo of one just reported), then repairs the parse in the cheapest way that lets
the parser go on:

1. pretend a missing `;`, `}` or `>` was there, when that lets the offending token fit;
2. otherwise drop parser states (yacc-style) until the token fits, or drop the token.

Unexpected characters are skipped as one run. Errors are capped so no input, however
broken, can make the parser spin.
"""

from __future__ import annotations

import bisect
import difflib
import re

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from idlc.diagnostics import Diagnostics, codes
from idlc.source import SourceFile
from idlc.syntax import ast
from idlc.syntax.tokens import describe_found, expected_list, spelling

#: Reported syntax errors per file before giving up on the file.
MAX_REPORTED = 20
#: Recovery attempts per file (reported or not) before giving up; bounds the work on junk.
MAX_ATTEMPTS = 500

# Tokens we may pretend were there, tried in this order.
_INSERTABLE = ("SEMI", "RBRACE", "RANGLE")

# Characters that can begin some token; anything else is junk to skip as a run.
_JUNK_RUN = re.compile(r"[^A-Za-z0-9_\"/{}<>\[\]:;,=\-\s]+")
# What matters when skipping a broken item: strings and comments (whose contents do not
# count) and the characters that end items or nest them.
_ITEM_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*"?|//[^\n]*|/\*.*?(?:\*/|\Z)|[{};]', re.DOTALL)
_SIGNIFICANT = re.compile(r"(?:\s+|//[^\n]*|/\*.*?(?:\*/|\Z))*", re.DOTALL)


class TooManyErrors(Exception):
    pass


class Recovery:
    def __init__(
        self, source: SourceFile, diagnostics: Diagnostics, comments: list[ast.Comment]
    ) -> None:
        self.source = source
        self.diagnostics = diagnostics
        self.comments = comments
        self.reported = 0
        self.attempts = 0
        # Errors starting before this offset are echoes of the last one and not reported.
        self.quiet_until = -1
        self.gave_up = False

    # Lark's on_error: return True to go on parsing, False to stop.
    def __call__(self, error: UnexpectedInput) -> bool:
        self.attempts += 1
        if self.attempts > MAX_ATTEMPTS or self.reported >= MAX_REPORTED:
            self.gave_up = True
            raise TooManyErrors
        if isinstance(error, UnexpectedCharacters):
            return self._characters(error)
        if isinstance(error, UnexpectedToken):
            return self._token(error)
        return False

    def finish(self) -> None:
        if self.gave_up:
            self.diagnostics.add(
                codes.TOO_MANY_ERRORS,
                f"too many syntax errors in {self.source.path}; stopped reading it",
                None,
                help="fix the errors above and run again",
            )

    # -- unexpected characters --------------------------------------------------------

    def _characters(self, error: UnexpectedCharacters) -> bool:
        text = self.source.text
        position = error.pos_in_stream
        line_counter = error.interactive_parser.lexer_thread.state.line_ctr  # type: ignore[union-attr]
        if text.startswith('"', position):
            end = _line_end(text, position)
            self._report(
                codes.UNTERMINATED_STRING,
                "unterminated string",
                position,
                end,
                help='close the string with `"` on the same line; write a line break as `\\n`',
            )
            line_counter.feed(text[position:end])
            return True
        if text.startswith("/*", position):
            self._report(
                codes.UNTERMINATED_COMMENT,
                "unterminated block comment",
                position,
                position + 2,
                help="close it with `*/`",
            )
            line_counter.feed(text[position:])
            return True
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
            help=f"expected {expected_list(_expected_terminals(error.interactive_parser))}",
        )
        line_counter.feed(text[position:end])
        return True

    # -- unexpected tokens ------------------------------------------------------------

    def _token(self, error: UnexpectedToken) -> bool:
        token = error.token
        parser = error.interactive_parser
        expected = _expected_terminals(parser)
        if token.type == "$END":
            self._report(
                codes.UNEXPECTED_EOF,
                f"unexpected end of file, expected {expected_list(expected)}",
                len(self.source.text),
                len(self.source.text),
                help=_closing_help(expected),
            )
            return False

        inserted = self._try_insert(parser, token, expected)
        if inserted is not None:
            previous_end = self._previous_token_end(token.start_pos or 0)
            word = spelling(inserted)
            self._report(
                codes.UNEXPECTED_TOKEN,
                f"expected `{word}`, found {describe_found(token.type, str(token))}",
                previous_end,
                previous_end,
                label=f"expected `{word}` here",
                help=f"add `{word}` here",
            )
            return True

        start = token.start_pos or 0
        if start <= self.quiet_until:
            # At the boundary after a skipped item: find the state this token continues.
            if not self._unwind(parser, token):
                self._skip_item(error, start)
            return True
        end = token.end_pos or start
        self._report(
            codes.UNEXPECTED_TOKEN,
            f"expected {expected_list(expected)}, found {describe_found(token.type, str(token))}",
            start,
            end,
            help=_suggest_keyword(str(token), expected) if token.type == "NAME" else None,
        )
        self._skip_item(error, start)
        return True

    def _skip_item(self, error: UnexpectedToken, start: int) -> None:
        """Skip the rest of the broken item (through its `;` or its closing `}`).

        The parser's states are then unwound when the next token arrives (see `_token`).
        """
        text = self.source.text
        end = _item_end(text, start)
        line_counter = error.interactive_parser.lexer_thread.state.line_ctr  # type: ignore[union-attr]
        if end > line_counter.char_pos:
            line_counter.feed(text[line_counter.char_pos : end])
        self.quiet_until = _next_significant(text, end)

    def _try_insert(self, parser: object, token: Token, expected: set[str]) -> str | None:
        for candidate in _INSERTABLE:
            if candidate not in expected or token.type == candidate:
                continue
            trial = parser.copy()  # type: ignore[attr-defined]
            virtual = Token.new_borrow_pos(candidate, spelling(candidate) or "", token)
            try:
                trial.feed_token(virtual)
                trial.feed_token(token)
            except UnexpectedInput:
                continue
            except Exception:
                continue
            parser.feed_token(virtual)  # type: ignore[attr-defined]
            parser.feed_token(token)  # type: ignore[attr-defined]
            return candidate
        return None

    def _unwind(self, parser: object, token: Token) -> bool:
        """Pop parser states until `token` fits and feed it; False if it fits nowhere."""
        state = parser.parser_state  # type: ignore[attr-defined]
        table = state.parse_conf.states
        stack = state.state_stack
        depth = len(stack) - 1
        while depth > 0 and token.type not in table[stack[depth]]:
            depth -= 1
        if token.type not in table[stack[depth]]:
            return False
        del stack[depth + 1 :]
        del state.value_stack[depth:]
        try:
            parser.feed_token(token)  # type: ignore[attr-defined]
        except UnexpectedInput:
            return False
        return True

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
    ) -> None:
        if start <= self.quiet_until:
            return
        self.reported += 1
        self.diagnostics.add(code, message, self.source.span(start, end), help=help, label=label)

    def _previous_token_end(self, offset: int) -> int:
        """Where the last token before `offset` ends, skipping white space and comments."""
        text = self.source.text
        starts = [comment.span.start for comment in self.comments]
        while True:
            while offset > 0 and text[offset - 1].isspace():
                offset -= 1
            index = bisect.bisect_right(starts, offset) - 1
            if index >= 0 and self.comments[index].span.end >= offset > self.comments[index].span.start:
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


def _printable(text: str) -> str:
    return "".join(
        char if char.isprintable() and char != "`" else f"\\u{{{ord(char):x}}}" for char in text
    )


def _expected_terminals(parser: object) -> set[str]:
    """The terminals the parser can take in its current state.

    Taken from the parse table, not from the lexer's error: the contextual lexer folds
    keywords into NAME, so its list would lack them.
    """
    choices = parser.choices()  # type: ignore[attr-defined]
    return {name for name in choices if name.isupper()}


def _closing_help(expected: set[str]) -> str | None:
    if "RBRACE" in expected:
        return "a `}` is missing"
    if "SEMI" in expected:
        return "a `;` is missing"
    return None


def _suggest_keyword(word: str, expected: set[str]) -> str | None:
    keywords = [spelling(name) for name in expected]
    candidates = [keyword for keyword in keywords if keyword and keyword[0].isalpha()]
    match = difflib.get_close_matches(word, candidates, n=1, cutoff=0.75)
    return f"did you mean `{match[0]}`?" if match else None
