"""No user's name breaks generated code: every builtin, keyword, soft keyword and dunder name.

Two packages hold every such name at once, as type, field, member, enum value, case tag
and interface names (so the cost stays bounded: one generation each, one mypy run). Each
package must import, pass `mypy --strict` and round-trip values. `type float = record {…}`
once made every `float64` field decode as that record; a member named `str` broke mypy.

The mechanism behind that family is a generated name shadowing another one the code uses,
so every generated module is also checked for it directly (`shadowed_names`).
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import json
import keyword
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest

from idlc.codegen import GeneratedPackage, generate
from idlc.diagnostics import codes
from idlc.output.package import write_package
from idlc.pipeline import compile_files
from idlc.semantics.scope import TYPE_KEYWORDS
from idlc.targets.python import naming
from idlc_runtime import hooks

from .conftest import ROOT

#: Names Python gives a meaning to inside classes and modules.
DUNDERS = {
    "__init__",
    "__new__",
    "__class__",
    "__dict__",
    "__slots__",
    "__module__",
    "__qualname__",
    "__annotations__",
    "__all__",
    "__call__",
    "__getattr__",
    "__getattribute__",
    "__setattr__",
    "__init_subclass__",
    "__class_getitem__",
    "__eq__",
    "__hash__",
    "__repr__",
    "__doc__",
    "__match_args__",
    "__weakref__",
    "__struct_fields__",
    "__struct_config__",
    "__post_init__",
    "__idlc_interface__",
    "__idlc_variant__",
    "__abstractmethods__",
    "__mro__",
    "__name__",
}
#: Names the generated modules use or define themselves.
GENERATED_CODE_NAMES = {
    "typing",
    "msgspec",
    "abc",
    "enum",
    "annotations",
    "Unsupported",
    "TYPE_CHECKING",
    "INTERFACE_ID",
    "REVISION",
    "self",
    "impl",
    "params",
    "input",
    "peer",
    "target",
    "_peer",
    "_target",
    "_rt",
    "_hooks",
    "_METHODS",
    "_Int8",
    "_UInt64",
    "idlc",
    "runtime",
    "ATOMS",
}
NAMES = sorted(
    name
    for name in set(dir(builtins))
    | set(keyword.kwlist)
    | set(keyword.softkwlist)
    | DUNDERS
    | GENERATED_CODE_NAMES
    if name.isidentifier() and name.isascii()
)


def _has_class_name(name: str) -> bool:
    """`_` and `__` have no letter to make a class name of (E0202, tested below)."""
    return not naming.declared_name(name).startswith("_")


def unique_by(names: Iterable[str], python: Callable[[str], str]) -> list[str]:
    """`names`, without those whose Python name an earlier one already has (`_peer` and
    `peer` are both the class `Peer`: an E0201 or E0113, tested elsewhere)."""
    seen: set[str] = set()
    result = []
    for name in names:
        if python(name) not in seen:
            seen.add(python(name))
            result.append(name)
    return result


def _case_suffix(tag: str) -> str:
    return naming.case_class_name("", tag)


TYPE_NAMES = unique_by(
    (name for name in NAMES if name not in TYPE_KEYWORDS and _has_class_name(name)),
    naming.declared_name,
)
FIELD_NAMES = unique_by(NAMES, naming.attribute_name)
MEMBER_NAMES = unique_by(NAMES, naming.member_name)
ENUM_VALUES = unique_by(NAMES, naming.enum_attribute_name)
CASE_TAGS = unique_by(NAMES, _case_suffix)
INTERFACE_NAMES = unique_by(
    unique_by((name for name in NAMES if _has_class_name(name)), naming.declared_name),
    naming.interface_module_name,
)
EXTRA_FIELDS = "  number: float64; text: string; flag: bool; blob: bytes; count: int32; big: uint64;\n  items: list<string>; table: map<string, string>;\n"


def _string(text: str) -> str:
    return json.dumps(text)


def types_idl() -> str:
    lines = [f"type {name} = record {{ value: string; }};" for name in TYPE_NAMES]
    lines.append("type Fields = record {")
    lines += [f"  {name}: string;" for name in FIELD_NAMES]
    lines.append("};")
    lines.append("type Uses = record {")
    lines += [f"  {name}: {name};" for name in TYPE_NAMES if name in FIELD_NAMES]
    lines.append(EXTRA_FIELDS + "};")
    lines.append("type Values = enum { " + " ".join(f"{_string(v)};" for v in ENUM_VALUES) + " };")
    lines.append('type Tags = variant tag "kind" {')
    lines += [f"  {_string(tag)}: unit;" for tag in CASE_TAGS]
    lines.append("};")
    lines.append('interface Members id "m" revision "m@1" {')
    for name in MEMBER_NAMES:
        lines.append(
            f'  operation {name} id "m:{name}" : unit -> string '
            f'{{call id "m:{name}:call" execution transaction;}}'
        )
    lines.append('  operation everything id "m:everything" : record {')
    lines += [f"    {name}: string;" for name in FIELD_NAMES]
    lines.append('  } -> list<float64> {call id "m:everything:call" execution transaction;}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def interfaces_idl() -> str:
    return "".join(
        f'interface {name} id "i:{name}" revision "i:{name}@1" {{\n'
        f'  operation ping id "i:{name}:ping" : unit -> interface-ref<{name}> '
        f'{{call id "i:{name}:ping:call" execution transaction;}}\n}}\n'
        for name in INTERFACE_NAMES
    )


SOURCES = {"names_types": types_idl, "names_interfaces": interfaces_idl}


@pytest.fixture(scope="module")
def name_packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, GeneratedPackage]:
    folder = tmp_path_factory.mktemp("names_idl")
    packages = {}
    for package, text in SOURCES.items():
        path = folder / f"{package}.idl"
        path.write_text(text())
        compilation = compile_files([path])
        assert compilation.model is not None, [
            f"{d.code}: {d.message}" for d in compilation.diagnostics
        ][:10]
        generated = generate(compilation.model, package)
        assert not generated.has_errors, generated.diagnostics[:10]
        packages[package] = generated
    return packages


@pytest.fixture(scope="module")
def name_modules(
    name_packages: dict[str, GeneratedPackage], tmp_path_factory: pytest.TempPathFactory
) -> Iterable[tuple[Path, dict[str, ModuleType]]]:
    folder = tmp_path_factory.mktemp("names_out")
    for generated in name_packages.values():
        write_package(folder, generated)
    sys.path.insert(0, str(folder))
    try:
        import importlib

        yield folder, {name: importlib.import_module(name) for name in name_packages}
    finally:
        sys.path.remove(str(folder))


ENCODER = msgspec.json.Encoder(enc_hook=hooks.enc_hook)


def _decode(type_: Any, data: bytes) -> Any:
    return msgspec.json.Decoder(type_, dec_hook=hooks.dec_hook).decode(data)


def test_the_corpus_holds_every_name() -> None:
    assert {"float", "str", "dict", "frozenset", "class", "match", "_", "__init__"} <= set(NAMES)
    assert "float" in TYPE_NAMES and "str" in MEMBER_NAMES and "str" in INTERFACE_NAMES
    assert len(TYPE_NAMES) > 150 and len(FIELD_NAMES) > 150 and len(INTERFACE_NAMES) > 150


def test_types_fields_enums_and_cases_round_trip(
    name_modules: tuple[Path, dict[str, ModuleType]],
) -> None:
    package = name_modules[1]["names_types"]
    for name in TYPE_NAMES:
        cls = getattr(package, naming.declared_name(name))
        value = cls(value=name)
        assert _decode(cls, ENCODER.encode(value)) == value, name
    fields = json.dumps({name: name for name in FIELD_NAMES}, separators=(",", ":")).encode()
    assert ENCODER.encode(_decode(package.Fields, fields)) == fields
    uses = {name: {"value": name} for name in TYPE_NAMES if name in FIELD_NAMES}
    uses |= {"number": 1.5, "text": "t", "flag": True, "blob": "AA==", "count": -3}
    uses |= {"big": 2**64 - 1, "items": ["x"], "table": {"k": "v"}}
    data = json.dumps(uses, separators=(",", ":")).encode()
    decoded = _decode(package.Uses, data)
    assert decoded.number == 1.5 and isinstance(decoded.number, float)
    assert ENCODER.encode(decoded) == data
    for value in ENUM_VALUES:
        member = _decode(package.Values, json.dumps(value).encode())
        assert member.name == naming.enum_attribute_name(value)
        assert ENCODER.encode(member) == json.dumps(value).encode()
    for tag in CASE_TAGS:
        data = json.dumps({"kind": tag}, separators=(",", ":")).encode()
        case = _decode(package.Tags, data)
        assert type(case).__name__ == naming.case_class_name("Tags", tag)
        assert ENCODER.encode(case) == data


def test_every_member_name_is_served(name_modules: tuple[Path, dict[str, ModuleType]]) -> None:
    package = name_modules[1]["names_types"]
    spec = package.Members.__idlc_interface__
    methods: dict[str, Any] = {}
    for name in MEMBER_NAMES:
        method = naming.member_name(name)

        async def answer(self: object, _wire: str = f"m:{name}") -> str:
            return _wire

        methods[method] = answer

    async def everything(self: object, **fields: str) -> list[float]:
        assert fields == {naming.attribute_name(name): name for name in FIELD_NAMES}
        return [1.5]

    methods["everything"] = everything
    implementation = type("Implementation", (package.Members,), methods)()

    async def call_all() -> None:
        for name in MEMBER_NAMES:
            method = spec.requests[f"m:{name}:call"]
            assert method.member == naming.member_name(name)
            assert await method.invoke(implementation, None) == f"m:{name}"
        method = spec.requests["m:everything:call"]
        params = _decode(
            method.params_type, json.dumps({name: name for name in FIELD_NAMES}).encode()
        )
        assert await method.invoke(implementation, params) == [1.5]

    asyncio.run(call_all())


def test_every_interface_name_generates_a_working_module(
    name_modules: tuple[Path, dict[str, ModuleType]],
) -> None:
    package = name_modules[1]["names_interfaces"]
    for name in INTERFACE_NAMES:
        skeleton = getattr(package, naming.declared_name(name))
        assert skeleton.__idlc_interface__.name == name
        implementation = type(
            "Implementation", (skeleton,), {"ping": lambda self, name=name: _ready(f"ref:{name}")}
        )()
        method = skeleton.__idlc_interface__.requests[f"i:{name}:ping:call"]
        assert asyncio.run(method.invoke(implementation, None)) == f"ref:{name}"


async def _ready(value: str) -> str:
    return value


def test_name_packages_pass_mypy_strict(name_modules: tuple[Path, dict[str, ModuleType]]) -> None:
    folder, modules = name_modules
    mypy = Path(sys.executable).with_name("mypy")
    result = subprocess.run(
        [str(mypy), "--strict", "--no-incremental", "--no-pretty", *sorted(modules)],
        capture_output=True,
        text=True,
        cwd=folder,
        env=dict(os.environ, MYPYPATH=f"{folder}{os.pathsep}{ROOT}"),
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


@pytest.mark.parametrize("role", ["type", "interface"])
def test_a_name_with_no_letter_is_reported_by_check(tmp_path: Path, role: str) -> None:
    source = tmp_path / "underscore.idl"
    source.write_text(
        "type _ = record { value: string; };\n"
        if role == "type"
        else 'interface _ id "u" revision "u@1" {}\n'
    )
    compilation = compile_files([source])
    assert compilation.model is None
    assert {d.code for d in compilation.diagnostics} == {codes.RESERVED_GENERATED_NAME}
    assert all(d.span is not None and d.span.line == 1 for d in compilation.diagnostics)


# -- the mechanism: a name bound where another one of the same spelling is used ------------


def shadowed_names(modules: dict[str, str]) -> dict[str, list[str]]:
    """For each generated module (by path), the names it binds that hide a name the same
    generated code uses.

    In a class body, the annotations of attributes and methods, decorators, defaults and
    values are resolved in the class namespace first (by Python, msgspec and mypy alike), so
    no attribute or method may be spelt like a name they use. At module level, no class,
    alias or import may be spelt like a builtin that generated code uses as one (anywhere:
    `float` in a module that does not define it).
    """
    trees = {path: ast.parse(text) for path, text in modules.items()}
    bound_at_top = {
        path: {name for statement in tree.body for name in _bound(statement)}
        for path, tree in trees.items()
    }
    builtins_used = {
        node.id
        for path, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Name)
        and node.id in dir(builtins)
        and node.id not in bound_at_top[path]
    }
    found: dict[str, list[str]] = {}
    for path, tree in trees.items():
        names = sorted(f"module: {name}" for name in bound_at_top[path] & builtins_used)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bound: set[str] = set()
            used: set[str] = set()
            for statement in node.body:
                bound |= set(_bound(statement))
                for part in _class_scope_parts(statement):
                    used |= {n.id for n in ast.walk(part) if isinstance(n, ast.Name)}
            names += sorted(f"{node.name}: {name}" for name in bound & used)
        if names:
            found[path] = names
    return found


def _bound(statement: ast.stmt) -> list[str]:
    if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return [statement.name]
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return [statement.target.id]
    if isinstance(statement, ast.Assign):
        return [target.id for target in statement.targets if isinstance(target, ast.Name)]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in statement.names]
    if isinstance(statement, ast.If):  # `if typing.TYPE_CHECKING: … else: …`
        return [name for inner in statement.body + statement.orelse for name in _bound(inner)]
    return []


def _class_scope_parts(statement: ast.stmt) -> list[ast.AST]:
    """The parts of a class-body statement evaluated (or type-checked) in the class scope."""
    if isinstance(statement, ast.AnnAssign):
        return [statement.annotation] + ([statement.value] if statement.value else [])
    if isinstance(statement, ast.Assign):
        return [statement.value]
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = statement.args
        parts: list[ast.AST] = [*statement.decorator_list, *arguments.defaults]
        parts += [default for default in arguments.kw_defaults if default is not None]
        everything = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        parts += [argument.annotation for argument in everything if argument.annotation]
        if statement.returns is not None:
            parts.append(statement.returns)
        return parts
    return []


def test_no_generated_name_shadows_another(
    name_packages: dict[str, GeneratedPackage], generated_packages: dict[str, GeneratedPackage]
) -> None:
    packages = {**name_packages, **generated_packages}
    committed = {
        f"generated/{path.relative_to(ROOT / 'generated')}": path.read_text()
        for path in sorted((ROOT / "generated").rglob("*.py"))
    }
    modules = {
        f"{package}/{path}": text
        for package, generated in packages.items()
        for path, text in generated.files.items()
        if path.endswith(".py")
    } | committed
    assert shadowed_names(modules) == {}


def test_the_shadow_check_finds_the_old_bugs() -> None:
    """What `type float = record {…}` and a member named `str` generated before."""
    types = "class float:\n    x: int\nclass R:\n    y: float\n"
    other = "class S:\n    z: float\n"
    assert shadowed_names({"_types.py": types, "other.py": other}) == {
        "_types.py": ["module: float"]
    }
    interface = (
        "class I:\n    async def str(self) -> None: ...\n" "    async def name(self) -> str: ...\n"
    )
    assert shadowed_names({"i.py": interface}) == {"i.py": ["I: str"]}
