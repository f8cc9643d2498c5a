"""Did-you-mean suggestions for unknown names, by edit distance.

Only called once a name is known to be unknown, so resolving a correct file never pays for
it; the candidates are the names of the kind the reference needs.

A file with many unknown names against many declared ones must not cost their product (one
with 8,000 of each took half a minute), so candidates come in a `NameIndex`: names by
their lowercase spelling and by length, and a budget of full comparisons per compilation.
While the budget lasts, a query compares the name with every candidate of a near enough
length — exactly the answer of comparing with all of them. After it, a query looks up the
name's one-edit neighbours (and swaps of two adjacent characters) by spelling, which still
finds the usual typo at a cost that does not depend on how many names there are. Only the
first `MAX_SUGGESTED` queries of an index are answered at all: nobody reads the thousandth
suggestion, and the cap keeps the worst case linear.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

#: Queries an index answers; later unknown names get no suggestion.
MAX_SUGGESTED = 200
#: Candidate comparisons an index makes in exact mode before it only looks up neighbours.
SCAN_BUDGET = 50_000
#: Longer names are not looked up by neighbours (their number grows with the square).
MAX_NEIGHBOUR_LENGTH = 48
#: Longer names get no suggestion but one differing in case: comparing two names costs the
#: product of their lengths, and no one mistypes a name of a hundred characters.
MAX_COMPARED_LENGTH = 100


#: Words other languages use for the built-in types (docs/language.md, "Types"): an
#: unknown type spelled so is one of these, whatever the edit distance says (`int` is one
#: letter from `int8`, but means `int64`).
TYPE_SYNONYMS = {
    "str": "string", "text": "string",
    "boolean": "bool",
    "int": "int64", "integer": "int64", "long": "int64", "i8": "int8", "i16": "int16",
    "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
    "u64": "uint64", "uint": "uint64",
    "float": "float64", "double": "float64", "f64": "float64", "number": "float64",
    "void": "unit", "none": "unit", "null": "unit",
    "any": "json", "bytearray": "bytes", "blob": "bytes",
}  # fmt: skip


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance between `a` and `b`, or `limit + 1` once it must exceed `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        best = i
        for j, char_b in enumerate(b, 1):
            cost = 0 if char_a == char_b else 1
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            current.append(value)
            best = min(best, value)
        if best > limit:
            return limit + 1
        previous = current
    return previous[-1]


def bit_parallel_distance(a: str) -> Callable[[str], int]:
    """Levenshtein distance from `a` to any string, computed a column at a time on bit
    vectors (Hyyrö's form of Myers' algorithm): a dozen integer operations per character
    of the other string, which makes comparing one name with thousands affordable."""
    if not a:
        return len
    masks: dict[str, int] = {}
    for i, char in enumerate(a):
        masks[char] = masks.get(char, 0) | (1 << i)
    full = (1 << len(a)) - 1
    last = 1 << (len(a) - 1)
    get = masks.get

    def distance(b: str) -> int:
        positive, negative, score = full, 0, len(a)
        for char in b:
            equal = get(char, 0)
            vertical = equal | negative
            horizontal = (((equal & positive) + positive) ^ positive) | equal
            up = negative | ~(horizontal | positive)
            down = positive & horizontal
            if up & last:
                score += 1
            elif down & last:
                score -= 1
            up = (up << 1) | 1
            down <<= 1
            positive = (down | ~(vertical | up)) & full
            negative = up & vertical & full
        return score

    return distance


def _limit(name: str) -> int:
    """Up to a third of the name's length may differ (at least one character)."""
    return max(1, len(name) // 3)


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate most like `name`, if one is close enough to be a likely typo.

    A candidate differing only in case always qualifies; otherwise up to a third of the
    name's length may differ (at least one character). Ties go to the first candidate.
    """
    lowered = name.lower()
    limit = _limit(name)
    best: str | None = None
    best_distance = limit + 1
    for candidate in candidates:
        if candidate == name:
            continue
        if candidate.lower() == lowered:
            return candidate
        distance = edit_distance(lowered, candidate.lower(), limit)
        if distance < best_distance:
            best, best_distance = candidate, distance
    return best


class NameIndex:
    """Names to suggest from, in order (ties go to the first), indexed for `closest`.

    Answers like `closest(name, names)` while its comparison budget lasts (but that a word
    of another language for a built-in type, `TYPE_SYNONYMS`, gets that type when it is a
    candidate); see the module's docstring for what it does after the budget.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self._names = list(dict.fromkeys(names))
        self._lowered = [name.lower() for name in self._names]
        self._by_spelling: dict[str, list[int]] = {}
        self._by_length: dict[int, list[int]] = {}
        for position, lowered in enumerate(self._lowered):
            self._by_spelling.setdefault(lowered, []).append(position)
            self._by_length.setdefault(len(lowered), []).append(position)
        self._alphabet = "".join(sorted({char for name in self._lowered for char in name}))
        self.budget = SCAN_BUDGET
        self.answered = 0

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def closest(self, name: str) -> str | None:
        if self.answered >= MAX_SUGGESTED:
            return None
        self.answered += 1
        lowered = name.lower()
        for position in self._by_spelling.get(lowered, ()):
            if self._names[position] != name:
                return self._names[position]  # differs only in case
        synonym = TYPE_SYNONYMS.get(lowered)
        if synonym is not None and synonym in self._by_spelling:
            return synonym
        if len(lowered) > MAX_COMPARED_LENGTH:
            return None
        limit = _limit(name)
        shortest, longest = len(lowered) - limit, len(lowered) + limit
        buckets = [
            bucket for length, bucket in self._by_length.items() if shortest <= length <= longest
        ]
        count = sum(len(bucket) for bucket in buckets)
        if count <= self.budget:
            self.budget -= count
            positions: Iterable[int] = (position for bucket in buckets for position in bucket)
        elif len(lowered) <= MAX_NEIGHBOUR_LENGTH:
            positions = {
                position
                for neighbour in _neighbours(lowered, self._alphabet)
                for position in self._by_spelling.get(neighbour, ())
            }
        else:
            return None
        best: tuple[int, int] | None = None
        distance_to = bit_parallel_distance(lowered)
        for position in positions:
            if self._lowered[position] == lowered:
                continue  # the name itself, in another case: handled above
            distance = distance_to(self._lowered[position])
            if distance <= limit and (best is None or (distance, position) < best):
                best = (distance, position)
        return None if best is None else self._names[best[1]]


def _neighbours(word: str, alphabet: str) -> Iterator[str]:
    """Every spelling one deletion, insertion, substitution or adjacent swap from `word`,
    using only characters that some candidate has."""
    for i in range(len(word) + 1):
        head, tail = word[:i], word[i:]
        if tail:
            yield head + tail[1:]
            if len(tail) > 1:
                yield head + tail[1] + tail[0] + tail[2:]
        for char in alphabet:
            yield head + char + tail
            if tail:
                yield head + char + tail[1:]


def did_you_mean(name: str, candidates: NameIndex | Iterable[str]) -> str | None:
    match = (
        candidates.closest(name) if isinstance(candidates, NameIndex) else closest(name, candidates)
    )
    return f"did you mean `{match}`?" if match is not None else None
