"""Each feature of `idlc lsp`, end to end over stdio on the two-file workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from idlc.diagnostics import Diagnostics
from idlc.source import SourceFile
from idlc.syntax import parser
from idlc.syntax.format import format_file
from tests.lsp.conftest import DECLARING, USING, Workspace, position_of

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _doc(uri: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri)


def _changes(edit: lsp.WorkspaceEdit) -> dict[str, list[lsp.TextEdit]]:
    return {uri: list(edits) for uri, edits in (edit.changes or {}).items()}


async def test_misspelt_type_is_reported_with_its_code_range_and_suggestion(
    workspace: Workspace,
) -> None:
    b = workspace.open("b.idl")
    found = await workspace.diagnostics(b, bool)
    [diagnostic] = found
    assert diagnostic.code == "E0101"
    assert diagnostic.severity == lsp.DiagnosticSeverity.Error
    assert diagnostic.source == "idlc"
    start = position_of(USING, "Proflie")
    assert diagnostic.range == lsp.Range(start, lsp.Position(start.line, start.character + 7))
    assert diagnostic.message == "unknown type `Proflie`\nhelp: did you mean `Profile`?"
    assert diagnostic.code_description is not None
    assert diagnostic.code_description.href.endswith("language.md#e0101")
    # The other file of the compilation is checked too, and has nothing to report (a file
    # that never had diagnostics is not sent an empty list unless it is open).
    assert not workspace.client.diagnostics.get(workspace.uri("a.idl"))


async def test_the_suggestion_is_a_quick_fix(workspace: Workspace) -> None:
    b = workspace.open("b.idl")
    [diagnostic] = await workspace.diagnostics(b, bool)
    actions = await workspace.client.text_document_code_action_async(
        lsp.CodeActionParams(_doc(b), diagnostic.range, lsp.CodeActionContext([diagnostic]))
    )
    assert actions is not None
    [action] = actions
    assert isinstance(action, lsp.CodeAction)
    assert action.kind == lsp.CodeActionKind.QuickFix
    assert action.edit is not None and action.edit.changes is not None
    assert list(action.edit.changes[b]) == [lsp.TextEdit(diagnostic.range, "Profile")]


async def test_diagnostics_are_cleared_once_fixed(workspace: Workspace) -> None:
    b = workspace.open("b.idl")
    await workspace.diagnostics(b, bool)
    workspace.replace_all(b, USING.replace("Proflie", "Profile"))
    assert await workspace.diagnostics(b, lambda items: not items) == []


async def test_an_edit_in_one_file_reports_and_clears_in_the_other(workspace: Workspace) -> None:
    b = workspace.open("b.idl", USING.replace("Proflie", "Profile"))
    await workspace.diagnostics(b, lambda items: not items)
    a = workspace.open("a.idl")
    workspace.replace_all(a, DECLARING.replace("Profile", "Portrait"))
    broken = await workspace.diagnostics(b, lambda items: len(items) == 2)
    assert {item.code for item in broken} == {"E0101"}
    workspace.replace_all(a, DECLARING)
    assert await workspace.diagnostics(b, lambda items: not items) == []


async def test_warnings_are_warnings_with_the_conventional_id_as_fix(workspace: Workspace) -> None:
    text = USING.replace("Proflie", "Profile").replace('"directory:fetch:call"', '"fetch"')
    b = workspace.open("b.idl", text)
    [warning] = await workspace.diagnostics(b, bool)
    assert warning.code == "W0002"
    assert warning.severity == lsp.DiagnosticSeverity.Warning
    actions = await workspace.client.text_document_code_action_async(
        lsp.CodeActionParams(_doc(b), warning.range, lsp.CodeActionContext([warning]))
    )
    assert actions is not None
    [action] = actions
    assert isinstance(action, lsp.CodeAction) and action.edit is not None
    assert _changes(action.edit) == {b: [lsp.TextEdit(warning.range, '"directory:fetch:call"')]}


async def test_a_missing_semicolon_is_a_quick_fix(workspace: Workspace) -> None:
    text = DECLARING.replace("name : string;", "name : string")
    a = workspace.open("a.idl", text)
    [error] = await workspace.diagnostics(a, bool)
    assert error.code == "E0003"
    at = position_of(text, "name : string", delta=len("name : string"))
    assert error.range == lsp.Range(at, at)
    actions = await workspace.client.text_document_code_action_async(
        lsp.CodeActionParams(_doc(a), error.range, lsp.CodeActionContext([error]))
    )
    assert actions is not None
    [action] = actions
    assert isinstance(action, lsp.CodeAction) and action.edit is not None
    assert _changes(action.edit) == {a: [lsp.TextEdit(lsp.Range(at, at), ";")]}


async def test_related_locations_point_into_the_other_file(workspace: Workspace) -> None:
    b = workspace.open("b.idl", USING.replace("Proflie", "Profile") + "type Profile = string;\n")
    [duplicate] = await workspace.diagnostics(b, bool)
    assert duplicate.code == "E0105"
    assert duplicate.related_information is not None
    [related] = duplicate.related_information
    assert related.location.uri == workspace.uri("a.idl")
    assert related.location.range.start == position_of(DECLARING, "Profile")
    assert related.message.startswith("first declared here")


async def test_hover_shows_docs_kind_and_type(workspace: Workspace) -> None:
    b = workspace.open("b.idl")
    hover = await workspace.client.text_document_hover_async(
        lsp.HoverParams(_doc(b), position_of(USING, "Profile", delta=2))
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    text = hover.contents.value
    assert "type Profile = record { name : string; }" in text
    assert "*typedef*" in text
    assert "A person's public profile." in text
    assert "a.idl" in text


async def test_hover_on_a_member_shows_its_wire_method_and_execution(workspace: Workspace) -> None:
    b = workspace.open("b.idl")
    hover = await workspace.client.text_document_hover_async(
        lsp.HoverParams(_doc(b), position_of(USING, "lookup"))
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    text = hover.contents.value
    assert "operation lookup : record { id : string; } -> Proflie" in text
    assert "wire method `directory:lookup:call` (call)" in text
    assert "execution snapshot" in text
    assert "Looks a profile up." in text


async def test_definition_is_in_the_other_file(workspace: Workspace) -> None:
    b = workspace.open("b.idl")
    found = await workspace.client.text_document_definition_async(
        lsp.DefinitionParams(_doc(b), position_of(USING, "Profile"))
    )
    assert isinstance(found, list)
    start = position_of(DECLARING, "Profile")
    assert found == [
        lsp.Location(
            workspace.uri("a.idl"), lsp.Range(start, lsp.Position(start.line, start.character + 7))
        )
    ]


async def test_references_and_highlights(workspace: Workspace) -> None:
    b = workspace.open("b.idl")
    found = await workspace.client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=_doc(b),
            position=position_of(USING, "Profile"),
            context=lsp.ReferenceContext(include_declaration=True),
        )
    )
    assert found is not None
    assert sorted((item.uri, item.range.start.line) for item in found) == [
        (workspace.uri("a.idl"), 1),
        (b, 3),
    ]
    highlights = await workspace.client.text_document_document_highlight_async(
        lsp.DocumentHighlightParams(_doc(b), position_of(USING, "Note"))
    )
    assert highlights is not None
    assert [item.range.start for item in highlights] == [position_of(USING, "Note")]


async def test_rename_edits_both_files(workspace: Workspace) -> None:
    b = workspace.open("b.idl")
    prepared = await workspace.client.text_document_prepare_rename_async(
        lsp.PrepareRenameParams(_doc(b), position_of(USING, "Profile"))
    )
    assert isinstance(prepared, lsp.PrepareRenamePlaceholder)
    assert prepared.placeholder == "Profile"
    edit = await workspace.client.text_document_rename_async(
        lsp.RenameParams(_doc(b), position_of(USING, "Profile"), "Person")
    )
    assert edit is not None
    a_start, b_start = position_of(DECLARING, "Profile"), position_of(USING, "Profile")
    assert _changes(edit) == {
        workspace.uri("a.idl"): [
            lsp.TextEdit(
                lsp.Range(a_start, lsp.Position(a_start.line, a_start.character + 7)), "Person"
            )
        ],
        b: [
            lsp.TextEdit(
                lsp.Range(b_start, lsp.Position(b_start.line, b_start.character + 7)), "Person"
            )
        ],
    }


@pytest.mark.parametrize(
    ("new_name", "reason"),
    [
        ("Note", "`Note` is already declared, as an atom in"),
        ("9lives", "is not a name"),
        ("string", "built-in type keyword"),
    ],
)
async def test_rename_is_refused_with_a_reason(
    workspace: Workspace, new_name: str, reason: str
) -> None:
    b = workspace.open("b.idl")
    with pytest.raises(JsonRpcException) as refused:
        await workspace.client.text_document_rename_async(
            lsp.RenameParams(_doc(b), position_of(USING, "Profile"), new_name)
        )
    assert reason in str(refused.value)


async def test_symbols_of_the_document_and_the_workspace(workspace: Workspace) -> None:
    b = workspace.open("b.idl")
    symbols = await workspace.client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(_doc(b))
    )
    assert symbols is not None
    [interface] = symbols
    assert isinstance(interface, lsp.DocumentSymbol)
    assert (interface.name, interface.kind) == ("Directory", lsp.SymbolKind.Interface)
    assert [(child.name, child.kind) for child in interface.children or []] == [
        ("lookup", lsp.SymbolKind.Method),
        ("fetch", lsp.SymbolKind.Method),
    ]
    found = await workspace.client.workspace_symbol_async(lsp.WorkspaceSymbolParams("pro"))
    assert found is not None
    assert [(item.name, item.location.uri) for item in found] == [  # type: ignore[union-attr]
        ("Profile", workspace.uri("a.idl"))
    ]


async def test_formatting_gives_the_fmt_layout(workspace: Workspace) -> None:
    messy = '/// doc\ntype   Profile=record{name:string;} ;  // kept\nexternal atom Note id "atom:test:note";\n'
    a = workspace.open("a.idl", messy)
    edits = await workspace.client.text_document_formatting_async(
        lsp.DocumentFormattingParams(_doc(a), lsp.FormattingOptions(2, True))
    )
    source = SourceFile("a.idl", messy)
    file = parser.parse(source, Diagnostics())
    assert file is not None
    expected = format_file(file, source)
    assert "// kept" in expected
    assert list(edits or []) == [
        lsp.TextEdit(lsp.Range(lsp.Position(0, 0), lsp.Position(3, 0)), expected)
    ]


async def test_completion_offers_type_names_after_a_colon(workspace: Workspace) -> None:
    text = USING.replace("-> Proflie", "-> Pro")
    b = workspace.open("b.idl", text)
    at = position_of(text, "-> Pro", delta=len("-> Pro"))
    found = await workspace.client.text_document_completion_async(lsp.CompletionParams(_doc(b), at))
    assert isinstance(found, lsp.CompletionList)
    by_label = {item.label: item for item in found.items}
    profile = by_label["Profile"]
    assert profile.kind == lsp.CompletionItemKind.Struct
    assert isinstance(profile.documentation, lsp.MarkupContent)
    assert profile.documentation.value == "A person's public profile."
    assert profile.text_edit == lsp.TextEdit(
        lsp.Range(lsp.Position(at.line, at.character - 3), at), "Profile"
    )
    assert "Note" not in by_label  # an atom is not a type
    assert {"string", "optional", "record"} <= set(by_label)
    assert "interface" not in by_label  # not a keyword that can come here


async def test_completion_in_context(workspace: Workspace) -> None:
    text = USING.replace("atom-ref<Note>", "atom-ref<").replace("-> Profile {", "-> Profile { ")
    b = workspace.open("b.idl", text)
    at = position_of(text, "atom-ref<", delta=len("atom-ref<"))
    found = await workspace.client.text_document_completion_async(lsp.CompletionParams(_doc(b), at))
    assert isinstance(found, lsp.CompletionList)
    assert [item.label for item in found.items] == ["Note"]
    value = 'interface V id "v" revision "v@1" {\n  queryable value size id "v:size" : uint32 { '
    v = workspace.open("v.idl", value)
    found = await workspace.client.text_document_completion_async(
        lsp.CompletionParams(_doc(v), lsp.Position(1, len(value.splitlines()[1])))
    )
    assert isinstance(found, lsp.CompletionList)
    assert [item.label for item in found.items] == ["get"]


@pytest.mark.parametrize(("encoding", "column"), [("utf-8", 43), ("utf-32", 39), ("utf-16", 40)])
async def test_ranges_use_the_position_encoding_agreed(
    lsp_client_factory: Any, tmp_path: Path, encoding: str, column: int
) -> None:
    """A misspelt name after `😀é` (4+2 UTF-8 bytes, 2+1 UTF-16 units, 2 code points)."""
    text = 'external atom A id "😀é"; type T = list<Prfile>;\ntype Profile = string;\n'
    client = await lsp_client_factory(encoding)
    uri = (tmp_path / "workspace" / "e.idl").as_uri()
    workspace = Workspace(client, tmp_path / "workspace")
    workspace.open("e.idl", text)
    [diagnostic] = await workspace.diagnostics(uri, bool)
    assert diagnostic.range.start == lsp.Position(0, column)
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(_doc(uri), diagnostic.range, lsp.CodeActionContext([diagnostic]))
    )
    assert actions is not None and len(actions) == 1
    hover = await client.text_document_hover_async(
        lsp.HoverParams(_doc(uri), lsp.Position(1, len("type Pro")))
    )
    assert hover is not None and "typedef" in hover.contents.value  # type: ignore[union-attr]


async def test_incremental_edits_count_lines_as_lsp_does(workspace: Workspace) -> None:
    """A form feed (or `\\x1c`, `\\u2028` …) ends no line in LSP: an edit on the next line
    lands where the editor means it (pygls's own document copy counts them as breaks)."""
    text = "type A = string;\x0c // page\ntype B = Strin;\n"
    uri = workspace.open("f.idl", text)
    [error] = await workspace.diagnostics(uri, bool)
    assert error.code == "E0101"
    assert error.range.start == lsp.Position(1, 9)
    workspace.edit(uri, lsp.Position(1, 9), lsp.Position(1, 14), "string")
    assert await workspace.diagnostics(uri, lambda items: not items) == []


async def test_quick_fixes_for_clients_that_drop_diagnostic_data(workspace: Workspace) -> None:
    b = workspace.open("b.idl")
    [diagnostic] = await workspace.diagnostics(b, bool)
    diagnostic.data = None
    actions = await workspace.client.text_document_code_action_async(
        lsp.CodeActionParams(_doc(b), diagnostic.range, lsp.CodeActionContext([diagnostic]))
    )
    assert actions is not None
    [action] = actions
    assert isinstance(action, lsp.CodeAction) and action.edit is not None
    assert _changes(action.edit) == {b: [lsp.TextEdit(diagnostic.range, "Profile")]}


async def test_files_created_on_disk_join_the_compilation(workspace: Workspace) -> None:
    b = workspace.open("b.idl", USING.replace("-> Profile {", "-> Portrait {"))
    [unknown, misspelt] = sorted(
        await workspace.diagnostics(b, lambda items: len(items) == 2),
        key=lambda item: item.range.start.line,
    )
    assert "`Proflie`" in unknown.message and "`Portrait`" in misspelt.message
    created = workspace.root / "c.idl"
    created.write_text("type Portrait = string;\n", encoding="utf-8")
    workspace.client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            [lsp.FileEvent(created.as_uri(), lsp.FileChangeType.Created)]
        )
    )
    [left] = await workspace.diagnostics(b, lambda items: len(items) == 1)
    assert "`Proflie`" in left.message
