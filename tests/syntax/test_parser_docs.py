"""Doc comments as the parser attaches them."""

from __future__ import annotations

from idlc.syntax import ast
from tests.syntax.support import parse_text


def test_doc_lines_of_a_crlf_file_carry_no_carriage_return() -> None:
    tree, _ = parse_text(
        "/// First line.\r\n///  Indented.\r\ntype A = record {\r\n  /// Field.\r\n  a: string;\r\n};\r\n"
    )
    decl = tree.decls[0]
    assert isinstance(decl, ast.TypeDecl) and decl.doc is not None
    assert decl.doc.lines == ("First line.", " Indented.")
    assert isinstance(decl.type, ast.RecordType)
    field_doc = decl.type.fields[0].doc
    assert field_doc is not None and field_doc.lines == ("Field.",)
