"""The compiler's stages import only earlier ones: syntax → semantics → targets → codegen.

`idlc/semantics/` is the language's meaning and knows nothing of a target language: no
module of it imports a target, code generation, the runtime or msgspec. A target's
mapping stage comes before code generation and never imports it. Code generation reads
the Python plan: it takes no name from the naming rules themselves, nor reads syntax, and
it asks the model no question (`queries`, `shapes`, `checks`): it takes from
`idlc.semantics` only the model's classes, and every decision about them is the mapping
stage's, kept in the plan. Nor does it tell the model's types apart itself, but where it
writes a type's structure as a Python expression (`expressions.py`): which types are
inline, what each definition is, what a package of features borrows are the plan's.
Every import counts, also those inside functions (the lazy ones keep start-up short, and
are imports still).
"""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest

from idlc.semantics import model
from tests.conftest import REPO

PACKAGE = REPO / "idlc"

#: stage folder → module prefixes none of its modules may import
FORBIDDEN = {
    "syntax": ("idlc.semantics", "idlc.targets", "idlc.codegen", "idlc_runtime", "msgspec"),
    "semantics": ("idlc.targets", "idlc.codegen", "idlc_runtime", "msgspec"),
    "targets": ("idlc.codegen",),
    "codegen": ("idlc.targets.python.naming", "idlc.syntax"),
}


def imported_modules(path: Path, root: Path) -> set[str]:
    """Every module `path` imports, absolute (`from . import x` resolved against its
    package, which is its folder's path below `root`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = path.relative_to(root).parent.parts
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = list(package[: len(package) - node.level + 1])
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def violations(root: Path, stage: str) -> list[str]:
    """`stage`'s imports of what it may not import, in the package `root / "idlc"`."""
    forbidden = FORBIDDEN[stage]
    return [
        f"{path.relative_to(root)} imports {module}"
        for path in sorted((root / "idlc" / stage).rglob("*.py"))
        for module in sorted(imported_modules(path, root))
        if any(module == prefix or module.startswith(prefix + ".") for prefix in forbidden)
    ]


@pytest.mark.parametrize("stage", sorted(FORBIDDEN))
def test_a_stage_imports_no_later_one(stage: str) -> None:
    assert violations(REPO, stage) == []


def test_the_check_finds_lazy_and_relative_imports(tmp_path: Path) -> None:
    folder = tmp_path / "idlc" / "semantics"
    folder.mkdir(parents=True)
    (folder / "lazy.py").write_text(
        "def f():\n    from idlc.targets.python import naming\n", encoding="utf-8"
    )
    (folder / "relative.py").write_text("from ..codegen import build\n", encoding="utf-8")
    (folder / "fine.py").write_text("from . import model\nimport idlc.source\n", encoding="utf-8")
    assert violations(tmp_path, "semantics") == [
        "idlc/semantics/lazy.py imports idlc.targets.python",
        "idlc/semantics/lazy.py imports idlc.targets.python.naming",
        "idlc/semantics/relative.py imports idlc.codegen",
        "idlc/semantics/relative.py imports idlc.codegen.build",
    ]


#: What code generation may import of `idlc.semantics`: the model's classes (which the plan
#: refers to), and nothing that answers a question about them.
CODEGEN_MAY_USE = "idlc.semantics.model"


def questions_asked(root: Path) -> list[str]:
    """Code generation's imports of `idlc.semantics` other than its model, in the package
    `root / "idlc"`."""
    return [
        f"{path.relative_to(root)} imports {module}"
        for path in sorted((root / "idlc" / "codegen").rglob("*.py"))
        for module in sorted(imported_modules(path, root))
        if module.startswith("idlc.semantics.")
        and not (module == CODEGEN_MAY_USE or module.startswith(CODEGEN_MAY_USE + "."))
    ]


def test_code_generation_asks_the_model_nothing() -> None:
    assert questions_asked(REPO) == []


