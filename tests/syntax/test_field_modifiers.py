"""Field modifiers (docs/language.md, "Forward-compatible fields"): written in any order
after the type and default, each at most once; `idlc fmt` keeps them as written."""

from __future__ import annotations

import itertools

import pytest

from idlc.diagnostics import Diagnostics
from idlc.source import SourceFile
from idlc.syntax.parser import parse

from .support import fmt

MODIFIERS = ("lenient", "skip-invalid", "null-default")


def _field(text: str) -> tuple[object, Diagnostics]:
    diagnostics = Diagnostics()
    tree = parse(SourceFile("input.idl", f"type A = record {{ {text} }};\n"), diagnostics)
    return tree, diagnostics


@pytest.mark.parametrize("order", list(itertools.permutations(MODIFIERS)))
def test_any_order_means_the_same(order: tuple[str, ...]) -> None:
    tree, diagnostics = _field(f"a : list<string> = [] {' '.join(order)};")
    assert tree is not None and not diagnostics.items
    field = tree.decls[0].type.fields[0]  # type: ignore[attr-defined, union-attr]
    assert None not in (field.lenient, field.skip_invalid, field.null_default)
    text = f"type A = record {{ a : list<string> = [] {' '.join(order)}; }};\n"
    assert fmt(text) == text  # kept in the order written


@pytest.mark.parametrize("modifier", MODIFIERS)
def test_a_modifier_written_twice_is_an_error_at_the_second(modifier: str) -> None:
    text = f"a : list<string> = [] {modifier} {modifier};"
    tree, diagnostics = _field(text)
    (error,) = diagnostics.items
    assert error.code.id == "E0003"
    assert error.message == f"`{modifier}` is written twice"
    second = len("type A = record { ") + text.rindex(modifier)
    assert error.span is not None and error.span.start == second
