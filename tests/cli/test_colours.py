"""One colour table for everything idlc prints to a terminal (diagnostics and `breaking`)."""

from __future__ import annotations

import inspect

from idlc.breaking import report
from idlc.diagnostics import Diagnostics, codes, render
from idlc.source import SourceFile, SourceMap


def test_diagnostics_take_their_colours_from_the_table() -> None:
    source = SourceFile("a.idl", 'interface I id "i" revision "r" {}\n')
    found = Diagnostics()
    found.add(codes.REVISION_FORMAT, "revision is odd", source.span(28, 31), help="fix it")
    sources = SourceMap()
    sources.add(source)
    text = render.render_human(found, sources, color=True)
    assert f"\x1b[{render.COLOURS['warning']}mwarning[W0001]" in text
    assert f"\x1b[{render.COLOURS['help']}mhelp" in text
    assert render.render_human(found, sources, color=False).count("\x1b[") == 0


def test_breaking_reports_use_the_same_style_and_no_codes_of_their_own() -> None:
    assert vars(report)["Style"] is render.Style
    assert "\\x1b[" not in inspect.getsource(report)
    style = render.Style(True)
    assert style.severity("note", "n") == f"\x1b[{render.COLOURS['note']}mn\x1b[0m"
    assert style.severity("error", "e") == f"\x1b[{render.COLOURS['error']}me\x1b[0m"
