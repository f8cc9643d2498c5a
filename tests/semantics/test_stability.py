"""`@unstable(feature = …)` and the views of a file (docs/language.md, "Stability")."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.pipeline import compile_files
from idlc.semantics import model as m

ROOT = Path(__file__).resolve().parents[2]
STABILITY = ROOT / "tests" / "corpus" / "valid" / "stability.idl"
FEATURES = ("fork", "plan", "title")


def _view(features: frozenset[str] | None) -> m.Model:
    compilation = compile_files([STABILITY], features=features)
    assert compilation.model is not None, [d.message for d in compilation.diagnostics]
    return compilation.model


def _field_names(resolved: m.Model, typedef: str) -> list[str]:
    record = resolved.typedefs[typedef].type
    assert isinstance(record, m.Record)
    return [field.name for field in record.fields]


def test_the_stable_view_has_no_unstable_item() -> None:
    stable = _view(frozenset())
    assert list(stable.atoms) == ["Note"]
    assert "ForkCapabilities" not in stable.typedefs
    assert _field_names(stable, "Capabilities") == ["list"]
    mode = stable.typedefs["Mode"].type
    assert isinstance(mode, m.Enum) and [value.value for value in mode.values] == ["ask"]
    update = stable.typedefs["Update"].type
    assert isinstance(update, m.Variant) and [case.tag for case in update.cases] == ["text"]
    assert list(stable.interfaces) == ["Notes"]
    assert [member.name for member in stable.interfaces["Notes"].members] == ["read"]


def test_a_view_of_features_has_theirs_and_an_item_inside_needs_every_feature_on_its_way() -> None:
    plan = _view(frozenset({"plan"}))
    update = plan.typedefs["Update"].type
    assert isinstance(update, m.Variant)
    case = update.cases[1]
    assert case.tag == "plan" and case.unstable is not None and case.unstable.feature == "plan"
    # `title` inside the `plan` case needs `title` too.
    assert isinstance(case.type, m.Record)
    assert [field.name for field in case.type.fields] == ["steps"]
    both = _view(frozenset({"plan", "title"}))
    inner = both.typedefs["Update"].type
    assert isinstance(inner, m.Variant) and isinstance(inner.cases[1].type, m.Record)
    assert [field.name for field in inner.cases[1].type.fields] == ["title", "steps"]
    assert _field_names(both, "Capabilities") == ["list", "title"]


def test_the_whole_model_is_every_view_at_once() -> None:
    whole = _view(None)
    assert _view(frozenset(FEATURES)) == whole
    assert list(whole.interfaces) == ["Notes", "Forks"]
    assert whole.interfaces["Forks"].unstable == m.Unstable("fork", whole.interfaces["Forks"].unstable.span)  # type: ignore[union-attr]


def test_what_two_views_both_have_is_one_node() -> None:
    """Selection keeps what it does not change, so a stable declaration's model is equal in
    every view (what a package of a view borrowing the stable one's classes relies on)."""
    stable, whole = _view(frozenset()), _view(None)
    assert stable.typedefs["Mode"] != whole.typedefs["Mode"]
    for view in (_view(frozenset({"fork"})), whole):
        assert view.interfaces["Notes"].members[0] == stable.interfaces["Notes"].members[0]


def test_every_view_of_a_checked_file_compiles() -> None:
    for size in range(len(FEATURES) + 1):
        for chosen in itertools.combinations(FEATURES, size):
            compilation = compile_files([STABILITY], features=frozenset(chosen))
            assert not compilation.diagnostics.has_errors, chosen


def test_a_feature_no_item_is_marked_with_is_an_error() -> None:
    compilation = compile_files([STABILITY], features=frozenset({"forks", "plan"}))
    assert compilation.model is None
    (problem,) = compilation.diagnostics
    assert problem.code.id == "E0134"
    assert "`forks`" in problem.message and "`fork`, `plan`, `title`" in (problem.help or "")


# -- the property: E0133 is exactly what keeps every view resolvable ----------------------


@st.composite
def _marked_files(draw: st.DrawFn) -> str:
    """Typedefs T0…Tn, each a record of fields naming earlier ones or `string`; any of the
    typedefs and fields may be marked with one of two features."""
    marks = st.sampled_from([None, "a", "b"])
    lines = []
    count = draw(st.integers(1, 5))
    for index in range(count):
        mark = draw(marks)
        if mark:
            lines.append(f"@unstable(feature = {mark})")
        fields = []
        for number in range(draw(st.integers(0, 3))):
            target = draw(st.sampled_from(["string", *(f"T{i}" for i in range(index))]))
            field_mark = draw(marks)
            prefix = f"@unstable(feature = {field_mark}) " if field_mark else ""
            fields.append(f"{prefix}f{number} : optional<{target}>;")
        lines.append(f"type T{index} = record {{ {' '.join(fields)} }};")
    return "\n".join(lines) + "\n"


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_marked_files())
def test_a_file_check_accepts_compiles_in_every_view(tmp_path: Path, text: str) -> None:
    path = tmp_path / "marked.idl"
    path.write_text(text)
    whole = compile_files([path])
    views = [frozenset(), frozenset({"a"}), frozenset({"b"}), frozenset({"a", "b"})]
    written = {name for name in ("a", "b") if f"feature = {name}" in text}
    failing = [
        view
        for view in views
        if view <= written and compile_files([path], features=view).diagnostics.has_errors
    ]
    if whole.model is not None:
        assert failing == []
    else:
        codes = {item.code.id for item in whole.diagnostics}
        assert codes == {"E0133"}, [item.message for item in whole.diagnostics]


