"""Helpers of the TypeScript target's tests: the tools, the packages, a project to compile.

The tools are the runtime's own: `runtime-ts/node_modules/.bin/tsc` (from `npm ci` in
runtime-ts) and the built runtime, `runtime-ts/dist` (`npm run build`). Without them (or
without node) the tests skip on a developer machine and fail under CI, as the interop
tests do (tests/interop/support.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from idlc.codegen import GeneratedPackage
from idlc.codegen.typescript import generate
from idlc.pipeline import compile_files
from tests.conftest import unavailable

REPO = Path(__file__).resolve().parents[2]
RUNTIME = REPO / "runtime-ts"
TSC = RUNTIME / "node_modules" / ".bin" / "tsc"
SEEDS = [REPO / "idl/quixos/agent_directory.idl", REPO / "idl/quixos/agent_request.idl"]
CORPUS = REPO / "tests" / "codegen" / "corpus"

#: package name → IDL files: the seeds, ACP, and every package of the codegen corpus
#: (tests/codegen/conftest.py's PACKAGES).
PACKAGES: dict[str, list[Path]] = {
    "seeds": SEEDS,
    "acp": [REPO / "idl/acp.idl"],
    # The v2 draft: variants three tags deep (G18) and unions ending in `json` (G19).
    "acp-v2": [REPO / "idl/acp-v2.idl"],
    "features": [CORPUS / "features.idl"],
    "hostile": [CORPUS / "hostile.idl"],
    "edges": [CORPUS / "edge_shapes.idl"],
    "extensions": [REPO / "tests/corpus/valid/extensions.idl"],
    "keywords": [REPO / "tests/corpus/valid/keywords_as_names.idl"],
    "strings": [REPO / "tests/corpus/valid/strings.idl"],
    "acp-constructs": [REPO / "tests/corpus/valid/acp_constructs.idl"],
}

TSC_TIMEOUT = 300.0


@dataclass(frozen=True)
class Tools:
    node: str
    tsc: Path
    runtime: Path


def find_tools() -> Tools:
    """The node, tsc and built runtime the tests use; skips (fails under CI) without them."""
    missing = []
    node = shutil.which("node")
    if node is None:
        missing.append("node is not on PATH")
    if not TSC.exists():
        missing.append(f"{TSC} is missing (run: npm ci --prefix runtime-ts)")
    if missing:
        unavailable("TypeScript tools unavailable: " + "; ".join(missing), "install them")
    assert node is not None
    return Tools(node, TSC, RUNTIME)


def build(
    name: str, paths: list[Path], features: frozenset[str] | None = frozenset()
) -> GeneratedPackage:
    compilation = compile_files(paths, features=features)
    assert compilation.model is not None, list(compilation.diagnostics)
    generated = generate(compilation.model, name)
    assert not generated.has_errors, generated.diagnostics
    return generated


def make_project(folder: Path, packages: list[GeneratedPackage], tools: Tools) -> Path:
    """A TypeScript project in `folder`: the packages under `src/`, `@idlc/runtime` linked
    into its node_modules, one tsconfig per resolution (`tsconfig.nodenext.json`,
    `tsconfig.bundler.json`)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text('{"type": "module", "private": true}\n')
    scope = folder / "node_modules" / "@idlc"
    scope.mkdir(parents=True, exist_ok=True)
    link = scope / "runtime"
    if not link.exists():
        link.symlink_to(tools.runtime, target_is_directory=True)
    for package in packages:
        target = folder / "src" / package.package
        target.mkdir(parents=True, exist_ok=True)
        for path, text in package.files.items():
            (target / path).write_text(text, encoding="utf-8")
    base = {
        "target": "ES2022",
        "lib": ["ES2022", "DOM"],
        "strict": True,
        "noUncheckedIndexedAccess": True,
        "noUnusedLocals": True,
        "noUnusedParameters": True,
        "exactOptionalPropertyTypes": True,
        "noImplicitOverride": True,
        "noPropertyAccessFromIndexSignature": True,
        "types": [],
        "skipLibCheck": False,
        "rootDir": "src",
        "outDir": "dist",
    }
    configs = {
        "nodenext": {"module": "NodeNext", "moduleResolution": "NodeNext"},
        "bundler": {"module": "ESNext", "moduleResolution": "bundler"},
    }
    for name, resolution in configs.items():
        config = {"compilerOptions": {**base, **resolution}, "include": ["src/**/*.ts"]}
        (folder / f"tsconfig.{name}.json").write_text(json.dumps(config, indent=2))
    return folder


def tsc(tools: Tools, project: Path, config: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(tools.tsc), "-p", str(project / config), *extra],
        capture_output=True,
        text=True,
        timeout=TSC_TIMEOUT,
        cwd=project,
    )


def build_runtime(tools: Tools, folder: Path) -> Path:
    """@idlc/runtime built from runtime-ts/src as it is, into `folder/runtime` (its
    package.json, `dist/` and `test/`): what the tests' projects link as
    `node_modules/@idlc/runtime`, never the repository's own dist (other runs may use it)."""
    runtime = folder / "runtime"
    runtime.mkdir()
    shutil.copy(RUNTIME / "package.json", runtime / "package.json")
    shutil.copytree(RUNTIME / "test", runtime / "test")
    done = subprocess.run(
        [
            str(tools.tsc),
            "-p",
            str(RUNTIME / "tsconfig.json"),
            "--outDir",
            str(runtime / "dist"),
        ],
        capture_output=True,
        text=True,
        timeout=TSC_TIMEOUT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return runtime
