"""Did-you-mean for keywords: a misspelt keyword, or another language's word for one.

Keywords are contextual (docs/language.md, "Lexical rules"): a word that is not the keyword
the parser can take is read as a name. So a misspelt keyword shows up either as a name
where none may stand (`opertion pay …` in an interface, `enum Color` at the top level), or
as a name that was taken — `optinal` is a fine type name — followed by a token that only
fits the keyword (`optinal<string>`). Recovery asks this module for the keyword in both
cases, among the keywords that would fit.
"""

from __future__ import annotations

from collections.abc import Iterable

from idlc.suggest import TYPE_SYNONYMS, closest

#: Words other languages use where this language has a keyword (docs/language.md, "Types",
#: "Declarations" and "Members").
SYNONYMS = {
    "struct": "record", "class": "record", "message": "record", "object": "record",
    "array": "list", "vec": "list", "vector": "list", "seq": "list", "sequence": "list",
    "dict": "map", "dictionary": "map", "hashmap": "map",
    "option": "optional", "maybe": "optional",
    "oneof": "union",
    "service": "interface", "trait": "interface", "protocol": "interface",
    "typedef": "type", "alias": "type",
    "extern": "external",
    "method": "operation", "rpc": "operation", "fn": "operation", "func": "operation",
    "function": "operation",
    **TYPE_SYNONYMS,
}  # fmt: skip

#: Keywords are at most 13 characters long (`interface-ref`).
_LONGEST_TYPO = 24

#: Words that begin a type with a body: at the top level they mean a type declaration.
_TYPE_BODIES = {"record": "record", "enum": "enum", "variant": "variant", "union": "union",
                "open": "open enum"}  # fmt: skip


#: The types `open` may precede (docs/language.md).
_OPENABLE = ("enum", "variant", "record")


def suggest(word: str, keywords: Iterable[str]) -> str | None:
    """The keyword among `keywords` that `word` most likely meant, if any is likely."""
    if len(word) > _LONGEST_TYPO:
        return None  # no typo of a keyword is this long, and comparing it would cost
    options = sorted(keywords)
    lowered = word.lower()
    if lowered in options:
        return lowered  # `Record` for `record`
    synonym = SYNONYMS.get(lowered)
    if synonym in options:
        return synonym
    import difflib  # only a syntax error pays for importing it (8 ms of `idlc check`)

    match = difflib.get_close_matches(lowered, options, n=1, cutoff=0.75)
    if match:
        return match[0]
    # Short keywords are far apart by difflib's ratio: one edit (`mp`), or two letters
    # swapped (`mpa`), is still a typo.
    swaps = {
        lowered[:i] + lowered[i + 1] + lowered[i] + lowered[i + 2 :]
        for i in range(len(lowered) - 1)
    }
    return closest(lowered, options) or next(
        (option for option in options if option in swaps), None
    )


def declaration_help(word: str, name: str | None, keywords: Iterable[str]) -> str | None:
    """Help for a word that cannot begin a declaration or member where one is expected.

    `keywords` are the keywords that can come there; `name` is the word after, if any.
    """
    options = set(keywords)
    lowered = word.lower()
    shown = name or "Name"
    body = _TYPE_BODIES.get(SYNONYMS.get(lowered, lowered))
    if lowered == "open" and name in _OPENABLE:
        body, shown = f"open {name}", "Name"  # `open record Foo {`: the word after is the kind
    if body is not None and "type" in options:
        return f"a type is declared with `type`: `type {shown} = {body} {{ … }};`"
    if lowered == "atom" and "external" in options:
        return f'an atom is declared as `external atom {shown} id "…";`'
    if lowered in ("value", "relation") and "queryable" in options:
        return f"write `queryable {lowered}`: values and relations are always queryable"
    keyword = suggest(word, options)
    return f"did you mean `{keyword}`?" if keyword is not None else None
