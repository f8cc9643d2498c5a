"""A generated package describes its atoms: `ATOMS`, IDL name → atom id, beside the
interfaces' `INTERFACE_ID` and dispatch tables (docs/python-mapping.md)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from idlc.codegen import generate
from idlc.pipeline import compile_files

from .conftest import ROOT


def test_ids_are_exact_escapes_decoded_and_unicode_kept(package_dir: Path) -> None:
    strings = importlib.import_module("gen_strings")
    assert strings.ATOMS == {
        "CafeObject": "atom:org.example.strings:café",
        "TabObject": 'atom:org.example.strings:tab\there "quoted" back\\slash / \b\f\n\r',
        "EmojiObject": "atom:org.example.strings:😀😀",
    }
    hostile = importlib.import_module("gen_hostile")
    assert hostile.ATOMS == {
        "QuoteObject": 'atom:"quoted"\\back\\slash\n"""{{x}}',
        "UnicodeObject": "atom:ünïcödé:😀:\u2028:\t",
    }


def test_every_atom_of_the_idl_is_there_in_declaration_order(package_dir: Path) -> None:
    """Each id is what the IDL's string literal means (JSON's escapes, which the language's
    strings are), in the order the atoms are declared."""
    source = (ROOT / "idl/quixos/agent_directory.idl").read_text(encoding="utf-8")
    source += (ROOT / "idl/quixos/agent_request.idl").read_text(encoding="utf-8")
    declared: dict[str, str] = {}
    for line in source.splitlines():
        words = line.split()
        if words[:2] == ["external", "atom"] and words[2] not in declared:
            declared[words[2]] = json.loads(line[line.index('"') : line.rindex('"') + 1])
    seeds = importlib.import_module("gen_seeds")
    assert list(seeds.ATOMS.items()) == list(declared.items())
    assert seeds.ATOMS is importlib.import_module("gen_seeds._refs").ATOMS
    assert "ATOMS" in seeds.__all__


def test_a_package_without_atoms_has_an_empty_map(package_dir: Path) -> None:
    assert importlib.import_module("gen_edges").ATOMS == {}


def test_a_type_named_atoms_does_not_take_the_name(tmp_path: Path) -> None:
    """`ATOMS` is the generated code's own, like `INTERFACE_ID`: a declared type of that name
    becomes `ATOMS_`."""
    path = tmp_path / "named.idl"
    path.write_text(
        'external atom Thing id "atom:thing";\ntype ATOMS = record { a : string; };\n',
        encoding="utf-8",
    )
    compilation = compile_files([path])
    assert compilation.model is not None, list(compilation.diagnostics)
    generated = generate(compilation.model, "gen_atoms_named")
    assert not generated.has_errors, generated.diagnostics
    assert "class ATOMS_(" in generated.files["_types.py"]
    assert 'ATOMS: typing.Final[typing.Mapping[str, str]] = {\n    "Thing": "atom:thing",\n}' in (
        generated.files["_refs.py"]
    )


@pytest.mark.parametrize("name", ["gen_features", "gen_keywords", "gen_extensions"])
def test_the_map_is_typed_as_read_only(package_dir: Path, name: str) -> None:
    refs = (package_dir / name / "_refs.py").read_text(encoding="utf-8")
    assert "ATOMS: typing.Final[typing.Mapping[str, str]] = " in refs
