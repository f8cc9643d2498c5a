"""`idlc dump --json`: the resolved model of the seeds, as snapshots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension

from idlc.pipeline import compile_files
from idlc.semantics.dump import model_to_json

SEEDS = Path("idl/quixos")
CASES = {
    "directory": [SEEDS / "agent_directory.idl"],
    "request": [SEEDS / "agent_request.idl"],
    "both": [SEEDS / "agent_directory.idl", SEEDS / "agent_request.idl"],
    "features": [Path("tests/semantics/data/features.idl")],
}


@pytest.fixture
def json_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(JSONSnapshotExtension)


@pytest.mark.parametrize("case", sorted(CASES))
def test_dump(case: str, json_snapshot: SnapshotAssertion) -> None:
    compilation = compile_files(CASES[case])
    assert [d.code.id for d in compilation.diagnostics] == []
    assert compilation.model is not None
    assert model_to_json(compilation.model) == json_snapshot


def test_dump_is_plain_json_and_deterministic() -> None:
    first = compile_files(CASES["both"]).model
    second = compile_files(CASES["both"]).model
    assert first is not None and second is not None
    text = json.dumps(model_to_json(first), sort_keys=False)
    assert text == json.dumps(model_to_json(second), sort_keys=False)
    assert json.loads(text) == model_to_json(first)


def test_dump_without_spans_has_no_positions() -> None:
    resolved = compile_files(CASES["both"]).model
    assert resolved is not None
    text = json.dumps(model_to_json(resolved, spans=False))
    assert '"span' not in text and '"line"' not in text
    assert '"AgentDirectory"' in text


def test_dump_renders_types_structurally() -> None:
    resolved = compile_files(CASES["request"]).model
    assert resolved is not None
    item = model_to_json(resolved)["typedefs"]["ItemData"]["type"]
    control = next(field for field in item["fields"] if field["name"] == "control")
    assert control["type"]["kind"] == "optional"
    assert control["type"]["inner"]["kind"] == "record"
    assert [f["name"] for f in control["type"]["inner"]["fields"]] == [
        "attempt",
        "generation",
        "status",
        "reason",
    ]
    assert control["type"]["inner"]["fields"][1]["type"] == {"kind": "primitive", "name": "uint32"}


def test_dump_shows_each_unstable_marker_and_no_other() -> None:
    """`@unstable(feature = …)` on every kind of item (tests/corpus/valid/stability.idl):
    the dump says which feature each marked item belongs to, with where it is written."""
    compilation = compile_files([Path("tests/corpus/valid/stability.idl")])
    assert compilation.model is not None
    dumped = model_to_json(compilation.model)
    markers: list[tuple[str, str]] = []

    def walk(value: object) -> None:
        """Each marked item, by its name (a case by its tag, an enum value by its value)."""
        if isinstance(value, dict):
            unstable = value.get("unstable")
            if unstable is not None:
                assert set(unstable) == {"feature", "span"}
                label = value.get("name") or value.get("tag") or value.get("value")
                markers.append((str(label), unstable["feature"]))
            for key, item in value.items():
                if key != "unstable":
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(dumped)
    assert sorted(markers) == [
        ("Fork", "fork"),  # the atom
        ("ForkCapabilities", "fork"),  # a typedef
        ("Forks", "fork"),  # an interface
        ("fork", "fork"),  # a field
        ("fork", "fork"),  # a member
        ("plan", "plan"),  # an enum value
        ("plan", "plan"),  # a case
        ("title", "title"),  # a field
        ("title", "title"),  # a field of a case's record
    ]
    assert dumped["typedefs"]["ForkCapabilities"]["unstable"]["feature"] == "fork"
    assert "unstable" not in dumped["typedefs"]["Capabilities"]
    without = json.dumps(model_to_json(compilation.model, spans=False))
    assert '"span' not in without and without.count('"unstable"') == len(markers)