# -- generating a view ----------------------------------------------------------------------


def _idlc(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "idlc", *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_generate_writes_the_stable_view_unless_features_are_asked_for(tmp_path: Path) -> None:
    stable = _idlc("generate", str(STABILITY), "--out", "out", "--package", "st", cwd=tmp_path)
    assert stable.returncode == 0, stable.stderr
    forked = _idlc(
        "generate",
        str(STABILITY),
        "--out",
        "out",
        "--package",
        "un",
        "--features",
        "fork",
        cwd=tmp_path,
    )
    assert forked.returncode == 0, forked.stderr
    stable_types = (tmp_path / "out" / "st" / "_types.py").read_text()
    forked_types = (tmp_path / "out" / "un" / "_types.py").read_text()
    assert "class ForkCapabilities" not in stable_types and "fork:" not in stable_types
    assert "class ForkCapabilities" in forked_types and "fork: ForkCapabilities" in forked_types
    assert not (tmp_path / "out" / "st" / "forks.py").exists()
    assert (tmp_path / "out" / "un" / "forks.py").exists()
    wrong = _idlc(
        "generate",
        str(STABILITY),
        "--out",
        "out",
        "--package",
        "x",
        "--features",
        "frok",
        cwd=tmp_path,
    )
    assert wrong.returncode == 1 and "E0134" in wrong.stderr
    assert not (tmp_path / "out" / "x").exists()


def test_a_configured_package_names_its_features(tmp_path: Path) -> None:
    (tmp_path / "api.idl").write_bytes(STABILITY.read_bytes())
    (tmp_path / "pyproject.toml").write_text(
        "[[tool.idlc.packages]]\n"
        'name = "every"\nsources = ["api.idl"]\nout = "out"\nfeatures = ["*"]\n'
        "allow = []\n\n"
        "[[tool.idlc.packages]]\n"
        'name = "stable"\nsources = ["api.idl"]\nout = "out"\n'
    )
    done = _idlc("generate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    every = (tmp_path / "out" / "every" / "_types.py").read_text()
    assert "PLAN = " in every and "title:" in every
    assert "PLAN = " not in (tmp_path / "out" / "stable" / "_types.py").read_text()
    (tmp_path / "pyproject.toml").write_text(
        "[[tool.idlc.packages]]\n"
        'name = "bad"\nsources = ["api.idl"]\nout = "out"\nfeatures = ["no good"]\n'
    )
    refused = _idlc("generate", cwd=tmp_path)
    assert refused.returncode == 1 and "features` must be a list of feature names" in refused.stderr
