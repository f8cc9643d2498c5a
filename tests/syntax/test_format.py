"""`idlc fmt`: snapshots of the canonical layout, and the properties every output must have.

For every valid corpus file and both seeds: the output is a reviewed snapshot (an `.idl`
file under `__snapshots__/`, byte for byte), formatting it again changes nothing, every
comment survives, and the output means the same (same AST and same resolved model,
modulo spans).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension

from idlc.pipeline import compile_files
from tests.syntax.support import (
    INPUTS,
    ROOT,
    comment_texts,
    fmt,
    parse_text,
    read,
    strip_spans,
)


class IdlSnapshot(SingleFileSnapshotExtension):
    """One `.idl` file per snapshot, bytes as produced (CRLF stays CRLF)."""

    file_extension = "idl"


@pytest.fixture
def idl_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(IdlSnapshot)


def _id(path: Path) -> str:
    return path.name


@pytest.mark.parametrize("path", INPUTS, ids=_id)
def test_formatted_output_is_the_snapshot(path: Path, idl_snapshot: SnapshotAssertion) -> None:
    assert fmt(read(path), str(path)).encode("utf-8") == idl_snapshot


@pytest.mark.parametrize("path", INPUTS, ids=_id)
def test_formatting_is_idempotent(path: Path) -> None:
    once = fmt(read(path), str(path))
    assert fmt(once, str(path)) == once


@pytest.mark.parametrize("path", INPUTS, ids=_id)
def test_every_comment_is_kept(path: Path) -> None:
    text = read(path)
    before, _ = parse_text(text)
    after, _ = parse_text(fmt(text))
    assert comment_texts(after) == comment_texts(before)


@pytest.mark.parametrize("path", INPUTS, ids=_id)
def test_output_has_the_same_syntax_tree(path: Path) -> None:
    text = read(path)
    before, before_diagnostics = parse_text(text)
    after, after_diagnostics = parse_text(fmt(text))
    assert strip_spans(after) == strip_spans(before)
    # Warnings too: a doc comment that documented nothing still documents nothing.
    assert [d.code for d in after_diagnostics] == [d.code for d in before_diagnostics]


@pytest.mark.parametrize("path", INPUTS, ids=_id)
def test_output_has_the_same_resolved_model(path: Path, tmp_path: Path) -> None:
    formatted = tmp_path / path.name
    formatted.write_bytes(fmt(read(path)).encode("utf-8"))
    original = compile_files([ROOT / path])
    again = compile_files([formatted])
    assert original.model is not None, list(original.diagnostics)
    assert again.model is not None, list(again.diagnostics)
    assert strip_spans(again.model) == strip_spans(original.model)
    assert [d.code for d in again.diagnostics] == [d.code for d in original.diagnostics]


@pytest.mark.parametrize("path", INPUTS, ids=_id)
def test_output_keeps_the_line_ending_and_ends_with_one(path: Path) -> None:
    text = read(path)
    out = fmt(text)
    newline = "\r\n" if "\r\n" in text else "\n"
    assert out.endswith(newline) and not out.endswith(newline * 2)
    if newline == "\r\n":
        assert "\n" not in out.replace("\r\n", "")
    else:
        assert "\r" not in out
    assert all(line == line.rstrip() for line in out.split(newline))


# -- layout rules -------------------------------------------------------------------------


def test_short_records_stay_on_one_line_and_longer_ones_explode() -> None:
    text = "type A = record {};type B = record {a:string;};type C = record {a:string;b:uint32=3;};"
    assert fmt(text) == (
        "type A = record {};\n"
        "type B = record { a : string; };\n"
        "\n"
        "type C = record {\n"
        "  a : string;\n"
        "  b : uint32 = 3;\n"
        "};\n"
    )


def test_a_one_field_record_holding_a_longer_one_explodes() -> None:
    assert fmt("type A = record {a: optional<record {x: string; y: string;}>;};") == (
        "type A = record {\n"
        "  a : optional<record {\n"
        "    x : string;\n"
        "    y : string;\n"
        "  }>;\n"
        "};\n"
    )


def test_enums_variants_and_unions_follow_the_same_rule() -> None:
    text = (
        'type E = open enum {"a";};type F = enum {"a";"b";};'
        'type V = open variant tag "t" {"a": record {x:string;}; default: unit;};'
        "type U = union {string;};type W = union {E;F;};"
    )
    assert fmt(text) == (
        'type E = open enum { "a"; };\n'
        "\n"
        "type F = enum {\n"
        '  "a";\n'
        '  "b";\n'
        "};\n"
        "\n"
        'type V = open variant tag "t" {\n'
        '  "a" : record { x : string; };\n'
        "  default : unit;\n"
        "};\n"
        "\n"
        "type U = union { string; };\n"
        "\n"
        "type W = union {\n"
        "  E;\n"
        "  F;\n"
        "};\n"
    )


def test_declarations_are_grouped_by_kind_and_interfaces_stand_apart() -> None:
    text = (
        'external atom A id "a";external atom B id "b";import interface I;import interface J;'
        "type T = string;type U = list<T>;"
        'interface K id "k" revision "k@1" {}interface L id "l" revision "l@1" {}'
        'external atom C id "c";'
    )
    assert fmt(text) == (
        'external atom A id "a";\n'
        'external atom B id "b";\n'
        "\n"
        "import interface I;\n"
        "import interface J;\n"
        "\n"
        "type T = string;\n"
        "type U = list<T>;\n"
        "\n"
        'interface K id "k" revision "k@1" {}\n'
        "\n"
        'interface L id "l" revision "l@1" {}\n'
        "\n"
        'external atom C id "c";\n'
    )


def test_members_one_per_line_in_the_seeds_shape() -> None:
    text = (
        'interface K id "k" revision "k@1" {\n'
        'required queryable value v id "v":string{get id "v:get" execution snapshot;}\n'
        '   queryable relation r id "r" :many-unique atom A{resolve id "r:resolve" execution snapshot;}'
        'operation o id "o":map<string,json>->unit{notify id "o:notify";}}'
    )
    assert fmt(text) == (
        'interface K id "k" revision "k@1" {\n'
        '  required queryable value v id "v" : string { get id "v:get" execution snapshot; }\n'
        '  queryable relation r id "r" : many-unique atom A { resolve id "r:resolve" execution snapshot; }\n'
        '  operation o id "o" : map<string, json> -> unit { notify id "o:notify"; }\n'
        "}\n"
    )


def test_one_blank_line_between_items_is_kept_none_at_block_start() -> None:
    text = (
        "type A = record {\n\n\n  a: string;\n\n\n\n  b: string;\n  c: string;\n\n};\n\n\n"
        "type B = string;\n"
    )
    assert fmt(text) == (
        "type A = record {\n"
        "  a : string;\n"
        "\n"
        "  b : string;\n"
        "  c : string;\n"
        "};\n"
        "\n"
        "type B = string;\n"
    )


def test_field_defaults_and_strings_are_written_as_they_were() -> None:
    text = (
        'type A = record {a:string="caf\\u00e9 \\"q\\" \\\\ \\/ ✓";b:float64=-1.5E+3;'
        "c:list<string>=[ ];d:bool=true;};"
    )
    assert fmt(text) == (
        "type A = record {\n"
        '  a : string = "caf\\u00e9 \\"q\\" \\\\ \\/ ✓";\n'
        "  b : float64 = -1.5E+3;\n"
        "  c : list<string> = [];\n"
        "  d : bool = true;\n"
        "};\n"
    )


def test_crlf_stays_crlf_and_tabs_and_bom_go() -> None:
    text = "\ufeff// c\r\ntype\tA\t=\tstring;\r\n\r\n\r\ntype B = string;"
    assert fmt(text) == "// c\r\ntype A = string;\r\n\r\ntype B = string;\r\n"


def test_empty_file_stays_empty() -> None:
    assert fmt("") == ""
    assert fmt(" \n\t\n") == ""


# -- comments -----------------------------------------------------------------------------


def test_doc_comments_stand_directly_above_their_node() -> None:
    text = (
        "/// T\n\n/// is documented\n\ntype T = record { /// a\n a: string; /// b (trailing, but it documents b)\n"
        ' b: enum { /// x\n "x"; "y"; }; };'
    )
    assert fmt(text) == (
        "/// T\n"
        "/// is documented\n"
        "type T = record {\n"
        "  /// a\n"
        "  a : string;\n"
        "  /// b (trailing, but it documents b)\n"
        "  b : enum {\n"
        "    /// x\n"
        '    "x";\n'
        '    "y";\n'
        "  };\n"
        "};\n"
    )
    tree, _ = parse_text(fmt(text))
    assert tree.decls[0].doc is not None and tree.decls[0].doc.lines == ("T", "is documented")


def test_comments_keep_their_place_trailing_or_own_line() -> None:
    text = (
        "// head\n"
        "type A = string; // trailing\n"
        "type B = /* inline */ string;\n"
        "  // own line, before C\n"
        "type C = string; /* trailing block */ /* and another */\n"
        "// tail"
    )
    assert fmt(text) == (
        "// head\n"
        "type A = string; // trailing\n"
        "type B = /* inline */ string;\n"
        "// own line, before C\n"
        "type C = string; /* trailing block */ /* and another */\n"
        "// tail\n"
    )


def test_comments_inside_type_expressions_are_never_dropped() -> None:
    # A comment in every gap of every kind of type expression.
    text = (
        "type A = record {\n"
        "  a: optional /*1*/ < /*2*/ list < // 3\n"
        "  string /*4*/ > /*5*/ > /*6*/ ;\n"
        "  b: map /*7*/ < /*8*/ string /*9*/ , /*10*/ atom-ref /*11*/ < /*12*/ X /*13*/ > /*14*/ >;\n"
        "  c: interface-ref< // 15\n"
        "  // 16\n"
        "  I>;\n"
        '  d: open /*17*/ enum /*18*/ { "x" /*19*/ ; };\n'
        '  e: open /*20*/ variant /*21*/ tag /*22*/ "t" /*23*/ { "a" /*24*/ : /*25*/ unit; default /*26*/ : unit /*27*/ ; };\n'
        "  f: union /*28*/ { /*29*/ string /*30*/ ; };\n"
        "  g: string = /*31*/ [ /*32*/ ] /*33*/ ;\n"
        "};\n"
    )
    out = fmt(text)
    assert out == (
        "type A = record {\n"
        "  a : optional /*1*/ < /*2*/ list< // 3\n"
        "      string /*4*/ > /*5*/ > /*6*/ ;\n"
        "  b : map /*7*/ < /*8*/ string /*9*/ , /*10*/ atom-ref /*11*/ < /*12*/ X /*13*/ > /*14*/ >;\n"
        "  c : interface-ref< // 15\n"
        "      // 16\n"
        "      I>;\n"
        "  d : open /*17*/ enum /*18*/ {\n"
        '    "x" /*19*/ ;\n'
        "  };\n"
        '  e : open /*20*/ variant /*21*/ tag /*22*/ "t" /*23*/ {\n'
        '    "a" /*24*/ : /*25*/ unit;\n'
        "    default /*26*/ : unit /*27*/ ;\n"
        "  };\n"
        "  f : union /*28*/ {\n"
        "    /*29*/ string /*30*/ ;\n"
        "  };\n"
        "  g : string = /*31*/ [ /*32*/ ] /*33*/ ;\n"
        "};\n"
    )
    before, _ = parse_text(text)
    after, _ = parse_text(out)
    assert comment_texts(after) == comment_texts(before)
    assert strip_spans(after) == strip_spans(before)
    assert fmt(out) == out


def test_a_line_comment_inside_a_record_type_keeps_the_nesting() -> None:
    text = "type A = list< // why\n record {a:string;b:string;}>;"
    assert fmt(text) == (
        "type A = list< // why\n"
        "    record {\n"
        "      a : string;\n"
        "      b : string;\n"
        "    }>;\n"
    )


def test_comments_in_members_and_bindings() -> None:
    text = (
        'interface K id "k" revision "k@1" { // k\n'
        '  operation o id "o" : unit // in\n'
        '  -> unit { /* b */ call id "o:call" // c\n'
        "  execution transaction; } // after\n"
        "  // last\n"
        "} // end"
    )
    out = fmt(text)
    assert out == (
        'interface K id "k" revision "k@1" { // k\n'
        '  operation o id "o" : unit // in\n'
        '      -> unit { /* b */ call id "o:call" // c\n'
        "      execution transaction; } // after\n"
        "  // last\n"
        "} // end\n"
    )
    assert fmt(out) == out


def test_a_dangling_doc_comment_stays_dangling() -> None:
    text = (
        "type A = /// not a doc: nothing documentable follows\n string;\n"
        "/// nor this one, an ordinary comment follows\n// ordinary\ntype B = string;\n"
        "type C = record { a: string; /// nor this, before the brace\n };\n"
        "/// nor this, at the end"
    )
    before, before_diagnostics = parse_text(text)
    out = fmt(text)
    after, after_diagnostics = parse_text(out)
    assert [d.code.id for d in before_diagnostics] == ["W0004"] * 4
    assert [d.code.id for d in after_diagnostics] == ["W0004"] * 4
    assert strip_spans(after) == strip_spans(before)
    assert fmt(out) == out


def test_trailing_whitespace_of_line_comments_goes_block_comments_stay_verbatim() -> None:
    text = "// a  \t\ntype A = string; /* x  \n   y  */\n"
    assert fmt(text) == "// a\ntype A = string; /* x  \n   y  */\n"


def test_open_record_stays_open() -> None:
    text = "type R = open  record {a:string;};type S = list<open record {c: int32;}>;"
    assert fmt(text) == (
        "type R = open record { a : string; };\ntype S = list<open record { c : int32; }>;\n"
    )
