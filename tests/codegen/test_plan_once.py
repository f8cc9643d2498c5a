"""`idlc generate` makes the Python mapping's plan once: the resolver's (`Compilation.plan`),
not a second one in code generation (docs/benchmarks.md, "Code generation")."""

from __future__ import annotations

from pathlib import Path

import pytest

from idlc.codegen import generate
from idlc.commands.generate import GenerateJob, run_generate
from idlc.diagnostics import Diagnostics
from idlc.pipeline import compile_files
from idlc.targets.python import mapping as python_mapping
from tests.conftest import REPO, SEEDS


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = python_mapping.plan

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(python_mapping, "plan", counted)
    return calls


def test_generate_plans_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    outcome = run_generate(
        [GenerateJob(SEEDS, (), tmp_path, "seeds")], check=False, diagnostics=Diagnostics()
    )
    assert not outcome.failed
    assert (tmp_path / "seeds" / "__init__.py").is_file()
    assert len(calls) == 1


def test_the_resolvers_plan_gives_the_same_package(monkeypatch: pytest.MonkeyPatch) -> None:
    compilation = compile_files(SEEDS)
    assert compilation.model is not None and compilation.plan is not None
    calls = _counting(monkeypatch)
    given = generate(compilation.model, "seeds", plan=compilation.plan)
    assert not calls
    made_here = generate(compilation.model, "seeds")
    assert len(calls) == 1
    assert given == made_here


# The files whose plans have every kind of fact: fields written with a default or a
# container, `nullable<T>`, optionals of `unit`, inline definitions, forward-compatible
# registrations.
_FACTFUL = [
    *SEEDS,
    REPO / "tests" / "corpus" / "valid" / "forward_compatible.idl",
    REPO / "tests" / "codegen" / "corpus" / "edge_shapes.idl",
]


@pytest.mark.parametrize("path", _FACTFUL, ids=lambda path: path.name)
def test_a_plan_without_facts_reports_the_same_and_generate_completes_it(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `idlc check` plans without the facts only code generation reads (plan_facts=False):
    # told the same problems, and code generation given such a plan makes a whole one
    # rather than writing a package from empty facts.
    whole = compile_files([path])
    bare = compile_files([path], plan_facts=False)
    assert bare.diagnostics.items == whole.diagnostics.items
    assert whole.model is not None and whole.plan is not None and whole.plan.has_facts
    assert bare.model is not None and bare.plan is not None and not bare.plan.has_facts
    assert not bare.plan.typedef_definitions and not bare.plan.forward_compatible
    calls = _counting(monkeypatch)
    completed = generate(bare.model, "p", plan=bare.plan)
    assert len(calls) == 1
    assert completed == generate(whole.model, "p", plan=whole.plan)


def test_check_plans_without_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    from idlc.commands.check import run_check

    asked: list[bool] = []
    real = python_mapping.plan

    def recorded(*args, facts: bool = True, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(facts)
        return real(*args, facts=facts, **kwargs)

    monkeypatch.setattr(python_mapping, "plan", recorded)
    printed: list[str] = []
    assert run_check(SEEDS, (), (), "human", lambda text, **_: printed.append(text)) == 0
    assert asked == [False]
