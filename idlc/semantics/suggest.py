"""Did-you-mean suggestions for unknown names, by edit distance.

Only called once a name is known to be unknown, so resolving a correct file never pays for
it; the candidates are the names of the kind the reference needs.
"""

from __future__ import annotations

from collections.abc import Iterable


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


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate most like `name`, if one is close enough to be a likely typo.

    A candidate differing only in case always qualifies; otherwise up to a third of the
    name's length may differ (at least one character). Ties go to the first candidate.
    """
    lowered = name.lower()
    limit = max(1, len(name) // 3)
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


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    match = closest(name, candidates)
    return f"did you mean `{match}`?" if match is not None else None
