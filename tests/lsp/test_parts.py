"""The language server's parts without LSP: positions, units, completion contexts, fixes."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.lsp.analysis import ParseCache, analyze
from idlc.lsp.complete import complete
from idlc.lsp.fixes import fix_for
from idlc.lsp.index import Index, build_index
from idlc.lsp.positions import Lines
from idlc.lsp.rename import RenameRefused, rename_edits
from idlc.lsp.units import Unit, Units
from idlc.source import SourceFile
from idlc.syntax import parser

# -- positions ------------------------------------------------------------------------------


def test_columns_count_utf16_code_units_by_default() -> None:
    text = 'type T = record { "😀é": string; };\nx'
    lines = Lines(text)
    after_emoji = text.index("é")
    assert after_emoji == 20
    assert lines.position(after_emoji) == (0, 21)  # 😀 is two UTF-16 units
    assert Lines(text, "utf-32").position(after_emoji) == (0, 20)
    assert Lines(text, "utf-8").position(after_emoji) == (0, 23)  # and four UTF-8 bytes
    assert lines.offset(0, 21) == after_emoji
    assert lines.offset(1, 0) == text.index("x")


def test_positions_past_the_end_are_clamped() -> None:
    lines = Lines("ab\r\ncd")
    assert lines.offset(0, 99) == 2  # the line's end, before its `\r\n`
    assert lines.offset(7, 0) == 6
    assert lines.position(99) == (1, 2)


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=40), encoding=st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_offset_and_position_round_trip(text: str, encoding: str) -> None:
    lines = Lines(text, encoding)
    for offset in range(len(text) + 1):
        if offset > 0 and text[offset - 1] == "\r" and text[offset : offset + 1] == "\n":
            continue  # between `\r` and `\n`: no position of its own
        assert lines.offset(*lines.position(offset)) == offset


# -- units ----------------------------------------------------------------------------------


def test_a_folder_unit_skips_hidden_folders_environments_and_node_modules(tmp_path: Path) -> None:
    for name in ["a.idl", "sub/b.idl", ".hidden/c.idl", "node_modules/d.idl", "env/e.idl"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "env" / "pyvenv.cfg").write_text("")
    units = Units()
    units.set_folders([tmp_path])
    unit = units.unit_for(tmp_path / "a.idl")
    assert [path.relative_to(tmp_path.resolve()).as_posix() for path in unit.paths] == [
        "a.idl",
        "sub/b.idl",
    ]
    # A file opened in a skipped folder is still compiled, with its folder's files.
    assert (tmp_path / ".hidden" / "c.idl").resolve() in units.unit_for(
        tmp_path / ".hidden" / "c.idl"
    ).paths


def test_a_configured_package_is_the_unit_of_its_files(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.idlc.packages]]\nname = "pkg"\nsources = ["idl/"]\nout = "gen"\nallow = ["W0002"]\n'
        'include = ["shared"]\n'
    )
    (tmp_path / "idl").mkdir()
    (tmp_path / "idl" / "a.idl").write_text("")
    (tmp_path / "other.idl").write_text("")
    units = Units()
    units.set_folders([tmp_path])
    unit = units.unit_for(tmp_path / "idl" / "a.idl")
    assert unit.paths == ((tmp_path / "idl").resolve(),)
    assert unit.allow == ("W0002",)
    assert unit.include == (tmp_path / "shared",)
    # Outside every package, a file is checked alone, as `idlc check FILE` would.
    assert units.unit_for(tmp_path / "other.idl").paths == ((tmp_path / "other.idl").resolve(),)


def test_an_allowed_warning_is_not_reported(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.idlc.packages]]\nname = "pkg"\nsources = ["a.idl"]\nout = "gen"\nallow = ["W0002"]\n'
    )
    text = (
        'interface I id "i" revision "i@1" {\n'
        '  operation o id "o" : unit -> unit { call id "odd" execution transaction; }\n}\n'
    )
    (tmp_path / "a.idl").write_text(text)
    units = Units()
    unit = units.unit_for(tmp_path / "a.idl")
    assert analyze(unit, {}, ParseCache(), 0).diagnostics == []
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.idlc.packages]]\nname = "pkg"\nsources = ["a.idl"]\nout = "gen"\n'
    )
    units.invalidate()
    unit = units.unit_for(tmp_path / "a.idl")
    [warning] = analyze(unit, {}, ParseCache(), 0).diagnostics
    assert warning.code.id == "W0002"


# -- completion -----------------------------------------------------------------------------

_DECLS = build_index(
    [
        file
        for file in [
            parser.parse(
                SourceFile(
                    "decls.idl",
                    'external atom Note id "n";\ntype Profile = string;\nimport interface Remote;\n'
                    'interface Local id "l" revision "l@1" {}\n',
                ),
                Diagnostics(),
            )
        ]
        if file is not None
    ]
)


def _labels(text: str) -> list[str]:
    return [candidate.label for candidate in complete(text, len(text), _DECLS).candidates]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("type X = atom-ref<", ["Note"]),
        ("type X = interface-ref<", ["Local", "Remote"]),
        ("type X = list<Pr", None),  # checked below: a type position
        (
            'interface I id "i" revision "i@1" { queryable relation r id "r" : many-unique atom ',
            ["Note"],
        ),
        (
            'interface I id "i" revision "i@1" { queryable relation r id "r" : exactly-one interface ',
            ["Local", "Remote"],
        ),
        (
            'interface I id "i" revision "i@1" { queryable relation r id "r" : exactly-one atom Note { ',
            ["resolve"],
        ),
        (
            'interface I id "i" revision "i@1" { operation o id "o" : unit -> unit { ',
            ["call", "notify"],
        ),
        (
            'interface I id "i" revision "i@1" { operation o id "o" : unit -> unit { call id "o:call" ',
            ["execution"],
        ),
        ("", ["external", "import", "interface", "type"]),
        # The field modifiers (docs/language.md, "Forward-compatible fields"), in their order.
        ("type X = record { a : string ", ["lenient", "null-default", "skip-invalid"]),
        ("type X = record { a : list<string> = [] lenient ", ["null-default", "skip-invalid"]),
        ("type X = record { a : list<string> skip-invalid ", ["lenient", "null-default"]),
        ("type X = record { a : list<string> null-default lenient ", ["skip-invalid"]),
        # `open` before the three types that can be open (docs/language.md).
        ("type X = open ", ["enum", "record", "variant"]),
        ("type ", []),  # a new name: nothing to offer
        ("type X = string; // comment ", []),
        ('type X = "unterminated', []),
    ],
)
def test_completion_fits_the_place(text: str, expected: list[str] | None) -> None:
    labels = _labels(text)
    if expected is None:
        assert "Profile" in labels and "string" in labels and "Note" not in labels
    else:
        assert sorted(labels) == sorted(expected)


def test_completion_after_an_earlier_syntax_error() -> None:
    assert "Profile" in _labels("type Broken = record { x : ; };\ntype Y = ")


# -- fixes ----------------------------------------------------------------------------------


def test_fixes_come_from_the_help_of_each_kind_of_diagnostic() -> None:
    found = Diagnostics()
    source = SourceFile(
        "f.idl",
        'type A = record { x : string }; interfce I id "i" revision "i" {}',
    )
    parser.parse(source, found)
    fixes = [fix_for(item) for item in found]
    assert [fix.new_text for fix in fixes if fix is not None] == [";", "interface"]


def test_lint_fixes_write_the_conventional_text(tmp_path: Path) -> None:
    text = (
        'interface I id "i" revision "first" {\n'
        '  queryable value v id "i:v" : bool { get id "v" execution transaction; }\n}\n'
    )
    (tmp_path / "l.idl").write_text(text)
    unit = Units().unit_for(tmp_path / "l.idl")
    found = analyze(unit, {}, ParseCache(), 0).diagnostics
    fixes = {item.code.id: fix_for(item) for item in found}
    assert {code: fix.new_text for code, fix in fixes.items() if fix} == {
        "W0001": '"i@1"',
        "W0002": '"i:v:get"',
        "W0003": "snapshot",
    }
    by_code = {item.code.id: item for item in found}
    assert by_code["W0003"].span is not None
    assert text[by_code["W0003"].span.start : by_code["W0003"].span.end] == "transaction"


# -- rename ---------------------------------------------------------------------------------

_RENAMING = """\
interface I id "i" revision "i@1" {
  operation fetchItem id "i:f" : unit -> Item { call id "i:f:call" execution snapshot; }
  operation store id "i:s" : Item -> unit { call id "i:s:call" execution transaction; }
}
type Item = string;
import interface Remote;
type Handle = interface-ref<Remote>;
"""


def _index_of(text: str) -> tuple[Index, SourceFile]:
    source = SourceFile("r.idl", text)
    file = parser.parse(source, Diagnostics())
    assert file is not None
    return build_index([file]), source


@pytest.mark.parametrize(
    ("key", "new_name", "reason"),
    [
        (("member", "I", "store"), "fetchItem", "already has a member `fetchItem`"),
        (("member", "I", "store"), "fetch_item", "the same Python method `fetch_item`"),
        (("name", "Item"), "Remote", "already declared, as an imported interface"),
        (("name", "Item"), "map", "built-in type keyword"),
        (("name", "Item"), "a-b", "is not a name"),
        (("name", "Nowhere"), "Else", "declared nowhere"),
    ],
)
def test_rename_refusals(key: tuple[str, ...], new_name: str, reason: str) -> None:
    index, _ = _index_of(_RENAMING)
    with pytest.raises(RenameRefused, match=re.escape(reason)):
        rename_edits(index, key, new_name)


def test_rename_covers_every_occurrence_imports_included() -> None:
    index, source = _index_of(_RENAMING)
    places = rename_edits(index, ("name", "Remote"), "Far")
    assert [source.text[p.span.start : p.span.end] for p in places] == ["Remote", "Remote"]
    places = rename_edits(index, ("name", "Item"), "Thing")
    assert len(places) == 3
    assert rename_edits(index, ("member", "I", "store"), "keep") == [
        occurrence for occurrence in index.occurrences[("member", "I", "store")]
    ]


def test_a_broken_configuration_is_reported_and_the_file_checked_alone(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.idlc]\npackages = "idl"\n')
    (tmp_path / "a.idl").write_text("type A = Unknown;\n")
    unit = Units().unit_for(tmp_path / "a.idl")
    found = analyze(unit, {}, ParseCache(), 0).diagnostics
    assert [item.code.id for item in found] == ["E0902", "E0101"]
    assert "tool.idlc.packages" in found[0].message


# -- scheduling -----------------------------------------------------------------------------


def test_edits_in_quick_succession_are_checked_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from idlc.lsp import service as service_module
    from idlc.lsp.analysis import Analysis

    (tmp_path / "a.idl").write_text("type A = string;\n")
    revisions: list[int] = []

    def counting(unit: Unit, texts: dict[Path, str], cache: ParseCache, revision: int) -> Analysis:
        revisions.append(revision)
        return analyze(unit, texts, cache, revision)

    monkeypatch.setattr(service_module, "analyze", counting)

    async def edit_five_times() -> list[Analysis]:
        published: list[Analysis] = []
        done = asyncio.Event()

        def publish(analysis: Analysis, origin: Path) -> None:
            published.append(analysis)
            done.set()

        service = service_module.Service()
        service.units.set_folders([tmp_path])
        path = tmp_path / "a.idl"
        service.opened(path, "type A = string;\n")
        for n in range(5):
            service.changed(path, f"type A{n} = Nope;\n")
            service.schedule(path, publish)
        await done.wait()
        # Every check scheduled has ended (run or cancelled): what was published is final.
        others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        await asyncio.gather(*others, return_exceptions=True)
        service.close()
        return published

    [analysis] = asyncio.run(edit_five_times())
    assert revisions == [6]  # one check, of the text after the last edit
    assert [item.code.id for item in analysis.diagnostics] == ["E0101"]
    assert "`Nope`" in analysis.diagnostics[0].message


def test_imports_from_include_folders_and_shared_atoms_resolve_as_in_check(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.idlc.packages]]\nname = "pkg"\nsources = ["idl/"]\nout = "gen"\ninclude = ["shared"]\n'
    )
    (tmp_path / "idl").mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "remote.idl").write_text(
        'external atom Note id "atom:note";\n' 'interface Remote id "r" revision "r@1" {}\n'
    )
    (tmp_path / "shared" / "unused.idl").write_text("this is not IDL\n")
    local = (
        'external atom Note id "atom:note";\nimport interface Remote;\n'
        "type Link = record { to : interface-ref<Remote>; note : atom-ref<Note>; };\n"
    )
    (tmp_path / "idl" / "a.idl").write_text("")
    unit = Units().unit_for(tmp_path / "idl" / "a.idl")
    analysis = analyze(unit, {(tmp_path / "idl" / "a.idl").resolve(): local}, ParseCache(), 0)
    assert analysis.diagnostics == []  # the editor's text, not the empty file on disk
    [remote] = [
        decl for decl in analysis.index.declared(("name", "Remote")) if decl.kind == "interface"
    ]
    assert analysis.paths[remote.span.file] == (tmp_path / "shared" / "remote.idl").resolve()
    notes = analysis.index.declared(("name", "Note"))
    assert len(notes) == 2  # the same atom, declared in two files
