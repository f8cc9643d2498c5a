"""The LALR(1) driver: Lark builds and checks the tables; this module runs them.

Lark's own lexer and parse loop cost about 10 µs per token here (its rules hash and compare
in Python on every reduction); the schemas idlc is used on reach megabytes, so idlc drives
Lark's tables with a loop of its own: one master regular expression, built from the
grammar's own terminal definitions, and a contextual keyword rule identical to Lark's
contextual lexer — a word is a keyword only where the parser can take that keyword, and a
name everywhere else. The callbacks are Lark's (they wrap `parser._Builder`), so the tree
shapes are exactly what the grammar says.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol



class Tok:
    """A token: its terminal name, its text and where it is (character offsets)."""

    __slots__ = ("type", "value", "start", "end")

    def __init__(self, type: str, value: str, start: int, end: int) -> None:
        self.type = type
        self.value = value
        self.start = start
        self.end = end

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"Tok({self.type}, {self.value!r}, {self.start})"


# An action: (True, next state) to shift, or (False, size, rule origin, callback) to reduce.
Action = tuple[Any, ...]

END = "$END"


@dataclass(frozen=True, slots=True)
class RulePlan:
    """How the values of one rule's children become the rule's value (Lark's semantics).

    `include` lists, per child kept, (its index, whether it is a list to splice in, how many
    `None` placeholders of absent `[optional]` parts come before it); `trailing` placeholders
    come after. `method` is the builder's method for the rule, None for the list helpers
    Lark makes of `item*` (they yield a list). `expand1` is `?rule`: one child is passed up.
    """

    method: str | None
    expand1: bool
    include: tuple[tuple[int, bool, int], ...] | None
    trailing: int


@dataclass(frozen=True, slots=True)
class TableData:
    """Everything the parser needs, as plain data: built once with Lark, then cached."""

    #: Per state: symbol → (True, next state) or (False, size, rule origin, rule index).
    actions: list[dict[str, tuple[Any, ...]]]
    rules: list[RulePlan]
    start: int
    end: int
    master: str
    keywords: dict[str, str]  # spelling → terminal, for words (hyphenated ones included)
    punctuation: dict[str, str]  # spelling → terminal
    ignored: frozenset[str]  # terminals that are skipped
    comments: frozenset[str]  # skipped terminals that are reported to `on_comment`


@dataclass(frozen=True, slots=True)
class Tables:
    actions: list[dict[str, Action]]
    start: int
    end: int
    master: re.Pattern[str]
    keywords: dict[str, str]
    punctuation: dict[str, str]
    ignored: frozenset[str]
    comments: frozenset[str]

    def terminals(self, state: int) -> set[str]:
        return {name for name in self.actions[state] if name.isupper() or name == END}


def table_data(lark: Any) -> TableData:
    """Read Lark's LALR tables and rule shapes into `TableData`."""
    from lark.lexer import PatternStr
    from lark.parsers.lalr_analysis import Shift

    frontend = lark.parser
    table = frontend.parser.parser.parse_table
    rule_index: dict[Any, int] = {}
    rules: list[RulePlan] = []
    for rule in lark.rules:
        rule_index[rule] = len(rules)
        rules.append(_plan(rule))
    actions: list[dict[str, tuple[Any, ...]]] = [{} for _ in range(len(table.states))]
    for state, entries in table.states.items():
        row = actions[state]
        for symbol, (kind, argument) in entries.items():
            # Lark's names may be str subclasses (its Token); plain str pickles without Lark.
            if kind is Shift:
                row[str(symbol)] = (True, argument)
            else:
                row[str(symbol)] = (
                    False,
                    len(argument.expansion),
                    str(argument.origin.name),
                    rule_index[argument],
                )
    keywords: dict[str, str] = {}
    punctuation: dict[str, str] = {}
    patterns: dict[str, str] = {}
    for terminal in frontend.lexer_conf.terminals:
        pattern = terminal.pattern
        if isinstance(pattern, PatternStr):
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", pattern.value):
                keywords[str(pattern.value)] = str(terminal.name)
            else:
                punctuation[str(pattern.value)] = str(terminal.name)
        else:
            patterns[str(terminal.name)] = str(pattern.to_regexp())
    ignored = frozenset(str(name) for name in frontend.lexer_conf.ignore)
    # White space is matched in front of every token instead of as a token of its own:
    # one regex match and one loop turn less per token.
    space = patterns.pop("WS")
    regex_terminals = [name for name in patterns if name != "NAME"]
    words = r"[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z_][A-Za-z0-9_]*)?"
    assert re.fullmatch(patterns["NAME"], "a_1") and not re.fullmatch(patterns["NAME"], "a-b")
    alternatives = [
        # Longest first, so `//` is a comment and `->` an arrow.
        *(f"(?P<{name}>{patterns[name]})" for name in _by_priority(regex_terminals, patterns)),
        "(?P<PUNCTUATION>"
        + "|".join(re.escape(p) for p in sorted(punctuation, key=len, reverse=True))
        + ")",
        f"(?P<WORD>{words})",
    ]
    return TableData(
        actions=actions,
        rules=rules,
        start=table.start_states["start"],
        end=table.end_states["start"],
        master=f"(?:{space})?(?:" + "|".join(alternatives) + ")?",
        keywords=keywords,
        punctuation=punctuation,
        ignored=ignored,
        comments=frozenset(name for name in ignored if "COMMENT" in name),
    )


def _plan(rule: Any) -> RulePlan:
    """Lark's ParseTreeBuilder rules for one rule, as data (LALR, placeholders on)."""
    expansion = rule.expansion
    flags = rule.options.empty_indices
    if flags:
        # How many placeholders go before each child (and after the last).
        runs = "".join(str(int(flag)) for flag in flags).split("0")
        before = [len(run) for run in runs]
    else:
        before = [0] * (len(expansion) + 1)
    include: list[tuple[int, bool, int]] = []
    for index, symbol in enumerate(expansion):
        splice = not symbol.is_term and symbol.name.startswith("_")
        include.append((index, bool(splice), before[index]))
    trailing = before[len(expansion)]
    needs_filter = bool(flags) or any(splice for _, splice, _ in include)
    origin = str(rule.alias or rule.origin.name)
    return RulePlan(
        method=None if origin.startswith("_") else origin,
        expand1=bool(rule.options.expand1) and not rule.alias,
        include=tuple(include) if needs_filter else None,
        trailing=trailing,
    )


def bind(data: TableData, builder: Any) -> Tables:
    """Tables whose reductions call `builder`'s methods."""
    callbacks = [_callback(plan, builder) for plan in data.rules]
    actions: list[dict[str, Action]] = [
        {
            symbol: entry if entry[0] else (False, entry[1], entry[2], callbacks[entry[3]])
            for symbol, entry in row.items()
        }
        for row in data.actions
    ]
    return Tables(
        actions=actions,
        start=data.start,
        end=data.end,
        master=re.compile(data.master),
        keywords=data.keywords,
        punctuation=data.punctuation,
        ignored=data.ignored,
        comments=data.comments,
    )


def _callback(plan: RulePlan, builder: Any) -> Callable[[list[Any]], Any]:
    appending = _appending(plan)
    if appending is not None:
        return appending
    # A rule without a method of its own (`?decl` always passes its one child up) yields
    # its children, like the list helpers.
    method: Callable[[list[Any]], Any] | None = (
        getattr(builder, plan.method, None) if plan.method is not None else None
    )
    include = plan.include
    trailing = plan.trailing
    expand1 = plan.expand1

    def callback(children: list[Any]) -> Any:
        if include is not None:
            kept: list[Any] = []
            for index, splice, placeholders in include:
                if placeholders:
                    kept.extend([None] * placeholders)
                if splice:
                    kept.extend(children[index])
                else:
                    kept.append(children[index])
            if trailing:
                kept.extend([None] * trailing)
            children = kept
        if expand1 and len(children) == 1:
            return children[0]
        return children if method is None else method(children)

    return callback


def _appending(plan: RulePlan) -> Callable[[list[Any]], Any] | None:
    """The callback of a list helper's growing rule (`_items: _items item`), or None.

    Lark's semantics splice the list so far into a new list with the item after it; done
    literally, each item copies every item before it, and a file of 100,000 declarations
    took minutes. The list so far is the helper's own value, made by its previous
    reduction and referenced only by the value stack this reduction pops, so the item is
    appended to it in place: the same list, in linear time.
    """
    include = plan.include
    if plan.method is not None or plan.expand1 or include is None or plan.trailing:
        return None
    (first, splice, placeholders), *rest = include
    if (first, splice, placeholders) != (0, True, 0) or any(s or p for _, s, p in rest):
        return None
    indices = tuple(index for index, _, _ in rest)

    def append(children: list[Any]) -> Any:
        items: list[Any] = children[0]
        for index in indices:
            items.append(children[index])
        return items

    return append


def _by_priority(names: list[str], patterns: dict[str, str]) -> list[str]:
    # Comments before anything else starting with `/`.
    order = {"BLOCK_COMMENT": 1, "LINE_COMMENT": 2}
    return sorted(names, key=lambda name: (order.get(name, 3), name))


def _start_of(value: Any) -> int | None:
    if isinstance(value, Tok):
        return value.start
    span = getattr(value, "span", None)
    if span is not None:
        return int(span.start)
    children = getattr(value, "children", None)  # a Lark tree of list items
    if children:
        return _start_of(children[0])
    if isinstance(value, (list, tuple)) and value:
        return _start_of(value[0])
    return None


class Recoverer(Protocol):
    def characters(self, parser: Parser, position: int) -> int | None: ...

    def token(self, parser: Parser, token: Tok) -> bool: ...


class SyntaxStop(Exception):
    """Recovery gave up; what it found is already reported."""


class Parser:
    """One parse of one text. `stack`/`values` are the LALR state and value stacks."""

    def __init__(
        self,
        tables: Tables,
        text: str,
        on_comment: Callable[[str, int, int], None],
        recovery: Recoverer,
        on_shift: dict[str, Callable[[Tok], Any]] | None = None,
    ) -> None:
        self.tables = tables
        #: Turns tokens of these terminals into values as they are shifted.
        self.on_shift = on_shift or {}
        self.text = text
        self.on_comment = on_comment
        self.recovery = recovery
        self.stack: list[int] = [tables.start]
        self.values: list[Any] = []
        self.position = 0

    # -- the loop ---------------------------------------------------------------------

    def parse(self) -> Any:
        tables = self.tables
        text = self.text
        length = len(text)
        actions = tables.actions
        keywords = tables.keywords
        punctuation = tables.punctuation
        ignored = tables.ignored
        comments = tables.comments
        match = tables.master.match
        stack = self.stack
        values = self.values
        on_shift = self.on_shift
        while True:
            position = self.position
            found: Any = match(text, position)  # always matches, maybe only white space
            if found.lastgroup is None:
                # White space up to the end of the text or to an unexpected character.
                position = self.position = found.end()
                if position >= length:
                    token = Tok(END, "", length, length)
                else:
                    resumed = self.recovery.characters(self, position)
                    if resumed is None:
                        raise SyntaxStop
                    self.position = resumed
                    continue
            else:
                kind = found.lastgroup
                position, end = found.span(kind)
                value = text[position:end]
                if kind in ignored:
                    if kind in comments:
                        self.on_comment(value, position, end)
                    self.position = end
                    continue
                if kind == "WORD":
                    row = actions[stack[-1]]
                    terminal = keywords.get(value)
                    if terminal is None or terminal not in row:
                        if "-" in value:
                            # Not a hyphenated keyword here: only the word before `-`.
                            value = value[: value.index("-")]
                            end = position + len(value)
                            terminal = keywords.get(value)
                            if terminal is None or terminal not in row:
                                terminal = "NAME"
                        else:
                            terminal = "NAME"
                    kind = terminal
                elif kind == "PUNCTUATION":
                    kind = punctuation[value]
                token = Tok(kind, value, position, end)
            self.position = token.end
            # Feed the token: reduce as the table says, then shift it (or accept).
            while True:
                action = actions[stack[-1]].get(token.type)
                if action is None:
                    if not self.recovery.token(self, token):
                        raise SyntaxStop
                    break
                if action[0]:
                    stack.append(action[1])
                    convert = on_shift.get(token.type)
                    values.append(token if convert is None else convert(token))
                    break
                _, size, origin, callback = action
                if size:
                    children = values[-size:]
                    del stack[-size:]
                    del values[-size:]
                else:
                    children = []
                result = callback(children)
                stack.append(actions[stack[-1]][origin][1])
                values.append(result)
                if stack[-1] == tables.end:
                    return result

    # -- what recovery uses -----------------------------------------------------------

    def expected(self) -> set[str]:
        """The terminals that can come next. A state's row also lists the lookaheads of
        reductions that fail later, so each is checked by simulation."""
        return {
            terminal
            for terminal in self.tables.terminals(self.stack[-1])
            if self.accepts([terminal])
        }

    def pop_to_list(self) -> int | None:
        """Pop to the innermost state that lists items (it takes `}` or end of file).

        Returns where the first popped value began, None when nothing was popped.
        """
        actions = self.tables.actions
        depth = len(self.stack) - 1
        while depth > 0 and not ("RBRACE" in actions[self.stack[depth]] or END in actions[self.stack[depth]]):
            depth -= 1
        if depth == len(self.stack) - 1:
            return None
        first = self.values[depth]
        start = _start_of(first)
        del self.stack[depth + 1 :]
        del self.values[depth:]
        return start

    def accepts(self, tokens: list[str], stack: list[int] | None = None) -> bool:
        """Whether the terminals `tokens` would be taken in turn from the current state, or
        from the states `stack` (simulated on a copy; nothing is built)."""
        actions = self.tables.actions
        stack = list(self.stack if stack is None else stack)
        for terminal in tokens:
            while True:
                action = actions[stack[-1]].get(terminal)
                if action is None:
                    return False
                if action[0]:
                    stack.append(action[1])
                    break
                size = action[1]
                if size:
                    del stack[-size:]
                stack.append(actions[stack[-1]][action[2]][1])
                if stack[-1] == self.tables.end:
                    return True
        return True

    def depth_of(self, offset: int) -> int | None:
        """The index in `values` of the value that begins at `offset` (the stack holds the
        state before it at the same index), None when no value begins there."""
        for index in range(len(self.values) - 1, -1, -1):
            start = _start_of(self.values[index])
            if start is None:
                continue
            if start <= offset:
                return index if start == offset else None
        return None

    def rewind(self, depth: int) -> None:
        """Drop the values from index `depth` on, and the states pushed with them."""
        del self.stack[depth + 1 :]
        del self.values[depth:]

    def feed(self, token: Tok) -> None:
        """Feed one token for real (recovery uses it for tokens it knows fit)."""
        actions = self.tables.actions
        while True:
            action = actions[self.stack[-1]][token.type]
            if action[0]:
                self.stack.append(action[1])
                convert = self.on_shift.get(token.type)
                self.values.append(token if convert is None else convert(token))
                return
            _, size, origin, callback = action
            children = self.values[-size:] if size else []
            if size:
                del self.stack[-size:]
                del self.values[-size:]
            self.values.append(callback(children))
            self.stack.append(actions[self.stack[-1]][origin][1])
