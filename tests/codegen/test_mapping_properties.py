"""Fuzzing the promise of `idlc check`: what it accepts, `generate` turns into working code.

Random schemas built from names that clash in every way idlc knows of (`AB` beside an inline
`A.b`, `foo` beside `Foo`, `_x` beside `x`, builtins, keywords) and from every kind of type.
For each one: compiling never raises; every diagnostic points somewhere; and when `check`
finds nothing, `generate` finds nothing either, every file is as black would write it (the
generator writes black's layout itself, `idlc.codegen.layout`), and the package imports, with
no generated name shadowing another (`test_python_names.shadowed_names`).
"""

from __future__ import annotations

import importlib
import itertools
import sys
from pathlib import Path

import black
import msgspec
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from idlc.codegen import generate
from idlc.output.package import write_package
from idlc.pipeline import compile_files

from .test_python_names import shadowed_names

NAMES = [
    "A",
    "AB",
    "B",
    "b",
    "a",
    "Foo",
    "foo",
    "_foo",
    "float",
    "str",
    "list",
    "class",
    "None",
    "none",
    "typing",
    "Unsupported",
    "x",
    "_x",
    "__init__",
    "_",
    "Value",
    "Item",
]
PRIMITIVES = ["string", "bool", "float64", "bytes", "json", "unit", "int32", "uint64"]

names = st.sampled_from(NAMES)
#: Type names: not the IDL's type keywords (`list`, E0124), each declared once.
TYPE_NAMES = [name for name in NAMES if name != "list"]


def _field(field: tuple[str, str, str]) -> tuple[str, str]:
    """A field; a list or map may get the default `[]`, a map, record, name or optional the
    default `{}` (written after the type; `check` decides whether the record takes it)."""
    name, type_, default = field
    if default == "[]" and type_.startswith(("list<", "map<")):
        return name, f"{type_} = []"
    if default == "{}" and type_ not in PRIMITIVES and not type_.startswith(("list<", "enum")):
        return name, f"{type_} = {{}}"
    return name, type_


def _types(depth: int, declared: list[str]) -> st.SearchStrategy[str]:
    leaf = st.sampled_from(PRIMITIVES + declared)
    if depth == 0:
        return leaf
    inner = _types(depth - 1, declared)
    fields = st.lists(
        st.tuples(names, inner, st.sampled_from(["", "[]", "{}"])).map(_field),
        max_size=3,
        unique_by=lambda field: field[0],
    )
    return st.one_of(
        leaf,
        inner.map(lambda t: f"optional<{t}>"),
        inner.map(lambda t: f"nullable<{t}>"),
        inner.map(lambda t: f"optional<nullable<{t}>>"),
        inner.map(lambda t: f"list<{t}>"),
        inner.map(lambda t: f"map<string, {t}>"),
        fields.map(lambda fs: "record { " + " ".join(f"{n}: {t};" for n, t in fs) + " }"),
        st.lists(names, max_size=3, unique=True).map(
            lambda vs: "enum { " + " ".join(f'"{v}";' for v in vs) + " }"
        ),
        st.tuples(
            st.booleans(),
            st.lists(st.tuples(names, fields), min_size=1, max_size=3, unique_by=lambda c: c[0]),
            fields,
        ).map(
            lambda v: ("open " if v[0] else "")
            + 'variant tag "kind" '
            + ("fields { " + " ".join(f"{n}: {t};" for n, t in v[2]) + " } " if v[2] else "")
            + "{ "
            + " ".join(
                f'"{tag}": record {{ ' + " ".join(f"{n}: {t};" for n, t in fs) + " };"
                for tag, fs in v[1]
            )
            + " }"
        ),
        st.lists(inner, min_size=1, max_size=3).map(
            lambda ts: "union { " + " ".join(f"{t};" for t in ts) + " }"
        ),
    )


@st.composite
def schemas(
    draw: st.DrawFn,
) -> tuple[list[tuple[str, str]], list[tuple[str, list[tuple[str, str, str]]]]]:
    type_names = draw(st.lists(st.sampled_from(TYPE_NAMES), max_size=5, unique=True))
    types = [(name, draw(_types(2, type_names))) for name in type_names]
    interface_names = draw(
        st.lists(
            st.sampled_from([n for n in NAMES if n not in type_names]), max_size=2, unique=True
        )
    )
    members = st.lists(
        st.tuples(names, _types(1, type_names), _types(1, type_names)),
        max_size=3,
        unique_by=lambda member: member[0],
    )
    return types, [(name, draw(members)) for name in interface_names]


def _schema(
    types: list[tuple[str, str]], declared: list[tuple[str, list[tuple[str, str, str]]]]
) -> str:
    lines = [f"type {name} = {type_};" for name, type_ in types]
    ids = itertools.count()
    for name, operations in declared:
        number = next(ids)
        lines.append(f'interface {name} id "i{number}" revision "i{number}@1" {{')
        for member, input_, output in operations:
            wire = f"m{next(ids)}"
            if input_ == "unit" and output != "unit":  # a queryable value instead
                lines.append(
                    f'  queryable value {member} id "{wire}" : {output} '
                    f'{{get id "{wire}:get" execution snapshot;}}'
                )
                continue
            lines.append(
                f'  operation {member} id "{wire}" : {input_} -> {output} '
                f'{{call id "{wire}:call" execution transaction;}}'
            )
        lines.append("}")
    return "\n".join(lines) + "\n"


_packages = itertools.count()


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(schema=schemas())
# Only aliases in `_types`: the first statement after the imports (black wants one blank line).
@example(schema=([("A", "string"), ("B", "list<A>")], []))
# A `{}` default naming a record written after its own: the class statement calls it.
@example(schema=([("A", "record { x: B = {}; }"), ("B", "record { y: optional<A>; }")], []))
def test_what_check_accepts_generates_working_code(
    tmp_path: Path,
    schema: tuple[list[tuple[str, str]], list[tuple[str, list[tuple[str, str, str]]]]],
) -> None:
    types, declared = schema
    number = next(_packages)
    source = tmp_path / f"fuzz{number}.idl"
    source.write_text(_schema(types, declared))
    compilation = compile_files([source])
    assert all(diagnostic.span is not None for diagnostic in compilation.diagnostics)
    if compilation.model is None:
        event(
            "rejected by check: " + ", ".join(sorted({d.code.id for d in compilation.diagnostics}))
        )
        return
    event("accepted by check")
    package = f"fuzz_mapping_{number}"
    generated = generate(compilation.model, package)
    assert list(generated.diagnostics) == []
    assert (
        shadowed_names(
            {path: text for path, text in generated.files.items() if path.endswith(".py")}
        )
        == {}
    )
    for path, text in generated.files.items():
        if path.endswith(".py"):
            assert black.format_str(text, mode=black.Mode()) == text, path
    out = tmp_path / "out"
    write_package(out, generated)
    sys.path.insert(0, str(out))
    try:
        module = importlib.import_module(package)
        # Every struct that needs no argument can be built: its `{}` defaults end.
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, msgspec.Struct):
                try:
                    value()
                except TypeError:
                    pass  # a required field
    finally:
        sys.path.remove(str(out))
        for name in [name for name in sys.modules if name.split(".")[0] == package]:
            del sys.modules[name]
