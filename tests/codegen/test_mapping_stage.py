"""The Python target's mapping stage (`idlc.targets.python`), run after the front end.

Its name checks (E0113) look at each scope of the model alone, so they are reported beside
the front end's own errors in one run (an editor shows them all at once); `generate` on a
model made without the pipeline runs the same stage, so it never writes a package that
`check` would have rejected.
"""

from __future__ import annotations

import keyword
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.codegen import generate
from idlc.diagnostics import Diagnostics, codes
from idlc.pipeline import compile_files
from idlc.semantics.resolver import resolve
from idlc.syntax import parser, reader
from idlc.targets.python import naming


def _compile(tmp_path: Path, text: str, name: str = "t.idl"):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return compile_files([path])


def test_python_name_clashes_are_reported_beside_front_end_errors(tmp_path: Path) -> None:
    compilation = _compile(
        tmp_path,
        "type Order = record { createdAt: string; created_at: string; };\n"
        "type Line = record { item: Missing; };\n"
        'type Mode = enum { "read-only"; "read_only"; };\n',
    )
    found = [(d.code, d.span.line if d.span else None) for d in compilation.diagnostics]
    assert found == [
        (codes.PYTHON_NAME_COLLISION, 1),
        (codes.UNKNOWN_TYPE, 2),
        (codes.PYTHON_NAME_COLLISION, 3),
    ]
    assert compilation.model is None


def test_the_package_plan_waits_for_a_model_without_errors(tmp_path: Path) -> None:
    # Two inline types named alike (E0201) need the whole model: not planned beside an
    # unknown type, reported once it is fixed.
    clash = "type A = record { b: record { x: string; }; };\n" "type AB = record { y: string; };\n"
    broken = _compile(tmp_path, clash + "type C = record { d: Missing; };\n", "broken.idl")
    assert {d.code for d in broken.diagnostics} == {codes.UNKNOWN_TYPE}
    fixed = _compile(tmp_path, clash, "fixed.idl")
    assert {d.code for d in fixed.diagnostics} == {codes.GENERATED_NAME_COLLISION}


def test_generate_on_a_model_made_without_the_pipeline_runs_the_stage() -> None:
    diagnostics = Diagnostics()
    source = reader.decode(
        "hand.idl",
        b"type Order = record { createdAt: string; created_at: string; };\n",
        diagnostics,
    )
    assert source is not None
    tree = parser.parse(source, diagnostics)
    assert tree is not None
    model = resolve([tree], diagnostics)  # the front end alone: it knows nothing of Python
    assert model is not None and not diagnostics.has_errors
    package = generate(model, "hand")
    assert [d.code for d in package.diagnostics] == [codes.PYTHON_NAME_COLLISION]
    assert package.files == {}


#: Field names that often meet in one Python attribute: camelCase and snake_case, leading
#: and doubled `_`, acronyms, names of builtins (`id` → `id_`).
_PARTS = st.sampled_from(["a", "b", "A", "B", "_", "x1", "created", "At", "at", "id", "ID", "Id"])
_FIELD_NAMES = st.lists(
    st.lists(_PARTS, min_size=1, max_size=4)
    .map("".join)
    .filter(lambda name: not name[0].isdigit() and not keyword.iskeyword(name)),
    min_size=1,
    max_size=6,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(names=_FIELD_NAMES)
def test_fields_clash_exactly_when_two_names_share_an_attribute(
    tmp_path: Path, names: list[str]
) -> None:
    fields = " ".join(f"{name}: string;" for name in names)
    compilation = _compile(tmp_path, f"type R = record {{ {fields} }};\n")
    distinct = list(dict.fromkeys(names))
    attributes = [naming.attribute_name(name) for name in distinct]
    clashes = len(attributes) - len(set(attributes))
    found = [d.code for d in compilation.diagnostics if d.is_error]
    expected = [codes.DUPLICATE_FIELD] * (len(names) - len(distinct)) + [
        codes.PYTHON_NAME_COLLISION
    ] * clashes
    assert sorted(c.id for c in found) == sorted(c.id for c in expected)
    if not found:
        assert compilation.model is not None
        package = generate(compilation.model, "p", plan=compilation.plan)
        assert not package.has_errors
        types = package.files["_types.py"]
        for attribute in attributes:
            assert f"    {attribute}: str" in types
