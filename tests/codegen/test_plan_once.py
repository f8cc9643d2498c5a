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
from tests.conftest import SEEDS


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
