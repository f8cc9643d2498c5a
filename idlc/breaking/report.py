"""`idlc breaking` results as text: for people (like the diagnostics), JSON lines, GitHub.

A change of an interface whose revision stayed the same is an `error`; one of an interface
with a new revision is a `note` (listed, but the command succeeds).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from idlc.breaking.compare import Change, Comparison, InterfaceReport
from idlc.diagnostics.render import Style, github_data, github_property
from idlc.source import SourceMap, Span

__all__ = ["Shown", "render_github", "render_human", "render_json"]

#: Source lines longer than this are shown as a window around the span.
_MAX_SHOWN = 120


@dataclass(frozen=True, slots=True)
class Shown:
    """How to show each side's spans: relabelled spans (git revisions) and their sources."""

    new_sources: SourceMap
    old_sources: SourceMap
    new_span: Callable[[Span | None], Span | None]
    old_span: Callable[[Span | None], Span | None]

    def locate(self, change: Change) -> tuple[Span | None, SourceMap]:
        if change.side == "old":
            return self.old_span(change.span), self.old_sources
        return self.new_span(change.span), self.new_sources


def _severity(report: InterfaceReport) -> str:
    return "error" if report.failing else "note"


def _revision_line(report: InterfaceReport) -> str:
    if report.new_revision is None:
        return f'interface `{report.name}` was removed (revision "{report.old_revision}")'
    if report.revision_changed:
        return (
            f'interface `{report.name}`: revision "{report.old_revision}" → '
            f'"{report.new_revision}"'
        )
    return f'interface `{report.name}`: revision "{report.old_revision}" is unchanged'


def render_human(comparisons: Sequence[Comparison], shown: Shown, *, color: bool = False) -> str:
    """Every change, grouped by interface, then a summary line; "" when nothing changed."""
    style = Style(color)
    blocks: list[str] = []
    for comparison in comparisons:
        for report in comparison.interfaces:
            for change in report.changes:
                blocks.append(_render_one(report, change, shown, style))
    if not blocks:
        return ""
    return "\n".join(blocks) + "\n" + _summary(comparisons, style) + "\n"


def _render_one(report: InterfaceReport, change: Change, shown: Shown, style: Style) -> str:
    severity = _severity(report)
    lines = [
        style.severity(severity, f"{severity}[{change.rule.id}]")
        + style.bold(f": {change.message}")
    ]
    span, sources = shown.locate(change)
    width = len(str(span.line)) if span is not None else 1
    pad = " " * width
    if span is not None:
        lines.append(style.gutter(f"{pad}--> ") + f"{span.file}:{span.line}:{span.column}")
        source = sources.get(span.file)
        if source is not None and span.line <= source.line_count:
            text = source.line_text(span.line).replace("\t", " ")
            start = span.column - 1
            end = span.end_column - 1 if span.end_line == span.line else len(text)
            text, start, end = _window(text, start, max(end, start + 1))
            lines.append(style.gutter(f"{pad} |"))
            lines.append(style.gutter(f"{span.line} | ") + text)
            carets = style.severity(severity, "^" * (end - start))
            lines.append(style.gutter(f"{pad} | ") + " " * start + carets)
        lines.append(style.gutter(f"{pad} |"))
    lines.append(style.gutter(f"{pad} = ") + _revision_line(report))
    lines.append(
        style.gutter(f"{pad} = ")
        + style.help("why")
        + f": {change.rule.name}: {change.rule.explanation}"
    )
    return "\n".join(lines) + "\n"


def _window(text: str, start: int, end: int) -> tuple[str, int, int]:
    """A long line cut to about `_MAX_SHOWN` characters around the span, marked with `…`."""
    if len(text) <= _MAX_SHOWN:
        return text, start, end
    left = max(0, start - 40)
    right = min(len(text), left + _MAX_SHOWN)
    prefix = "…" if left > 0 else ""
    suffix = "…" if right < len(text) else ""
    shown = prefix + text[left:right] + suffix
    start = start - left + len(prefix)
    end = min(end, right) - left + len(prefix)
    return shown, start, max(end, start + 1)


def _summary(comparisons: Sequence[Comparison], style: Style) -> str:
    reports = [report for comparison in comparisons for report in comparison.interfaces]
    failing = [report for report in reports if report.failing]
    total = sum(len(report.changes) for report in reports)
    changes = f"{total} incompatible change{'s' if total != 1 else ''}"
    if failing:
        names = ", ".join(f"`{report.name}`" for report in failing)
        text = f": {changes}; changed or removed without a new revision: {names}"
        return style.severity("error", "error") + style.bold(text)
    return style.severity("note", "note") + style.bold(
        f": {changes}, each in an interface with a new revision"
    )


def _change_json(report: InterfaceReport, change: Change, shown: Shown) -> dict[str, object]:
    span, _ = shown.locate(change)
    return {
        "rule": change.rule.id,
        "name": change.rule.name,
        "severity": _severity(report),
        "interface": report.name,
        "message": change.message,
        "explanation": change.rule.explanation,
        "side": change.side,
        "span": span.to_json() if span is not None else None,
        "oldRevision": report.old_revision,
        "newRevision": report.new_revision,
    }


def render_json(comparisons: Sequence[Comparison], shown: Shown) -> str:
    """One JSON object per line, one line per change."""
    return "".join(
        json.dumps(_change_json(report, change, shown), ensure_ascii=False) + "\n"
        for comparison in comparisons
        for report in comparison.interfaces
        for change in report.changes
    )


def render_github(comparisons: Sequence[Comparison], shown: Shown) -> str:
    """GitHub Actions workflow commands: `::error` for failing changes, `::notice` otherwise.

    A change located on the old side of a git revision names no file (the file and line
    would point into the working tree); its location is in the message instead.
    """
    out: list[str] = []
    for comparison in comparisons:
        for report in comparison.interfaces:
            for change in report.changes:
                command = "error" if report.failing else "notice"
                span, _ = shown.locate(change)
                title = f"{change.rule.id} {change.rule.name}"
                properties = [f"title={github_property(title)}"]
                message = f"{change.message}\n{_revision_line(report)}"
                if span is not None and (change.side == "new" or span is change.span):
                    properties = [
                        f"file={github_property(span.file)}",
                        f"line={span.line}",
                        f"col={span.column}",
                        f"endLine={span.end_line}",
                        f"endColumn={span.end_column}",
                        *properties,
                    ]
                elif span is not None:
                    message += f"\nwas at {span.file}:{span.line}:{span.column}"
                out.append(f"::{command} {','.join(properties)}::{github_data(message)}\n")
    return "".join(out)
