"""The LALR(1) driver: Lark builds and checks the tables; this module runs them.

Lark's own lexer and parse loop cost about 10 µs per token here (its rules hash and compare
in Python on every reduction); the schemas idlc is used on reach megabytes, so idlc drives
Lark's tables with a loop of its own: one master regular expression, built from the
grammar's own terminal definitions (read a window at a time through the scanner, the same
alternatives grouped for `findall`: docs/benchmarks.md, "The parse: one `findall` per
window"), and a contextual keyword rule identical to Lark's
contextual lexer — a word is a keyword only where the parser can take that keyword, and a
name everywhere else. Every terminal name and spelling the driver uses comes from the
tables (none is written here). Reductions follow Lark's tree-building rules (`RulePlan`,
read from Lark's rules) and call the methods of a builder class — `parser._Builder` builds
the AST — on the builder object each `Parser` is given, so parses share nothing and can run
side by side. tests/syntax/test_lalr_differential.py checks that this driver and Lark's own
LALR parser build identical trees and accept and reject the same inputs;
tests/syntax/test_scanner.py, that the scanner finds the master's tokens, window or not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from operator import itemgetter
from typing import Any, Protocol

from idlc.nodes import node


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


# An action: (True, next state) to shift, or (False, size, rule origin, callback) to reduce;
# a callback takes the parse's builder and the rule's children. The callback is None for a
# `?rule` of one child (its value is the child's, left where it is on the value stack):
# about a quarter of all reductions (`type`, `decl`, `member`), and no call for them.
Action = tuple[Any, ...]
Callback = Callable[[Any, list[Any]], Any]

END = "$END"


@node
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


@node
class TableData:
    """Everything the parser needs, as plain data: built once with Lark, then cached."""

    #: Per state: symbol → (True, next state) or (False, size, rule origin, rule index).
    actions: list[dict[str, tuple[Any, ...]]]
    rules: list[RulePlan]
    start: int
    end: int
    master: str
    scanner: str  # the master's alternatives in three groups, for `findall` (see `Parser`)
    keywords: dict[str, str]  # spelling → terminal, for words (hyphenated ones included)
    punctuation: dict[str, str]  # spelling → terminal
    ignored: frozenset[str]  # terminals that are skipped
    comments: frozenset[str]  # skipped terminals that are reported to `on_comment`
    name: str  # the terminal of names (a word that is no keyword where it stands)
    closers: frozenset[str]  # terminals that end a list of items (`}`, end of file)
    firsts: dict[str, frozenset[str]]  # per rule, the terminals that can begin it
    #: Per state: rule origin → the state after its reduction (the rows' goto entries).
    gotos: list[dict[str, int]]


@node
class Tables:
    actions: list[dict[str, Action]]
    start: int
    end: int
    master: re.Pattern[str]
    scanner: re.Pattern[str]
    keywords: dict[str, str]
    punctuation: dict[str, str]
    ignored: frozenset[str]
    comments: frozenset[str]
    name: str
    closers: frozenset[str]
    #: Per state: rule origin → the state after its reduction (the rows' goto entries).
    gotos: list[dict[str, int]]
    #: Punctuation and keywords: spelling → terminal, in one lookup per spelled token.
    spellings: dict[str, str]
    contextual: frozenset[str]  # the terminals of keywords (names where not taken)

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
    origins = {str(rule.origin.name) for rule in lark.rules}
    keywords: dict[str, str] = {}
    punctuation: dict[str, str] = {}
    patterns: dict[str, str] = {}
    priorities: dict[str, int] = {}
    for terminal in frontend.lexer_conf.terminals:
        pattern = terminal.pattern
        if isinstance(pattern, PatternStr):
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", pattern.value):
                keywords[str(pattern.value)] = str(terminal.name)
            else:
                punctuation[str(pattern.value)] = str(terminal.name)
        else:
            patterns[str(terminal.name)] = str(pattern.to_regexp())
            priorities[str(terminal.name)] = int(terminal.priority)
    ignored = frozenset(str(name) for name in frontend.lexer_conf.ignore)
    # White space (the skipped terminals that match a blank) is matched in front of every
    # token instead of as a token of its own: one regex match and one loop turn less per
    # token. The other skipped terminals are comments.
    spaces = sorted(name for name in ignored if re.fullmatch(patterns[name], " "))
    if len(spaces) != 1:
        raise ValueError(f"expected one skipped white-space terminal, found {spaces}")
    space = patterns.pop(spaces[0])
    # The terminal of names: the pattern every keyword (but a hyphenated one) would match.
    plain = [word for word in keywords if "-" not in word]
    names = sorted(
        name for name, pattern in patterns.items() if all(re.fullmatch(pattern, w) for w in plain)
    )
    if len(names) != 1:
        raise ValueError(f"expected one terminal matching every keyword, found {names}")
    name = names[0]
    word = patterns.pop(name)
    # A word is a name, or a keyword, hyphenated ones (`atom-ref`) included.
    words = f"(?:{word})(?:-(?:{word}))?"
    # By priority; comments first among equals, so `//…` is a comment whatever else starts
    # with `/`.
    ordered = sorted(patterns, key=lambda n: (-priorities[n], n not in ignored, n))
    # Longest first, so `->` is one token.
    spelled = "|".join(re.escape(p) for p in sorted(punctuation, key=len, reverse=True))
    alternatives = [
        *(f"(?P<{n}>{patterns[n]})" for n in ordered),
        f"(?P<PUNCTUATION>{spelled})",
        f"(?P<WORD>{words})",
    ]
    # The scanner: the same alternatives in the same order, in two unnamed groups — the
    # patterns (comments, strings, numbers: which one matched is asked of `master`), then
    # punctuation and words (told apart by their spelling) — after the white space, so
    # that `findall` gives (white space, pattern token, spelled token) per token.
    others = "|".join(f"(?:{patterns[n]})" for n in ordered)
    scanner = f"((?:{space})?)(?:({others})|({spelled}|{words}))?"
    if re.compile(scanner).groups != 3:
        raise ValueError("a terminal's pattern has a capturing group of its own")
    if not comments_are_patterns(ignored - set(spaces), patterns):
        raise ValueError("a skipped terminal other than white space is not a pattern")
    return TableData(
        actions=actions,
        rules=rules,
        start=table.start_states["start"],
        end=table.end_states["start"],
        master=f"(?:{space})?(?:" + "|".join(alternatives) + ")?",
        scanner=scanner,
        keywords=keywords,
        punctuation=punctuation,
        ignored=ignored,
        comments=ignored - {spaces[0]},
        name=name,
        closers=_closers(lark.rules),
        firsts=_firsts(lark.rules),
        gotos=[
            {symbol: entry[1] for symbol, entry in row.items() if entry[0] and symbol in origins}
            for row in actions
        ],
    )


def comments_are_patterns(skipped: AbstractSet[str], patterns: dict[str, str]) -> bool:
    """Whether every skipped terminal but white space is a pattern: the scanner reports
    those in its pattern group, and only there does the parse loop look for comments."""
    return all(name in patterns for name in skipped)


def _firsts(rules: Any) -> dict[str, frozenset[str]]:
    """Per rule (by name), the terminals that can begin it (the FIRST sets)."""
    first: dict[str, set[str]] = {}
    nullable: set[str] = set()
    changed = True
    while changed:
        changed = False
        for rule in rules:
            origin = str(rule.origin.name)
            found = first.setdefault(origin, set())
            size = len(found)
            for symbol in rule.expansion:
                name = str(symbol.name)
                if symbol.is_term:
                    found.add(name)
                    break
                found |= first.get(name, set())
                if name not in nullable:
                    break
            else:
                if origin not in nullable:
                    nullable.add(origin)
                    changed = True
            changed = changed or len(found) != size
    return {name: frozenset(terminals) for name, terminals in first.items()}


def _closers(rules: Any) -> frozenset[str]:
    """The terminals that can follow a list of items (Lark's helper rule of `item*`): the
    terminal after it in a rule, or the end of the text after the start rule's list."""
    found: set[str] = set()
    for rule in rules:
        expansion = rule.expansion
        for index, symbol in enumerate(expansion):
            if symbol.is_term or not symbol.name.startswith("_"):
                continue
            if index + 1 < len(expansion):
                after = expansion[index + 1]
                if after.is_term:
                    found.add(str(after.name))
            elif rule.origin.name == "start":
                found.add(END)
    return frozenset(found)


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


def bind(data: TableData, builder: type) -> Tables:
    """Tables whose reductions call the methods of the class `builder` (on the builder
    object each `Parser` is given); a rule whose method the class lacks yields its
    children as a list."""
    callbacks = [_callback(plan, builder) for plan in data.rules]
    actions: list[dict[str, Action]] = [
        {
            symbol: (
                entry
                if entry[0]
                else (
                    False,
                    entry[1],
                    entry[2],
                    None if _passes_up(data.rules[entry[3]], entry[1]) else callbacks[entry[3]],
                )
            )
            for symbol, entry in row.items()
        }
        for row in data.actions
    ]
    return Tables(
        actions=actions,
        start=data.start,
        end=data.end,
        master=re.compile(data.master),
        scanner=re.compile(data.scanner),
        keywords=data.keywords,
        punctuation=data.punctuation,
        ignored=data.ignored,
        comments=data.comments,
        name=data.name,
        closers=data.closers,
        gotos=data.gotos,
        spellings={**data.punctuation, **data.keywords},
        contextual=frozenset(data.keywords.values()),
    )


def _passes_up(plan: RulePlan, size: int) -> bool:
    """Whether the rule's value is its one child's, as `_callback`'s callback would give."""
    return size == 1 and plan.expand1 and plan.include is None and not plan.trailing


def _callback(plan: RulePlan, builder: type | None) -> Callback:
    appending = _appending(plan)
    if appending is not None:
        return appending
    # A rule without a method of its own (`?decl` always passes its one child up) yields
    # its children, like the list helpers.
    method: Callback | None = (
        getattr(builder, plan.method, None) if plan.method is not None else None
    )
    include = plan.include
    trailing = plan.trailing
    expand1 = plan.expand1
    if method is not None and include is None and not trailing and not expand1:
        return method  # the children as they are: the builder's method is the callback
    if method is not None and include is not None and not trailing and not expand1:
        shaped = _shaped(method, include)
        if shaped is not None:
            return shaped

    def callback(target: Any, children: list[Any]) -> Any:
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
        return children if method is None else method(target, children)

    return callback


def _shaped(method: Callback, include: tuple[tuple[int, bool, int], ...]) -> Callback | None:
    """The callback of a rule with a method whose children need reshaping, in one step
    (`_callback`'s loop gives the same list), or None.

    Placeholders only (`field`, members: absent `[optional]` parts): the children are picked
    by one `itemgetter`, with a `None` appended to pick for each placeholder. One list
    spliced in (`record_type`: `[OPEN] RECORD { field* }`), placeholders or not: the parts
    before and after it picked the same way, the list's items between them.
    """
    splices = [index for index, splice, _ in include if splice]
    placeholders = sum(count for _, _, count in include)
    size = len(include)  # where the appended `None` is
    if not splices and placeholders and size + placeholders > 1:
        picks: list[int] = []
        for index, _, count in include:
            picks.extend([size] * count)
            picks.append(index)
        pick = itemgetter(*picks)

        def with_placeholders(target: Any, children: list[Any]) -> Any:
            children.append(None)
            return method(target, pick(children))  # a tuple: no builder changes its children

        return with_placeholders
    if len(splices) == 1:
        (at,) = splices
        before: list[int] = []
        after: list[int] = []
        for index, _, count in include:
            side = before if index <= at else after
            side.extend([size] * count)
            if index != at:
                side.append(index)
        pick_before, pick_after = _picker(before), _picker(after)

        def with_list(target: Any, children: list[Any]) -> Any:
            children.append(None)
            return method(target, [*pick_before(children), *children[at], *pick_after(children)])

        return with_list
    return None


def _picker(indices: list[int]) -> Callable[[list[Any]], tuple[Any, ...]]:
    """The items at `indices` of a list, as a tuple (an `itemgetter` of one index gives the
    item itself, and one of none cannot be made)."""
    if len(indices) > 1:
        return itemgetter(*indices)
    if indices:
        (index,) = indices
        return lambda items: (items[index],)
    return lambda items: ()


def _appending(plan: RulePlan) -> Callback | None:
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

    def append(target: Any, children: list[Any]) -> Any:
        items: list[Any] = children[0]
        for index in indices:
            items.append(children[index])
        return items

    return append


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


#: How much text one `findall` of the scanner reads at least (characters): enough that a
#: file of the usual size is one window, little enough that the scanner's list of a window
#: stays small and that starting again after recovery does not read the file's rest.
WINDOW = 1 << 16


#: How far past a window's least size its line may run and still be read with it.
LONG_LINE = 1 << 10


def _window_end(text: str, start: int) -> int:
    """Where a scanner window from `start` ends: just after the first line break at least
    `WINDOW` characters on, or at the end of the text. Only a token that may hold a line
    break (a block comment) can run past it."""
    end = text.find("\n", start + WINDOW) + 1
    return end if end else len(text)


def _read(
    tables: Tables, text: str, start: int, size: int
) -> tuple[list[tuple[str, str, str]], int]:
    """The scanner's entries from `start` and where they end (`limit`): a window of at
    least `size` characters, to just after a line break. Where that line runs on for more
    than `LONG_LINE` past it (a minified file, a long run of junk), one token read by the
    master expression instead, as an entry of its own: a window there would cost the rest
    of the line, and recovery starts a new one at every error. `size` is 0 where the
    position moved (after recovery, a cut word): the rest of the line only."""
    end = text.find("\n", start + size) + 1 or len(text)
    if end - start <= size + LONG_LINE:
        return tables.scanner.findall(text, start, end), end
    found = tables.master.match(text, start)
    assert found is not None  # every part of the master expression is optional
    kind = found.lastgroup
    if kind is None:  # no token here: the loop asks `master` again, and recovery runs
        return [(text[start : found.end()], "", "")], found.end() + 1
    token_start, token_end = found.span(kind)
    gap, token = text[start:token_start], text[token_start:token_end]
    spelled = kind in ("PUNCTUATION", "WORD")
    entry = (gap, "" if spelled else token, token if spelled else "")
    return [entry, ("", "", "")], token_end


class Recoverer(Protocol):
    def characters(self, parser: Parser, position: int) -> int | None: ...

    def token(self, parser: Parser, token: Tok) -> bool: ...


class SyntaxStop(Exception):
    """Recovery gave up; what it found is already reported."""


class Parser:
    """One parse of one text. `stack`/`values` are the LALR state and value stacks.

    `builder` is the object whose methods (those of the class the tables were bound to)
    build the values of reductions; it belongs to this parse alone.
    """

    def __init__(
        self,
        tables: Tables,
        text: str,
        on_comment: Callable[[str, int, int], None],
        recovery: Recoverer,
        on_shift: dict[str, Callable[[str, int, int], Any]] | None = None,
        builder: Any = None,
    ) -> None:
        self.tables = tables
        #: Turns tokens of these terminals into values as they are shifted: called with the
        #: token's text, start and end (no `Tok` is made for them).
        self.on_shift = on_shift or {}
        self.builder = builder
        self.text = text
        self.on_comment = on_comment
        self.recovery = recovery
        self.stack: list[int] = [tables.start]
        self.values: list[Any] = []
        self.position = 0
        #: Set when the end of the text is taken: the value of the start rule.
        self.accepted = False
        self.result: Any = None

    # -- the loop ---------------------------------------------------------------------

    def parse(self) -> Any:
        """Tokenise and parse the text; the value of the start rule.

        The tokens come from the scanner (`Tables.scanner`): one `findall` per window of
        text gives (white space, pattern token, spelled token) for every token of it, with
        no match object, span or slice per token; a pattern token (comment, string,
        number) asks `master` which terminal it is, a spelled one (punctuation, word) is
        told by its spelling. A window ends just after a line break (`_window_end`), so
        that no token but a block comment can run past its end, and where the scanner
        finds no token before the window's end `master` says whether it is a token that
        runs past it (the window is read again from there, longer) or an unexpected
        character. The reduce step of `step` runs inline: these are the loop's hot paths.
        The scanner starts again wherever the position moves otherwise: after recovery,
        and after a hyphenated word that is cut before its `-`.
        """
        tables = self.tables
        text = self.text
        length = len(text)
        actions = tables.actions
        keywords = tables.keywords
        spellings = tables.spellings
        contextual = tables.contextual
        gotos = tables.gotos
        ignored = tables.ignored
        comments = tables.comments
        name = tables.name
        finish = tables.end
        scan = tables.scanner.findall
        # The master expression always matches (if only the empty string): never None.
        match: Callable[[str, int], Any] = tables.master.match
        stack = self.stack
        values = self.values
        builder = self.builder
        converter = self.on_shift.get
        new_object = object.__new__
        position = self.position  # where the next entry of `entries` begins
        entries, limit = _read(tables, text, position, WINDOW)
        index = 0
        kind: Any  # a terminal's name (None for a word until it is told)
        while True:
            gap, pattern_token, spelled = entries[index]
            index += 1
            start = position + len(gap)
            if spelled:
                value = spelled
                end = position = start + len(spelled)
                kind = spellings.get(spelled)  # None for a word that is no keyword
                row = actions[stack[-1]]
                action = row.get(kind)
                if action is None and (kind is None or kind in contextual):
                    # A word is a keyword only where the parser can take that keyword.
                    if "-" in spelled:
                        # Not a hyphenated keyword here: only the word before `-`.
                        value = spelled[: spelled.index("-")]
                        end = position = start + len(value)
                        entries, limit = _read(tables, text, end, 0)
                        index = 0
                        kind = keywords.get(value)
                        if kind is None or kind not in row:
                            kind = name
                    else:
                        kind = name
                    action = row.get(kind)
            elif pattern_token:
                value = pattern_token
                end = position = start + len(pattern_token)
                kind = match(text, start).lastgroup
                if kind in ignored:
                    if kind in comments:
                        self.on_comment(value, start, end)
                    continue
                action = actions[stack[-1]].get(kind)
            else:
                # No token: the end of the window or of the text, or something the window
                # cannot tell (a token running past its end) or no token can start with.
                position = self.position = start
                if start >= length:
                    kind = END
                    value = ""
                    end = length
                    action = actions[stack[-1]].get(kind)
                elif start == limit:
                    entries, limit = _read(tables, text, start, WINDOW)
                    index = 0
                    continue
                else:
                    found = match(text, start)
                    if found.lastgroup is not None:
                        # A token longer than the window: read again, up to past its end.
                        limit = _window_end(text, found.end())
                        entries = scan(text, start, limit)
                        index = 0
                        continue
                    resumed = self.recovery.characters(self, start)
                    if resumed is None:
                        raise SyntaxStop
                    self.position = position = resumed
                    entries, limit = _read(tables, text, resumed, 0)
                    index = 0
                    continue
            # The reduce step, as in `step`.
            while action is not None and not action[0]:
                _, size, origin, callback = action
                if callback is None:
                    del stack[-1]  # the one child's value is the rule's: it stays
                else:
                    if size:
                        children = values[-size:]
                        del stack[-size:]
                        del values[-size:]
                    else:
                        children = []
                    values.append(callback(builder, children))
                state = gotos[stack[-1]][origin]
                stack.append(state)
                if state == finish:
                    self.accepted = True
                    self.result = values[-1]
                    self.position = end
                    return self.result
                action = actions[state].get(kind)
            if action is not None:
                stack.append(action[1])
                convert = converter(kind)
                if convert is None:
                    # `Tok(kind, value, start, end)` without its `__init__`'s call.
                    token = new_object(Tok)
                    token.type = kind
                    token.value = value
                    token.start = start
                    token.end = end
                    values.append(token)
                else:
                    values.append(convert(value, start, end))
                continue
            self.position = end
            if not self.recovery.token(self, Tok(kind, value, start, end)):
                raise SyntaxStop
            if self.accepted:
                return self.result
            position = self.position
            entries, limit = _read(tables, text, position, 0)
            index = 0

    def step(self, token: Tok) -> bool:
        """Take one token: reduce as the table says, then shift it, or accept at the end of
        the text (`accepted`, `result`). False when the table has no action for it, after
        the reductions it allowed (recovery starts from there, as Lark's parser would).
        The parse loop and recovery's `feed` both take tokens here: the one reduce step."""
        actions = self.tables.actions
        stack = self.stack
        values = self.values
        kind = token.type
        action = actions[stack[-1]].get(kind)
        if action is None:
            return False
        while not action[0]:
            # The reduce step: the rule's children come off both stacks, its value goes on.
            _, size, origin, callback = action
            if callback is None:
                del stack[-1]  # the one child's value is the rule's: it stays
            else:
                if size:
                    children = values[-size:]
                    del stack[-size:]
                    del values[-size:]
                else:
                    children = []
                values.append(callback(self.builder, children))
            stack.append(actions[stack[-1]][origin][1])
            if stack[-1] == self.tables.end:
                self.accepted = True
                self.result = values[-1]
                return True
            action = actions[stack[-1]].get(kind)
            if action is None:
                return False
        stack.append(action[1])
        convert = self.on_shift.get(kind)
        values.append(token if convert is None else convert(token.value, token.start, token.end))
        return True

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
        closers = self.tables.closers
        while depth > 0 and closers.isdisjoint(actions[self.stack[depth]]):
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
        if not self.step(token):
            raise ValueError(f"{token!r} does not fit here")
