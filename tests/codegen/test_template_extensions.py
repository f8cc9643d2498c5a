"""`idlc.codegen.jinja_env` loads Jinja2's extensions only when it compiles a template: a run
whose templates all come from the cache never imports `jinja2.ext` (a part of a small
`idlc generate`'s start-up, docs/benchmarks.md), and what it compiles is what an
environment made with the extensions from the start compiles."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest

from idlc.codegen import jinja_env, render
from idlc.codegen.filters import FILTERS
from idlc.resources import data_dir
from tests.conftest import SEEDS


def _eager_environment() -> jinja2.Environment:
    """The environment as it was made before: every option, the extensions, at once."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        **render._OPTIONS,  # type: ignore[arg-type]
    )
    env.filters.update(FILTERS)  # compiling checks that every filter named exists
    return env


@pytest.mark.parametrize("name", sorted(path.name for path in data_dir("templates").glob("*.j2")))
def test_templates_compile_as_with_the_extensions_loaded_at_once(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    jinja_env.environment.cache_clear()
    monkeypatch.setattr(jinja_env, "_bytecode_cache", lambda: None)
    try:
        late = jinja_env.environment()
        source, filename, _ = late.loader.get_source(late, name)  # type: ignore[union-attr]
        assert not late.extensions  # nothing compiled yet: nothing loaded
        compiled = late.compile(source, name, filename, raw=True)
        assert set(late.extensions) == set(_eager_environment().extensions)
        assert compiled == _eager_environment().compile(source, name, filename, raw=True)
    finally:
        jinja_env.environment.cache_clear()


def test_parse_loads_the_extensions_too(monkeypatch: pytest.MonkeyPatch) -> None:
    jinja_env.environment.cache_clear()
    monkeypatch.setattr(jinja_env, "_bytecode_cache", lambda: None)
    try:
        tree = jinja_env.environment().parse("{% do items.append(1) %}")
        assert tree == _eager_environment().parse("{% do items.append(1) %}")
    finally:
        jinja_env.environment.cache_clear()


def _generate_imports(cache: Path, out: Path) -> set[str]:
    """The modules a whole `idlc generate` of the seeds imports with `cache` as its cache."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "idlc", "generate", *map(str, SEEDS)]
        + ["--out", str(out), "--package", "seeds"],
        capture_output=True,
        text=True,
        # Jinja2 renders every template (not their compiled modules): its cache is tested.
        env={**os.environ, "IDLC_CACHE_DIR": str(cache), "IDLC_JINJA_TEMPLATES": "1"},
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return {
        line.rsplit("|", 1)[-1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:")
    }


def test_only_a_run_that_compiles_imports_the_extensions(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = _generate_imports(cache, tmp_path / "first")
    assert "jinja2" in cold  # the log is what this test reads
    assert "jinja2.ext" in cold  # an empty cache: every template compiled
    warm = _generate_imports(cache, tmp_path / "second")
    assert "jinja2" in warm
    assert "jinja2.ext" not in warm
    for name in ("first", "second"):  # the same package either way
        files = sorted((tmp_path / name / "seeds").iterdir())
        assert [path.read_bytes() for path in files] == [
            (tmp_path / "first" / "seeds" / path.name).read_bytes() for path in files
        ]
