"""The seeds, alone and together, resolve with no problem into the expected model."""

from __future__ import annotations

from pathlib import Path

import pytest

from idlc.pipeline import compile_files
from idlc.semantics import model

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "idl" / "quixos"
DIRECTORY = SEEDS / "agent_directory.idl"
REQUEST = SEEDS / "agent_request.idl"

ATOMS = [
    "AgentDirectoryObject",
    "AgentObject",
    "AgentThreadObject",
    "AgentRequestObject",
    "AgentItemObject",
    "AgentQuestionObject",
    "AgentCompletionStreamObject",
]


@pytest.mark.parametrize("paths", [[DIRECTORY], [REQUEST], [DIRECTORY, REQUEST], [SEEDS]])
def test_seeds_resolve_cleanly(paths: list[Path]) -> None:
    compilation = compile_files(paths)
    assert list(compilation.diagnostics) == []
    assert compilation.model is not None
    assert list(compilation.model.atoms) == ATOMS


def test_seeds_together_share_atoms() -> None:
    compilation = compile_files([DIRECTORY, REQUEST])
    resolved = compilation.model
    assert resolved is not None
    # the seven atoms are declared in both files: one atom each, with both declarations
    for atom in resolved.atoms.values():
        assert [span.file for span in atom.spans] == [
            "idl/quixos/agent_directory.idl",
            "idl/quixos/agent_request.idl",
        ]
    assert resolved.atoms["AgentObject"].id == "atom:org.quixos.agent:agent"
    assert list(resolved.interfaces) == ["AgentDirectory", "AgentRequest"]
    assert list(resolved.typedefs) == [
        "AgentSubmission",
        "AgentAdmission",
        "DirectoryData",
        "RequestData",
        "RequestState",
        "ItemData",
    ]
    assert list(resolved.opaque_interfaces) == ["AgentContextSubject", "WebStudioPresentable"]
    assert len(resolved.opaque_interfaces["AgentContextSubject"].spans) == 2
    assert [source.path.endswith(".idl") for source in resolved.sources] == [True, True]


def test_seed_members_are_resolved() -> None:
    resolved = compile_files([DIRECTORY]).model
    assert resolved is not None
    directory = resolved.interfaces["AgentDirectory"]
    assert directory.id == "interface:org.quixos.agent:directory"
    assert directory.revision == "interface:org.quixos.agent:directory@1"
    assert len(directory.members) == 15
    data = directory.members[0]
    assert isinstance(data, model.Value)
    assert data.type == model.TypeRef("DirectoryData", data.type.span)
    assert data.binding.verb is model.Verb.GET
    assert data.binding.execution is model.Execution.SNAPSHOT
    agents = directory.members[1]
    assert isinstance(agents, model.Relation)
    assert agents.cardinality is model.Cardinality.MANY_UNIQUE
    assert isinstance(agents.target, model.AtomTarget) and agents.target.atom == "AgentObject"
    sent = directory.members[-1]
    assert isinstance(sent, model.Operation)
    assert isinstance(sent.input, model.AtomRef) and sent.input.atom == "AgentRequestObject"
    assert isinstance(sent.output, model.Primitive) and sent.output.kind is model.PrimitiveKind.UNIT
    create = directory.members[7]
    assert isinstance(create, model.Operation) and isinstance(create.input, model.Record)
    assert [field.name for field in create.input.fields] == [
        "name",
        "description",
        "instructions",
        "settings",
    ]
    submission = resolved.typedefs["AgentSubmission"].type
    assert isinstance(submission, model.Record)
    contexts = next(field for field in submission.fields if field.name == "contexts")
    assert isinstance(contexts.type, model.List)
    assert contexts.type.inner == model.InterfaceRef(
        "AgentContextSubject", contexts.type.inner.span
    )
