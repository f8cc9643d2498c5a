"""A Hatch build hook: generate the packages of `[tool.idlc]` into the wheel being built.

A downstream project keeps only its IDL files in version control and lists them in its own
`pyproject.toml`:

```toml
[build-system]
requires = ["hatchling>=1.27", "idlc"]
build-backend = "hatchling.build"

[project]
dependencies = ["idlc-runtime"]     # generated code imports idlc_runtime, not the compiler

[tool.hatch.build.hooks.idlc]       # enables this hook

[[tool.idlc.packages]]
name = "weather_api"
sources = ["idl/weather.idl"]       # no `out`: nothing is committed, the build generates it
```

`pip install .` or `python -m build` then generates `weather_api` (from the IDL files of
the source tree, or of the sdist, which carries them like any other file) into a temporary
folder and puts it into the wheel (`force_include`), without idlc's `.idlc-manifest`.
Nothing is written into the source tree. Errors in the IDL files fail the build with the
diagnostics and no traceback.

An editable install (`pip install -e .`) gets a generated copy too: after an IDL edit,
run `pip install -e .` again. A project that wants its generated package committed (and
importable from the tree) sets `out`, runs `idlc generate`, and does not enable this hook:
the two workflows exclude each other (with both, Hatch would add the package twice).

Registered with Hatch through the `hatch` entry point group (`idlc = "idlc.build.hatch"`).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.plugin import hookimpl

__all__ = ["IdlcBuildHook", "IdlcBuildError", "hatch_register_build_hook"]


class IdlcBuildError(Exception):
    """The IDL sources or the configuration are wrong; the message has the diagnostics."""


class IdlcBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "idlc"

    _folder: Path | None = None

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return  # an sdist carries the IDL files; its wheel is generated when built
        folder = Path(tempfile.mkdtemp(prefix="idlc-build-"))
        self._folder = folder
        try:
            packages = generate_packages(Path(self.root), folder)
        except IdlcBuildError as error:
            # The diagnostics are the whole story: a traceback of the hook would bury them.
            shutil.rmtree(folder, ignore_errors=True)
            print(error, file=sys.stderr)
            raise SystemExit(1) from None
        inclusion = "force_include_editable" if version == "editable" else "force_include"
        for name in packages:
            source = folder / name
            target = name.replace(".", "/")
            build_data["force_include"][str(source)] = target
            if inclusion != "force_include":
                build_data[inclusion][str(source)] = target
            self.app.display_info(f"idlc: generated package `{name}`")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


def generate_packages(root: Path, out: Path) -> list[str]:
    """Generate every package of `[tool.idlc]` in `root/pyproject.toml` into `out`.

    Returns the package names. Raises `IdlcBuildError` with the rendered diagnostics.
    """
    from idlc.commands.generate import GenerateJob, feature_set, run_generate
    from idlc.config import load
    from idlc.diagnostics import Diagnostics, codes
    from idlc.diagnostics.render import render_human
    from idlc.output.package import MANIFEST
    from idlc.source import SourceMap

    diagnostics = Diagnostics()
    configuration = load(diagnostics, root)
    if configuration is not None and configuration.path.parent.resolve() != root.resolve():
        configuration = None
        diagnostics.add(
            codes.BAD_CONFIGURATION,
            f"{root / 'pyproject.toml'} has no readable `[tool.idlc]`",
            None,
        )
    if configuration is None:
        raise IdlcBuildError(render_human(diagnostics.items, SourceMap()))
    # A wheel carries Python packages only: a package configured for TypeScript alone is not
    # built into it (`target`, docs/typescript-mapping.md).
    python = [package for package in configuration.packages if "python" in package.targets]
    names = [package.name for package in python]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        # `[tool.idlc]` allows one name in two `out` folders; the hook writes every package
        # into the one build folder, by name.
        raise IdlcBuildError(
            f"the build hook cannot generate two packages named {', '.join(twice)}: "
            "rename one in [tool.idlc]"
        )
    jobs = [
        GenerateJob(
            package.sources,
            package.include,
            out,
            package.name,
            root=root,
            features=feature_set(package.features),
            stable_package=package.stable_package,
        )
        for package in python
    ]
    outcome = run_generate(jobs, check=False, diagnostics=diagnostics)
    if outcome.failed or diagnostics.has_errors:
        text = render_human(diagnostics.items, outcome.sources)
        raise IdlcBuildError("idlc could not generate the packages of [tool.idlc]:\n" + text)
    for package in python:
        # The record `idlc generate --check` compares a committed copy with: not package data.
        (out / package.name / MANIFEST).unlink(missing_ok=True)
    warnings = render_human(diagnostics.items, outcome.sources)
    if warnings:
        print(warnings, file=sys.stderr, end="")
    return [package.name for package in python]


@hookimpl
def hatch_register_build_hook() -> type[IdlcBuildHook]:
    return IdlcBuildHook
