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