def test_the_check_finds_questions_asked(tmp_path: Path) -> None:
    folder = tmp_path / "idlc" / "codegen"
    folder.mkdir(parents=True)
    (folder / "asks.py").write_text(
        "from idlc.semantics import model as m, queries\n"
        "def f():\n    from idlc.semantics.shapes import is_unit\n",
        encoding="utf-8",
    )
    (folder / "fine.py").write_text(
        "from idlc.semantics import model as m\nfrom idlc.semantics.model import Model\n",
        encoding="utf-8",
    )
    assert questions_asked(tmp_path) == [
        "idlc/codegen/asks.py imports idlc.semantics.queries",
        "idlc/codegen/asks.py imports idlc.semantics.shapes",
        "idlc/codegen/asks.py imports idlc.semantics.shapes.is_unit",
    ]


def test_semantics_holds_no_python_module() -> None:
    # The Python mapping, its naming and its decoding rules all live in the Python target.
    names = {path.stem for path in (PACKAGE / "semantics").glob("*.py")}
    assert not names & {"python_mapping", "naming", "decoding"}
    assert (PACKAGE / "targets" / "python" / "mapping.py").is_file()


#: The model's type classes (`model.Type`), by name.
TYPE_KINDS = frozenset(kind.__name__ for kind in typing.get_args(model.Type))
#: The modules of code generation that may tell them apart: the one writing a type's
#: structure as a Python expression.
MAY_DISPATCH_OVER_TYPES = frozenset({"expressions.py"})


def _kinds_named(expression: ast.AST) -> list[str]:
    """The model's type classes `expression` names (`m.Record`, `Record`)."""
    names = []
    for part in ast.walk(expression):
        if isinstance(part, ast.Attribute):
            names.append(part.attr)
        elif isinstance(part, ast.Name):
            names.append(part.id)
    return [name for name in names if name in TYPE_KINDS]


def type_dispatches(root: Path) -> list[str]:
    """Where a module of code generation other than `MAY_DISPATCH_OVER_TYPES` tells the
    model's types apart, in the package `root / "idlc"`: an `isinstance` of one of them, a
    `case` pattern of one, a comparison with one (`type(t) is m.Optional`)."""
    found: list[tuple[str, int, str]] = []
    for path in sorted((root / "idlc" / "codegen").rglob("*.py")):
        if path.name in MAY_DISPATCH_OVER_TYPES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "isinstance"
                and len(node.args) == 2
            ):
                kinds = _kinds_named(node.args[1])
            elif isinstance(node, ast.MatchClass):
                kinds = _kinds_named(node.cls)
            elif isinstance(node, ast.Compare):
                kinds = [kind for side in node.comparators for kind in _kinds_named(side)]
            else:
                continue
            found += [(str(path.relative_to(root)), node.lineno, kind) for kind in kinds]
    return [f"{path}:{line} {kind}" for path, line, kind in sorted(found)]


def test_code_generation_tells_no_model_type_apart_but_in_expressions() -> None:
    assert type_dispatches(REPO) == []


def test_the_check_finds_type_dispatches(tmp_path: Path) -> None:
    folder = tmp_path / "idlc" / "codegen"
    folder.mkdir(parents=True)
    (folder / "asks.py").write_text(
        "from idlc.semantics import model as m\n"
        "from idlc.semantics.model import Record\n"
        "def f(t, member):\n"
        "    if isinstance(t, (m.List, Record)) or isinstance(member, m.Value):\n"
        "        return type(t) is m.Optional\n"
        "    match t:\n"
        "        case m.Union_():\n"
        "            pass\n",
        encoding="utf-8",
    )
    (folder / "expressions.py").write_text(
        "from idlc.semantics import model as m\n"
        "def f(t):\n    match t:\n        case m.Map():\n            pass\n",
        encoding="utf-8",
    )
    assert type_dispatches(tmp_path) == [
        "idlc/codegen/asks.py:4 List",
        "idlc/codegen/asks.py:4 Record",
        "idlc/codegen/asks.py:5 Optional",
        "idlc/codegen/asks.py:7 Union_",
    ]
