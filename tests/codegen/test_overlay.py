"""A package of unstable features that borrows the stable package's classes
(idlc/targets/python/overlay.py; docs/python-mapping.md, "Packages of unstable features")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from idlc.pipeline import compile_files
from idlc.targets.python.overlay import Overlay

IDL = """\
external atom Note id "atom:example:note";

type Plain = record { a : string; };
type Holder = record { plain : Plain; note : atom-ref<Note>; };
type Grows = record {
  a : string;
  @unstable(feature = x)
  b : optional<string>;
};
type UsesGrows = record { g : Grows; };
type Kind = enum {
  "one";
  @unstable(feature = x)
  "two";
};
type Either = union { Plain; UsesGrows; };
type Memo = record { text : string; };
type ShapeCircle = record { radius : float64; };
type Shape = variant tag "kind" {
  "memo" : Memo;
  "circle" : ShapeCircle;
  @unstable(feature = x)
  "square" : record { side : float64; };
};

interface Api id "interface:example:api" revision "interface:example:api@1" {
  operation hold id "api/hold" : Holder -> Plain { call id "api/hold:call" execution transaction; }
}

interface Ext id "interface:example:ext" revision "interface:example:ext@1" {
  operation grow id "ext/grow" : UsesGrows -> Kind { call id "ext/grow:call" execution transaction; }
  @unstable(feature = x)
  operation more id "ext/more" : Plain -> unit { call id "ext/more:call" execution transaction; }
}
"""

PYPROJECT = """\
[[tool.idlc.packages]]
name = "protocol"
sources = ["api.idl"]
out = "pkg"

[[tool.idlc.packages]]
name = "unstable"
sources = ["api.idl"]
out = "pkg"
features = ["x"]
stable-package = "pkg.protocol"
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("overlay")
    (root / "api.idl").write_text(IDL)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "idlc", "generate"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return root


def test_what_changes_is_what_the_features_touch_and_what_depends_on_it(tmp_path: Path) -> None:
    path = tmp_path / "api.idl"
    path.write_text(IDL)
    view = compile_files([path], features=frozenset({"x"}))
    assert view.model is not None and view.stable is not None
    found = view.overlay("pkg.protocol")
    assert found is not None and found.package == "pkg.protocol"
    # Grows and Kind change; UsesGrows names Grows; Either names UsesGrows, and its
    # alternatives derive from its classes, so Plain changes with it, and Holder names Plain.
    # Shape gains a case: ShapeCircle is its case class, so it changes with it; Memo is only
    # named by a case (Shape's own `ShapeMemo` class derives from it), so it is borrowed.
    assert found.typedefs == {
        "Grows",
        "Kind",
        "UsesGrows",
        "Either",
        "Plain",
        "Holder",
        "Shape",
        "ShapeCircle",
    }
    assert found.interfaces == {"Api", "Ext"}
    # The reference classes the stable package has, which the package imports from it.
    assert found.stable_refs == ("Note", "Api", "Ext")
    path.write_text(IDL.replace("type Either = union { Plain; UsesGrows; };\n", ""))
    view = compile_files([path], features=frozenset({"x"}))
    found = view.overlay("pkg.protocol")
    assert isinstance(found, Overlay)
    assert found.typedefs == {"Grows", "Kind", "UsesGrows", "Shape", "ShapeCircle"}
    assert found.interfaces == {"Ext"}
    # Without anything unstable there is no stable view to borrow from.
    path.write_text("type Plain = record { a : string; };\n")
    assert compile_files([path], features=frozenset({"x"})).overlay("pkg.protocol") is None


def _run(project: Path, code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=project, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_unstable_package_defines_only_what_changed(project: Path) -> None:
    # Without `Either`: the borrowed part is visible (with it, everything changes).
    (project / "api.idl").write_text(
        IDL.replace("type Either = union { Plain; UsesGrows; };\n", "")
    )
    done = subprocess.run(
        [sys.executable, "-m", "idlc", "generate"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    unstable = project / "pkg" / "unstable"
    assert sorted(path.name for path in unstable.glob("*.py")) == [
        "__init__.py",
        "_refs.py",
        "_types.py",
        "ext.py",
    ]
    types = (unstable / "_types.py").read_text()
    assert "class Grows" in types and "class Plain" not in types and "class Holder" not in types
    found = _run(
        project,
        "import msgspec, pkg.protocol as p, pkg.unstable as u\n"
        "print(u.Plain is p.Plain, u.Holder is p.Holder, u.Api is p.Api, u.NoteRef is p.NoteRef,"
        " u.Grows is p.Grows, u.Ext is p.Ext, u.Kind.TWO.value)\n"
        'value = msgspec.json.decode(b\'{"g": {"a": "x", "b": "y"}}\', type=u.UsesGrows)\n'
        "print(value.g.b, sorted(u.Ext.__idlc_interface__.requests))\n"
        "print(u.Memo is p.Memo, u.Shape is p.Shape, u.ShapeCircle is p.ShapeCircle)\n"
        'memo = msgspec.json.decode(b\'{"kind": "memo", "text": "t"}\', type=u.Shape)\n'
        'square = msgspec.json.decode(b\'{"kind": "square", "side": 2}\', type=u.Shape)\n'
        "print(type(memo).__name__, isinstance(memo, p.Memo), memo.text, square.side)\n"
        "print(msgspec.json.encode(u.ShapeMemo(text='e')).decode())\n",
    )
    identities, decoded, shapes, cases, encoded = found.splitlines()
    assert identities == "True True True True False False two"
    assert decoded.startswith("y ") and "ext/more:call" in decoded
    assert shapes == "True False False"
    assert cases == "ShapeMemo True t 2.0"
    assert encoded == '{"kind":"memo","text":"e"}'


def test_both_packages_pass_mypy_strict_and_black(project: Path) -> None:
    for tool in (["mypy", "--strict", "pkg"], ["black", "--check", "-q", "pkg"]):
        done = subprocess.run(
            [sys.executable, "-m", *tool], cwd=project, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stdout + done.stderr
