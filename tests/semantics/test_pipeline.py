"""`compile_files` and `parse_files`: reading, folders, include paths, ordering, robustness."""

from __future__ import annotations

import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics, codes
from idlc.pipeline import compile_files, parse_files
from idlc.semantics import model
from idlc.semantics.resolver import resolve
from idlc.syntax import parser, reader

from .synthetic import synthetic_schema

SEEDS = Path("idl/quixos")
HEADER = 'interface {name} id "{id}" revision "{id}@1" {{\n'


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _interface(name: str, body: str = "") -> str:
    return HEADER.format(name=name, id=name.lower()) + body + "}\n"


def _op(interface: str, name: str, input: str, output: str) -> str:
    member = f"{interface.lower()}:{name}"
    return (
        f'  operation {name} id "{member}" : {input} -> {output} '
        f'{{call id "{member}:call" execution transaction;}}\n'
    )


def test_missing_file_is_a_diagnostic_without_span(tmp_path: Path) -> None:
    compilation = compile_files([tmp_path / "absent.idl"])
    assert compilation.model is None
    [diagnostic] = compilation.diagnostics
    assert diagnostic.code is codes.FILE_NOT_FOUND
    assert diagnostic.span is None
    assert "absent.idl" in diagnostic.message


def test_missing_file_stops_before_resolving(tmp_path: Path) -> None:
    main = _write(tmp_path, "main.idl", "type A = Unknown;\n")
    compilation = compile_files([main, tmp_path / "absent.idl"])
    assert [d.code.id for d in compilation.diagnostics] == ["E0901"]


def test_folder_gives_every_idl_file_below_it_sorted(tmp_path: Path) -> None:
    _write(tmp_path, "b/second.idl", "type B = record { a: A; };\n")
    _write(tmp_path, "a.idl", "type A = record { x: string; };\n")
    _write(tmp_path, "notes.txt", "not IDL")
    compilation = compile_files([tmp_path])
    assert compilation.model is not None
    assert list(compilation.model.typedefs) == ["A", "B"]
    assert [Path(file.path).name for file in compilation.files] == ["a.idl", "second.idl"]


def test_a_file_given_twice_is_read_once() -> None:
    compilation = compile_files([SEEDS / "agent_request.idl", SEEDS, SEEDS / "agent_request.idl"])
    assert compilation.model is not None
    assert [Path(file.path).name for file in compilation.files] == [
        "agent_request.idl",
        "agent_directory.idl",
    ]


def test_opaque_import_stays_opaque(tmp_path: Path) -> None:
    main = _write(
        tmp_path,
        "main.idl",
        "import interface Remote;\n"
        + _interface("Local", _op("Local", "link", "interface-ref<Remote>", "unit")),
    )
    compilation = compile_files([main], [tmp_path / "nowhere"])
    assert compilation.model is not None
    assert list(compilation.model.opaque_interfaces) == ["Remote"]
    link = compilation.model.interfaces["Local"].members[0]
    assert isinstance(link, model.Operation)
    assert link.input == model.InterfaceRef("Remote", link.input.span)


def test_include_path_resolves_imports_transitively_and_lazily(tmp_path: Path) -> None:
    include = tmp_path / "include"
    _write(
        include,
        "peer.idl",
        "import interface Helper;\n"
        + _interface("Peer", _op("Peer", "help", "interface-ref<Helper>", "unit")),
    )
    _write(
        include, "nested/helper.idl", "type Help = record { x: string; };\n" + _interface("Helper")
    )
    # Never needed: must not even be parsed (its syntax errors would show).
    _write(include, "broken.idl", "this is not IDL at all {{{")
    # Mentions `interface Peer` only in a comment: a candidate, parsed, not taken.
    _write(
        include, "a_mention.idl", "// see interface Peer\ntype Mention = record { y: string; };\n"
    )
    main = _write(
        tmp_path,
        "main.idl",
        "import interface Peer;\nimport interface Nowhere;\n"
        + _interface("Main", _op("Main", "peer", "interface-ref<Peer>", "interface-ref<Nowhere>")),
    )
    compilation = compile_files([main], [include])
    assert [d.code.id for d in compilation.diagnostics] == []
    resolved = compilation.model
    assert resolved is not None
    assert list(resolved.interfaces) == ["Main", "Peer", "Helper"]
    assert list(resolved.typedefs) == ["Help"]  # nothing from a_mention.idl
    assert list(resolved.opaque_interfaces) == ["Nowhere"]
    assert [Path(source.path).name for source in resolved.sources] == [
        "main.idl",
        "peer.idl",
        "helper.idl",
    ]


