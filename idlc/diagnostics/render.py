"""Diagnostics as text: for people (like rustc), for tools (JSON lines), for GitHub Actions.

Rendering happens last, against the `SourceMap` of the run, so every stage only creates
`Diagnostic` values and never formats them.
"""

from __future__ import annotations

from collections.abc import Iterable

from idlc.diagnostics import Diagnostic, Severity
from idlc.source import SourceMap, Span

#: Source lines longer than this are shown as a window around the span.
_MAX_SHOWN = 120
_TAB = "    "


#: The one colour table of idlc's terminal output (ANSI SGR codes): diagnostics and
#: `idlc breaking` both style their severities (`error`, `warning`, `note`) and their
#: parts from it.
COLOURS: dict[str, str] = {
    "error": "1;31",
    "warning": "1;33",
    "note": "1;36",
    "bold": "1",
    "gutter": "1;34",
    "help": "1;36",
}


class Style:
    """Colours from `COLOURS`, or plain text when `color` is off."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def severity(self, severity: Severity | str, text: str) -> str:
        name = severity.value if isinstance(severity, Severity) else severity
        return self._wrap(COLOURS[name], text)

    def bold(self, text: str) -> str:
        return self._wrap(COLOURS["bold"], text)

    def gutter(self, text: str) -> str:
        return self._wrap(COLOURS["gutter"], text)

    def help(self, text: str) -> str:
        return self._wrap(COLOURS["help"], text)


def render_human(
    diagnostics: Iterable[Diagnostic], sources: SourceMap, *, color: bool = False
) -> str:
    """All diagnostics, then a summary line (`error: 2 errors, 1 warning`)."""
    style = Style(color)
    items = list(diagnostics)
    if not items:
        return ""
    blocks = [_render_one(diagnostic, sources, style) for diagnostic in items]
    errors = sum(1 for item in items if item.is_error)
    return "\n".join(blocks) + "\n" + _summary(errors, len(items) - errors, style) + "\n"


def _summary(errors: int, warnings: int, style: Style) -> str:
    parts = []
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    severity = Severity.ERROR if errors else Severity.WARNING
    return style.severity(severity, severity.value) + style.bold(": " + ", ".join(parts))


def _render_one(diagnostic: Diagnostic, sources: SourceMap, style: Style) -> str:
    severity = diagnostic.severity
    lines = [
        style.severity(severity, f"{severity.value}[{diagnostic.code.id}]")
        + style.bold(f": {diagnostic.message}")
    ]
    span = diagnostic.span
    width = len(str(max([span.line] + [r.span.line for r in diagnostic.related]))) if span else 1
    if span is not None:
        lines.extend(_snippet(span, diagnostic.label, sources, style, width, "^"))
    for related in diagnostic.related:
        lines.extend(_snippet(related.span, related.message, sources, style, width, "-"))
    if diagnostic.help:
        pad = " " * width
        if span is not None:
            lines.append(style.gutter(f"{pad} |"))
        help_lines = diagnostic.help.splitlines() or [""]
        lines.append(style.gutter(f"{pad} = ") + style.help("help") + f": {help_lines[0]}")
        lines.extend(f"{pad}         {line}" for line in help_lines[1:])
    return "\n".join(lines) + "\n"


def _snippet(
    span: Span, label: str | None, sources: SourceMap, style: Style, width: int, mark: str
) -> list[str]:
    pad = " " * width
    out = [style.gutter(f"{pad}--> ") + f"{span.file}:{span.line}:{span.column}"]
    source = sources.get(span.file)
    if source is None or span.line > source.line_count:
        return out
    begin, finish = source.line_bounds(span.line)
    start = span.column - 1
    end = span.end_column - 1 if span.end_line == span.line else finish - begin
    end = max(end, start + 1)
    shown, caret_start, caret_end = _window(source.text, begin, finish, start, end)
    out.append(style.gutter(f"{pad} |"))
    out.append(style.gutter(f"{span.line:>{width}} | ") + shown)
    carets = style.severity(
        Severity.ERROR if mark == "^" else Severity.WARNING, mark * (caret_end - caret_start)
    )
    label_text = f" {label}" if label else ""
    out.append(style.gutter(f"{pad} | ") + " " * caret_start + carets + label_text)
    return out


def _window(source: str, begin: int, finish: int, start: int, end: int) -> tuple[str, int, int]:
    """The part of the line `source[begin:finish]` to show, with tabs expanded, and the
    caret columns in it (`start`, `end` are columns in the line, from 0).

    Only the part shown is copied: a minified file is one long line, and each of its
    thousands of diagnostics copying all of it made rendering quadratic.
    """
    length = finish - begin
    if length > _MAX_SHOWN:
        left = max(0, start - 40)
        right = min(length, max(end, start + 1) + 40, left + _MAX_SHOWN)
        end = min(end, right)
        prefix = "…" if left > 0 else ""
        suffix = "…" if right < length else ""
        text = prefix + source[begin + left : begin + right] + suffix
        start, end = start - left + len(prefix), end - left + len(prefix)
    else:
        text = source[begin:finish]
    before = _expand(text[:start])
    marked = _expand(text[start:end])
    shown = _expand(text)
    return _printable(shown), len(before), len(before) + max(1, len(marked))


def _expand(text: str) -> str:
    return text.replace("\t", _TAB)


def _printable(text: str) -> str:
    # Control characters would corrupt a terminal; show them as one visible character.
    return "".join(char if char.isprintable() or char == " " else "\ufffd" for char in text)


# -- machine-readable ---------------------------------------------------------------------


def to_json(diagnostic: Diagnostic) -> dict[str, object]:
    span = diagnostic.span
    return {
        "code": diagnostic.code.id,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "span": span.to_json() if span else None,
        "label": diagnostic.label,
        "help": diagnostic.help,
        "related": [
            {"message": related.message, "span": related.span.to_json()}
            for related in diagnostic.related
        ],
    }


def render_json(diagnostics: Iterable[Diagnostic]) -> str:
    """One JSON object per line (JSON Lines), one line per diagnostic."""
    import json  # only `--error-format json` needs it: `idlc check` starts without

    return "".join(
        json.dumps(to_json(diagnostic), ensure_ascii=False) + "\n" for diagnostic in diagnostics
    )


def render_github(diagnostics: Iterable[Diagnostic]) -> str:
    """GitHub Actions workflow commands (`::error file=…,line=…::message`)."""
    out = []
    for diagnostic in diagnostics:
        command = "error" if diagnostic.is_error else "warning"
        properties = [f"title={github_property(diagnostic.code.id + ' ' + diagnostic.code.title)}"]
        span = diagnostic.span
        if span is not None:
            properties = [
                f"file={github_property(span.file)}",
                f"line={span.line}",
                f"col={span.column}",
                f"endLine={span.end_line}",
                f"endColumn={span.end_column}",
                *properties,
            ]
        message = diagnostic.message + (f"\nhelp: {diagnostic.help}" if diagnostic.help else "")
        out.append(f"::{command} {','.join(properties)}::{github_data(message)}\n")
    return "".join(out)


def github_data(text: str) -> str:
    """`text` escaped as the message of a GitHub workflow command."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """`text` escaped as a property value (`file=…`) of a GitHub workflow command."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")
