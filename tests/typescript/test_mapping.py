"""The TypeScript target's mapping stage (idlc/targets/typescript): the names of the plan,
and the clashes only TypeScript has, reported where the IDL says them (file, line, column)."""

from __future__ import annotations

from pathlib import Path

import pytest

from idlc.diagnostics import Diagnostic, Diagnostics
from idlc.pipeline import compile_files
from idlc.targets.typescript import naming
from idlc.targets.typescript.mapping import plan
from idlc.targets.typescript.plan import (
    ListOf,
    Named,
    Opt,
    Plan,
    Prim,
    RecordPlan,
    UniqueOf,
    VariantPlan,
)

from .support import SEEDS


def mapped(tmp_path: Path, idl: str) -> tuple[Plan, list[Diagnostic]]:
    source = tmp_path / "api.idl"
    source.write_text(idl, encoding="utf-8")
    compilation = compile_files([source])
    assert compilation.model is not None, list(compilation.diagnostics)
    diagnostics = Diagnostics()
    result = plan(compilation.model, diagnostics)
    return result, list(diagnostics.items)


def where(diagnostic: Diagnostic) -> tuple[str, int, int]:
    span = diagnostic.span
    assert span is not None
    return Path(span.file).name, span.line, span.column


def test_the_seeds_are_named_as_in_python() -> None:
    compilation = compile_files(SEEDS)
    assert compilation.model is not None
    diagnostics = Diagnostics()
    result = plan(compilation.model, diagnostics)
    assert not diagnostics.items
    assert [ref.name for ref in result.refs][:2] == ["AgentDirectoryObjectRef", "AgentObjectRef"]
    assert "AgentContextSubjectRef" in [ref.name for ref in result.refs]
    assert [definition.name for definition in result.definitions][-2:] == [
        "ItemData",
        "ItemDataControl",
    ]
    directory, request = result.interfaces
    assert (directory.name, directory.proxy, directory.module) == (
        "AgentDirectory",
        "AgentDirectoryProxy",
        "agent_directory",
    )
    methods = {method.name: method for method in directory.methods}
    assert methods["createAgent"].shape == "record"
    assert methods["createAgent"].input == Named(
        "AgentDirectoryCreateAgentInput", "AgentDirectoryCreateAgentInputCodec", "agent_directory"
    )
    assert methods["notificationSent"].shape == "wrapped"
    assert methods["data"].shape == "unit" and methods["data"].input is None
    assert methods["settle"].output == Prim("unit")
    assert methods["agents"].output == UniqueOf(
        Named("AgentObjectRef", "AgentObjectRefCodec", "_refs")
    )
    assert methods["defaultAgent"].output == Opt(
        Named("AgentObjectRef", "AgentObjectRefCodec", "_refs")
    )
    claim = {method.name: method for method in request.methods}["claim"]
    assert claim.output == Named(
        "AgentRequestClaimOutput", "AgentRequestClaimOutputCodec", "agent_request"
    )
    submission = result.definitions[0]
    assert isinstance(submission, RecordPlan)
    fields = {field.wire: field for field in submission.fields}
    assert fields["retryOf"].presence == "optional"
    assert fields["retryOf"].type == Named(
        "AgentRequestObjectRef", "AgentRequestObjectRefCodec", "_refs"
    )
    assert fields["contexts"].type == ListOf(
        Named("AgentContextSubjectRef", "AgentContextSubjectRefCodec", "_refs")
    )
    assert fields["causalDepth"].type == Prim("uint32")


def test_fields_presence_defaults_and_modifiers(tmp_path: Path) -> None:
    result, problems = mapped(
        tmp_path,
        """
        type Level = enum { "low"; "high"; };
        type R = record {
          a: uint64 = 3;
          b: list<string> = [];
          c: map<string, bool> = {};
          d: optional<nullable<string>>;
          e: nullable<string>;
          f: optional<Level> lenient;
          g: list<Level> null-default skip-invalid lenient;
        };
        """,
    )
    assert not problems
    record = result.definitions[1]
    assert isinstance(record, RecordPlan)
    fields = {field.wire: field for field in record.fields}
    assert (fields["a"].presence, fields["a"].default, fields["a"].omit_default) == (
        "default",
        "3",
        True,
    )
    assert (fields["b"].default, fields["c"].default) == ("[]", "{}")
    assert fields["d"].presence == "tristate"
    assert fields["e"].presence == "required"
    assert fields["f"].presence == "optional" and fields["f"].lenient
    g = fields["g"]
    assert (g.fallback, g.lenient, g.skip_invalid, g.null_default) == ("[]", True, True, True)


def test_variant_cases(tmp_path: Path) -> None:
    result, problems = mapped(
        tmp_path,
        """
        type Stdio = record { command: string; };
        type Server = open variant tag "type" fields { id: string; } {
          "http": record { url: string; };
          "none": unit;
          default: Stdio;
        };
        """,
    )
    assert not problems
    variant = next(d for d in result.definitions if isinstance(d, VariantPlan))
    assert [case.tag for case in variant.cases] == ["http", "none"]
    assert [case.kind for case in variant.cases] == ["record", "unit"]
    assert variant.cases[0].type == Named("ServerHttp", "ServerHttpCodec", "_types")
    assert variant.default is not None and variant.default.type == Named(
        "Stdio", "StdioCodec", "_types"
    )
    assert [field.wire for field in variant.shared] == ["id"]
    assert variant.open


def test_a_global_name_gets_a_trailing_underscore(tmp_path: Path) -> None:
    result, problems = mapped(tmp_path, "type Promise = record { x: string; };\n")
    assert not problems
    assert [definition.name for definition in result.definitions] == ["Promise_"]
    assert naming.declared_name("Record") == "Record_"
    assert naming.declared_name("_private") == "Private"


def test_a_codec_name_taken_by_a_type_is_refused(tmp_path: Path) -> None:
    _, problems = mapped(
        tmp_path,
        "type Foo = record { x: string; };\ntype FooCodec = record { y: string; };\n",
    )
    assert [problem.code.id for problem in problems] == ["E0201"]
    (problem,) = problems
    assert "`FooCodec`" in problem.message and "TypeScript" in problem.message
    assert where(problem) == ("api.idl", 2, 6)
    assert problem.related and problem.related[0].span is not None


def test_an_interface_named_like_the_index_module_is_refused(tmp_path: Path) -> None:
    _, problems = mapped(
        tmp_path,
        'interface Index id "i" revision "i@1" {\n'
        '  operation ping id "p" : unit -> unit { call id "p:call" execution transaction; }\n'
        "}\n",
    )
    assert [problem.code.id for problem in problems] == ["E0201"]
    assert "`index.ts`" in problems[0].message
    assert where(problems[0]) == ("api.idl", 1, 11)


def test_a_member_named_constructor_becomes_constructor_(tmp_path: Path) -> None:
    result, problems = mapped(
        tmp_path,
        'interface Maker id "m" revision "m@1" {\n'
        '  operation constructor id "c" : unit -> unit { call id "c:call" execution transaction; }\n'
        "}\n",
    )
    assert not problems
    (method,) = result.interfaces[0].methods
    assert (method.name, method.member, method.wire) == ("constructor_", "constructor", "c:call")


@pytest.mark.parametrize(
    ("name", "expected"),
    [("createAgent", "createAgent"), ("constructor", "constructor_"), ("data", "data")],
)
def test_method_names_are_the_idl_names(name: str, expected: str) -> None:
    assert naming.method_name(name) == expected
