"""A package generated from IDL text, importable for the length of a test module."""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from idlc.codegen import generate
from idlc.output.package import write_package
from idlc.pipeline import compile_files


@contextlib.contextmanager
def generated_package(
    folder: Path, name: str, idl: str, *, warnings_allowed: bool = True
) -> Iterator[ModuleType]:
    """Compile `idl` (as `folder/<name>.idl`), generate package `name` into `folder` and
    import it; it is forgotten again (sys.path, sys.modules) when the block ends."""
    source = folder / f"{name}.idl"
    source.write_text(idl, encoding="utf-8")
    compilation = compile_files([source])
    assert compilation.model is not None, list(compilation.diagnostics)
    generated = generate(compilation.model, name)
    if warnings_allowed:
        assert not generated.has_errors, generated.diagnostics
    else:
        assert not generated.diagnostics, generated.diagnostics
    write_package(folder, generated)
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]