def test_include_path_is_not_used_for_interfaces_given(tmp_path: Path) -> None:
    include = tmp_path / "include"
    _write(include, "peer.idl", _interface("Peer", _op("Peer", "other", "unit", "unit")))
    main = _write(tmp_path, "main.idl", "import interface Peer;\n" + _interface("Peer"))
    compilation = compile_files([main], [include])
    assert compilation.model is not None
    assert compilation.model.interfaces["Peer"].members == ()
    assert len(compilation.files) == 1


def test_include_file_with_errors_is_reported(tmp_path: Path) -> None:
    include = tmp_path / "include"
    _write(include, "peer.idl", 'interface Peer id "peer" revision "peer@1" {\n')
    main = _write(tmp_path, "main.idl", "import interface Peer;\n")
    compilation = compile_files([main], [include])
    assert compilation.model is None
    assert [d.code.id for d in compilation.diagnostics] == ["E0004"]


def test_syntax_errors_skip_resolution(tmp_path: Path) -> None:
    first = _write(tmp_path, "first.idl", "type A = Unknown;\n")
    second = _write(tmp_path, "second.idl", "type B = record { x: string }\n")
    compilation = compile_files([first, second])
    assert compilation.model is None
    found = [d.code.id for d in compilation.diagnostics]
    assert "E0003" in found
    assert not [code for code in found if code.startswith("E01")]  # `Unknown` not reported


def test_semantic_diagnostics_are_sorted_by_file_then_position(tmp_path: Path) -> None:
    first = _write(tmp_path, "z_first.idl", "type A = Nope1;\ntype B = record { x: Nope2; };\n")
    second = _write(tmp_path, "a_second.idl", "type C = Nope3;\n" + "type A = string;\n")
    compilation = compile_files([first, second])
    messages = [d.message for d in compilation.diagnostics]
    assert messages == [
        "unknown type `Nope1`",
        "unknown type `Nope2`",
        "unknown type `Nope3`",
        "the name `A` is declared twice",
    ]


def test_every_problem_is_reported(tmp_path: Path) -> None:
    text = (
        "type A = Missing;\n"
        "type B = record { a: string; a: string; };\n"
        'type C = enum { "x"; "x"; };\n'
        + _interface(
            "Shop",
            '  queryable value v id "shop:v" : uint32 {call id "shop:v:call" execution snapshot;}\n'
            + _op("Shop", "p", "atom-ref<Nothing>", "unit"),
        )
    )
    compilation = compile_files([_write(tmp_path, "many.idl", text)])
    assert [d.code.id for d in compilation.diagnostics] == [
        "E0101",
        "E0107",
        "E0108",
        "E0115",
        "E0102",
    ]


def test_parse_files_parses_without_resolving(tmp_path: Path) -> None:
    good = _write(tmp_path, "good.idl", "type A = Unknown;\n")
    bad = _write(tmp_path, "bad.idl", "type B = ;\n")
    parsed = parse_files([good, bad])
    assert [unit.file is not None for unit in parsed.files] == [True, False]
    assert [d.code.id for d in parsed.diagnostics] == ["E0003"]
    assert not parsed.ok
    assert parsed.sources.get(parsed.files[0].display) is parsed.files[0].source


SEED_TEXT = (SEEDS / "agent_request.idl").read_text(encoding="utf-8")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    edits=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=len(SEED_TEXT)),
            st.integers(min_value=0, max_value=40),
            st.sampled_from(
                ["", ";", "}", "{", "<", '"', "/*", "x", "type", "interface A", "\\", "é", "\x00"]
            ),
        ),
        max_size=4,
    )
)
def test_damaged_input_never_raises(tmp_path: Path, edits: list[tuple[int, int, str]]) -> None:
    text = SEED_TEXT
    for start, length, insert in edits:
        text = text[:start] + insert + text[start + length :]
    path = tmp_path / "damaged.idl"
    path.write_text(text, encoding="utf-8")
    compilation = compile_files([path, SEEDS / "agent_directory.idl"])
    assert (compilation.model is None) == compilation.diagnostics.has_errors


def test_the_resolver_costs_less_than_the_parser_on_large_input() -> None:
    """The resolver must never dominate the front end: on a large schema it takes less time
    than parsing it (a ratio of two timings of one process, so machine load cancels out;
    the absolute figures are bench/parse.py's)."""
    text = synthetic_schema(300)
    parse_times, resolve_times = [], []
    for _ in range(3):
        diagnostics = Diagnostics()
        source = reader.decode("big.idl", text.encode(), diagnostics)
        assert source is not None
        start = time.perf_counter()
        file = parser.parse(source, diagnostics)
        parse_times.append(time.perf_counter() - start)
        assert file is not None
        start = time.perf_counter()
        resolved = resolve([file], diagnostics)
        resolve_times.append(time.perf_counter() - start)
        assert resolved is not None and len(resolved.interfaces) == 300
    ratio = min(resolve_times) / min(parse_times)
    assert ratio < 1.0, f"resolving took {ratio:.2f}× the parse"
