"""The plan lists every definition a typedef and an interface write, in written order
(`idlc.targets.python.definitions`): code generation writes these and finds no inline type
itself."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from idlc.pipeline import compile_files
from idlc.targets.python.definitions import (
    AliasDefinition,
    Definition,
    EnumDefinition,
    RecordDefinition,
    UnionDefinition,
    VariantDefinition,
)

IDL = """\
type ServerHttp = record { url : string; };
type Server = variant tag "type" {
  "http" : ServerHttp;
  "stdio" : record { command : string; mode : enum { "a"; "b"; }; };
};
type Open = open record { a : string; };
type Pair = union { record { x : string; }; record { y : list<record { z : string; }>; }; };
type Items = list<record { name : string; tags : map<string, enum { "x"; }>; }>;
type Holder = record {
  first : record { inner : enum { "p"; }; };
  second : optional<Pair>;
};

interface Api id "interface:example:api" revision "interface:example:api@1" {
  operation run id "api/run" : record { how : enum { "fast"; }; } -> Items {
    call id "api/run:call" execution transaction;
  }
}
"""


def _shown(definitions: Sequence[Definition]) -> list[str]:
    shown = []
    for definition in definitions:
        kind = type(definition).__name__.removesuffix("Definition").lower()
        shown.append(f"{kind} {definition.name}")
        if isinstance(definition, UnionDefinition):
            shown += [f"  {line}" for line in _shown(definition.alternatives)]
    return shown


def test_each_typedef_and_interface_lists_its_definitions_in_order(tmp_path: Path) -> None:
    path = tmp_path / "t.idl"
    path.write_text(IDL, encoding="utf-8")
    plan = compile_files([path]).plan
    assert plan is not None
    written = {name: _shown(found) for name, found in plan.typedef_definitions.items()}
    assert written == {
        # A record typedef that is a variant's case class: its variant writes it.
        "ServerHttp": [],
        "Server": ["variant Server", "enum ServerStdioMode"],
        "Open": ["record Open"],
        # A union's inline alternatives are its own (defined before it); what is inside
        # them follows.
        "Pair": [
            "union Pair",
            "  record PairOption1",
            "  record PairOption2",
            "record PairOption2Y",
        ],
        "Items": ["alias Items", "record ItemsItem", "enum ItemsItemTags"],
        "Holder": ["record Holder", "record HolderFirst", "enum HolderFirstInner"],
    }
    assert _shown(plan.interface_definitions["Api"]) == [
        "record ApiRunInput",
        "enum ApiRunInputHow",
    ]
    definitions = plan.typedef_definitions
    (open_record,) = definitions["Open"]
    assert isinstance(open_record, RecordDefinition)
    assert open_record.fields_class is not None and open_record.record.open
    server = definitions["Server"][0]
    assert isinstance(server, VariantDefinition)
    assert [case.name for case in server.classes.cases] == ["ServerHttp", "ServerStdio"]
    pair = definitions["Pair"][0]
    assert isinstance(pair, UnionDefinition) and pair.marker is not None and not pair.of_lists
    assert isinstance(definitions["Items"][0], AliasDefinition)
    assert isinstance(definitions["Server"][1], EnumDefinition)
