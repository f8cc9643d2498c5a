"""Helpers shared by the syntax tests: reading, parsing, formatting, comparing modulo spans."""

from __future__ import annotations

import dataclasses
import enum
from collections import Counter
from pathlib import Path

from idlc.diagnostics import Diagnostics
from idlc.nodes import fields_of, is_node
from idlc.source import SourceFile, Span
from idlc.syntax import ast
from idlc.syntax.format import format_file
from idlc.syntax.parser import parse

ROOT = Path(__file__).resolve().parents[2]
VALID = ROOT / "tests" / "corpus" / "valid"
SEEDS = [
    ROOT / "idl" / "quixos" / "agent_directory.idl",
    ROOT / "idl" / "quixos" / "agent_request.idl",
]
#: Every valid corpus file and both seeds, as paths relative to the repository.
INPUTS = [path.relative_to(ROOT) for path in [*sorted(VALID.glob("*.idl")), *SEEDS]]


def read(path: Path) -> str:
    """A file's text exactly as stored (no newline translation)."""
    return (ROOT / path).read_bytes().decode("utf-8")


def parse_text(text: str, path: str = "input.idl") -> tuple[ast.File, Diagnostics]:
    diagnostics = Diagnostics()
    tree = parse(SourceFile(path, text), diagnostics)
    assert tree is not None, [f"{d.code} {d.message} {d.span}" for d in diagnostics]
    return tree, diagnostics


def fmt(text: str, path: str = "input.idl") -> str:
    tree, _ = parse_text(text, path)
    return format_file(tree, SourceFile(path, text))


def strip_spans(node: object) -> object:
    """A comparable form of an AST or model node, without spans and source bookkeeping.

    Fields holding positions (`span`, `spans`, `*_span`; any other span is kept as a mere
    marker), the comments of a `File`
    (compared as a multiset apart) and a model's `sources` (paths and digests) are left
    out. Doc lines lose trailing whitespace, which the formatter drops from `//` comments.
    """
    if isinstance(node, ast.Doc):
        return ("Doc", tuple(line.rstrip() for line in node.lines))
    if isinstance(node, Span):
        return "<span>"  # a modifier's position (`lenient`): only whether it is written counts
    if is_node(node) or (dataclasses.is_dataclass(node) and not isinstance(node, type)):
        kept = []
        names = (
            fields_of(node) if is_node(node) else [f.name for f in dataclasses.fields(node)]  # type: ignore[arg-type]
        )
        for name in names:
            if name in ("span", "spans", "sources") or name.endswith("_span"):
                continue
            if isinstance(node, ast.File) and name in ("comments", "path"):
                continue
            value = getattr(node, name)
            if name == "doc" and isinstance(value, str):
                # A model's doc string: compared line by line without trailing whitespace.
                value = "\n".join(line.rstrip() for line in value.split("\n"))
            kept.append((name, strip_spans(value)))
        return (type(node).__name__, tuple(kept))
    if isinstance(node, (list, tuple)):
        return tuple(strip_spans(item) for item in node)
    if isinstance(node, dict):
        return tuple((key, strip_spans(value)) for key, value in node.items())
    if isinstance(node, enum.Enum):
        return (type(node).__name__, node.value)
    return node


def comment_texts(tree: ast.File) -> Counter[str]:
    """The multiset of a file's comments; `//` comments without trailing whitespace."""
    return Counter(c.text if c.is_block else c.text.rstrip() for c in tree.comments)
