"""JSON string escapes, decoded with the position of every bad one."""

from __future__ import annotations

import re
from collections.abc import Callable

_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|.)", re.DOTALL)
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")


def decode(raw: str, report: Callable[[int, int, str, str | None], None]) -> str:
    """Decode a quoted JSON-style string literal.

    `report(start, end, message, help)` is called for every invalid escape, with offsets
    relative to `raw` (the quotes included). Invalid escapes decode to nothing.
    """
    if "\\" not in raw:
        return raw[1:-1]
    decoded = _decode_valid(raw)
    if decoded is not None:
        return decoded
    return decode_reporting(raw, report)


def decode_reporting(raw: str, report: Callable[[int, int, str, str | None], None]) -> str:
    """`decode` one escape at a time, reporting each bad one (the way for invalid literals)."""
    body = raw[1:-1]
    out: list[str] = []
    position = 0
    pending_high: tuple[int, int] | None = None  # (offset in raw, code unit) of a \uD8xx
    for match in _ESCAPE.finditer(body):
        out.append(body[position : match.start()])
        position = match.end()
        escape = match.group(1)
        start, end = match.start() + 1, match.end() + 1
        if escape[0] == "u" and len(escape) == 5:
            unit = int(escape[1:], 16)
            if 0xD800 <= unit <= 0xDBFF:
                if pending_high is not None:
                    report(
                        pending_high[0],
                        pending_high[0] + 6,
                        "lone surrogate `\\u" + f"{pending_high[1]:04X}`",
                        _SURROGATE_HELP,
                    )
                pending_high = (start, unit)
                continue
            if 0xDC00 <= unit <= 0xDFFF:
                if pending_high is not None and pending_high[0] + 6 == start:
                    combined = 0x10000 + ((pending_high[1] - 0xD800) << 10) + (unit - 0xDC00)
                    out.append(chr(combined))
                    pending_high = None
                    continue
                report(start, end, f"lone surrogate `\\u{unit:04X}`", _SURROGATE_HELP)
                continue
            _flush(pending_high, report)
            pending_high = None
            out.append(chr(unit))
            continue
        _flush(pending_high, report)
        pending_high = None
        if escape == "u":
            report(
                start,
                end + min(4, len(body) - position),
                "`\\u` needs four hexadecimal digits",
                "write a code point as `\\u00e9`",
            )
        elif escape in _SIMPLE:
            out.append(_SIMPLE[escape])
        else:
            report(
                start,
                end,
                f"unknown escape `\\{escape}`",
                'valid escapes are \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX',
            )
    _flush(pending_high, report)
    out.append(body[position:])
    return "".join(out)


def _decode_valid(raw: str) -> str | None:
    """A literal whose escapes are all valid, decoded by the C JSON scanner; else None.

    The escapes are JSON's (docs/language.md, "Lexical rules"), so the JSON decoder agrees with
    the loop below on every valid literal and decodes a megabyte of escapes in
    milliseconds, with no list of pieces. It accepts lone surrogates, which the language
    refuses: a result holding one goes the slow way, which reports it.
    """
    import json  # only literals with escapes pay for the import

    try:
        decoded = json.loads(raw, strict=False)
    except ValueError:
        return None
    if not isinstance(decoded, str) or _SURROGATE.search(decoded):
        return None
    return decoded


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_HELP = "a surrogate must be a high (\\uD800–\\uDBFF) and low (\\uDC00–\\uDFFF) pair"


def _flush(
    pending_high: tuple[int, int] | None, report: Callable[[int, int, str, str | None], None]
) -> None:
    if pending_high is not None:
        report(
            pending_high[0],
            pending_high[0] + 6,
            f"lone surrogate `\\u{pending_high[1]:04X}`",
            _SURROGATE_HELP,
        )
