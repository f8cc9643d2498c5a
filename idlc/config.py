"""`[tool.idlc]` in `pyproject.toml`: what the commands act on when given no files.

```toml
[tool.idlc]
include = ["idl"]                 # include paths for every package (optional)
allow = ["W0002"]                 # warnings not to report, for every package (optional)

[[tool.idlc.packages]]
name = "quixos_agent"             # the Python package to generate
sources = ["idl/quixos"]          # files or folders (every *.idl below)
include = []                      # more include paths (optional)
allow = []                        # more warnings not to report (optional)
out = "generated"                 # the folder the package is written into (optional with
                                  # the build hook, which generates it into the wheel)
format = true                     # false: `idlc fmt` without files leaves the sources as written
target = ["python"]               # the languages generated: "python", "typescript" or both
typescript-out = "web/generated"  # where the TypeScript package goes (default: `out`;
                                  # required when both targets share `out`)
```
Paths are relative to the folder holding `pyproject.toml`. Without the table (or without a
pyproject.toml) `check` and `fmt` find the IDL files themselves (`idlc.discovery`).
"""

from __future__ import annotations

import keyword
import re
import sys
from pathlib import Path

from idlc.boundedread import read_input
from idlc.diagnostics import Diagnostics, codes
from idlc.nodes import node
from idlc.source import display_path


@node
class PackageConfig:
    name: str
    sources: tuple[Path, ...]
    include: tuple[Path, ...]
    #: None: no committed copy; only the Hatch build hook generates the package, into the
    #: wheel (`idlc generate` then has nothing to write or compare for it).
    out: Path | None
    #: Warning codes not to report for this package.
    allow: tuple[str, ...] = ()
    #: False for sources kept exactly as written (copied from elsewhere, byte for byte):
    #: `idlc fmt` without files skips them; named on the command line they are formatted.
    format: bool = True
    #: The `@unstable` features the package has the items of (`*`: every one).
    features: tuple[str, ...] = ()
    #: The import path of the stable package of the same sources, which a package of some
    #: features imports every declaration they leave alone from (`stable-package`).
    stable_package: str | None = None
    #: The target languages the package is generated for (`target`), in the order given.
    targets: tuple[str, ...] = ("python",)
    #: The folder the TypeScript package is written into (`typescript-out`; default `out`).
    typescript_out: Path | None = None


#: The target languages `idlc generate` writes (`--target`, `target`).
TARGETS = ("python", "typescript")


@node
class Config:
    path: Path  # the pyproject.toml it came from
    packages: tuple[PackageConfig, ...]

    @property
    def all_sources(self) -> tuple[Path, ...]:
        seen: dict[Path, None] = {}
        for package in self.packages:
            seen.update(dict.fromkeys(package.sources))
        return tuple(seen)

    @property
    def kept_sources(self) -> tuple[Path, ...]:
        """The sources (files or folders) `idlc fmt` without files leaves as written."""
        return tuple(
            path for package in self.packages if not package.format for path in package.sources
        )


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


@node
class NotConfigured:
    """Nothing configures idlc here: no pyproject.toml from the working folder up, or one
    without a `[tool.idlc]` table (a Python project that does not use idlc's configuration)."""

    #: The pyproject.toml found without the table, if any.
    pyproject: Path | None


def load(diagnostics: Diagnostics, start: Path | None = None) -> Config | None:
    """The configuration found from `start` (the working folder) upwards.

    None, with a diagnostic, when there is none or it is malformed.
    """
    found = lookup(diagnostics, start)
    if not isinstance(found, NotConfigured):
        return found
    if found.pyproject is None:
        diagnostics.add(
            codes.BAD_CONFIGURATION,
            "no input files given and no pyproject.toml found",
            None,
            help="name IDL files on the command line, or configure `[tool.idlc]`",
        )
    else:
        diagnostics.add(
            codes.BAD_CONFIGURATION,
            f"{display_path(found.pyproject)}: has no `[tool.idlc]` table",
            None,
            help="add `[[tool.idlc.packages]]` with `name`, `sources` and `out`, or name files",
        )
    return None


def lookup(diagnostics: Diagnostics, start: Path | None = None) -> Config | NotConfigured | None:
    """Like `load`, but telling "nothing configures idlc" apart from a broken configuration.

    `NotConfigured` when there is no pyproject.toml or it has no `[tool.idlc]` table (the
    commands then find the IDL files themselves); None, with a diagnostic, when the file
    cannot be read or the table is malformed: a mistake there is reported, never worked
    around.
    """
    pyproject = find_pyproject(start or Path.cwd())
    if pyproject is None:
        return NotConfigured(None)
    shown = display_path(pyproject)

    def bad(message: str, help: str | None = None) -> None:
        diagnostics.add(codes.BAD_CONFIGURATION, f"{shown}: {message}", None, help=help)

    import tomllib  # only where there is a pyproject.toml to read: `generate FILES` needs none

    try:
        document = tomllib.loads(read_input(pyproject).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        bad(f"cannot be read: {error}")
        return None
    tool = document.get("tool", {})
    if not isinstance(tool, dict):
        bad("`tool` must be a table")
        return None
    table = tool.get("idlc")
    if table is None:
        return NotConfigured(pyproject)
    if not isinstance(table, dict):
        bad("`tool.idlc` must be a table")
        return None
    root = pyproject.parent
    known = {"include", "packages", "allow"}
    for key in table:
        if key not in known:
            bad(f"unknown key `tool.idlc.{key}`", help="known keys: include, packages, allow")
    common = _paths(table.get("include", []), "tool.idlc.include", root, bad)
    common_allow = _warning_codes(table.get("allow", []), "tool.idlc.allow", bad)
    entries = table.get("packages")
    if not isinstance(entries, list) or not entries:
        bad("`tool.idlc.packages` must be a non-empty array of tables (`[[tool.idlc.packages]]`)")
        return None
    packages: list[PackageConfig] = []
    names: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"tool.idlc.packages[{index}]"
        if not isinstance(entry, dict):
            bad(f"`{where}` must be a table")
            continue
        for key in entry:
            if key not in _PACKAGE_KEYS:
                bad(f"unknown key `{where}.{key}`", help=f"known keys: {', '.join(_PACKAGE_KEYS)}")
        name = entry.get("name")
        if not isinstance(name, str):
            bad(f"`{where}.name` must be a string naming a Python package, got {name!r}")
            continue
        targets = entry.get("target", ["python"])
        if (
            not isinstance(targets, list)
            or not targets
            or not all(target in TARGETS for target in targets)
            or len(set(targets)) != len(targets)
        ):
            bad(
                f"`{where}.target` must be a non-empty list of target languages, got {targets!r}",
                help='known targets: "python", "typescript"',
            )
            continue
        if "python" in targets:
            problem = package_name_problem(name)
            if problem is not None:
                bad(f"`{where}.name` must be a Python package name, got {name!r}: {problem}")
                continue
        if "typescript" in targets:
            problem = typescript_package_name_problem(name)
            if problem is not None:
                bad(f"`{where}.name` must be a TypeScript package name, got {name!r}: {problem}")
                continue
        sources = _paths(entry.get("sources"), f"{where}.sources", root, bad)
        if not sources:
            bad(f"`{where}.sources` must list at least one IDL file or folder")
            continue
        out = entry.get("out")
        if out is not None and (not isinstance(out, str) or not out):
            bad(
                f"`{where}.out` must be a folder path, got {out!r}",
                help="or leave `out` out when only the build hook generates the package",
            )
            continue
        typescript_out = entry.get("typescript-out")
        if typescript_out is not None and (
            not isinstance(typescript_out, str) or not typescript_out
        ):
            bad(f"`{where}.typescript-out` must be a folder path, got {typescript_out!r}")
            continue
        if len(targets) > 1 and out is not None and typescript_out in (None, out):
            bad(
                f"`{where}`: the Python and the TypeScript package `{name}` would both be "
                f"written into `{out}`",
                help="set `typescript-out` to another folder",
            )
            continue
        # One folder per package and target: one name is fine in two `out` folders
        # (`idlc_acp.unstable` and `idlc_acp.v2.unstable`).
        folders = set()
        for target in targets:
            folder = typescript_out if target == "typescript" and typescript_out else out
            folders.add(name if folder is None else str((root / folder / name).resolve()))
        if folders & names:
            bad(f"package `{name}` is configured twice")
            continue
        names |= folders
        include = _paths(entry.get("include", []), f"{where}.include", root, bad)
        allow = _warning_codes(entry.get("allow", []), f"{where}.allow", bad)
        format_ = entry.get("format", True)
        if not isinstance(format_, bool):
            bad(f"`{where}.format` must be true or false, got {format_!r}")
            continue
        features = entry.get("features", [])
        if not isinstance(features, list) or not all(
            isinstance(feature, str) and feature_name_problem(feature) is None
            for feature in features
        ):
            bad(
                f"`{where}.features` must be a list of feature names, got {features!r}",
                help='name features as `@unstable(feature = name)` does, or "*" for every one',
            )
            continue
        stable_package = entry.get("stable-package")
        if stable_package is not None and (
            not isinstance(stable_package, str)
            or not all(part.isidentifier() for part in stable_package.split("."))
        ):
            bad(f"`{where}.stable-package` must be a Python import path, got {stable_package!r}")
            continue
        packages.append(
            PackageConfig(
                name,
                sources,
                (*common, *include),
                None if out is None else root / out,
                (*common_allow, *allow),
                format_,
                tuple(features),
                stable_package,
                tuple(targets),
                None if typescript_out is None else root / typescript_out,
            )
        )
    if diagnostics.has_errors:
        return None
    return Config(pyproject, tuple(packages))


_PACKAGE_KEYS = (
    "name",
    "sources",
    "include",
    "out",
    "allow",
    "format",
    "features",
    "stable-package",
    "target",
    "typescript-out",
)


def feature_name_problem(name: str) -> str | None:
    """Why `name` cannot name an `@unstable` feature (or `*`, every one), or None."""
    if name == "*" or _FEATURE_NAME.fullmatch(name):
        return None
    return "a feature is named like an IDL name: letters, digits and `_`, not first a digit"


_FEATURE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def package_name_problem(name: str) -> str | None:
    """Why `name` cannot name a generated package, or None when it can.

    A plain identifier only: the package is written as one folder under `out`, and a
    dotted name or a path would not be importable from there (or would leave `out`).
    """
    if not name.isidentifier():
        return "use letters, digits and `_` only (no dots, no path)"
    if keyword.iskeyword(name):
        return "it is a Python keyword"
    if name in _IMPORTED_BY_GENERATED_CODE or name in sys.stdlib_module_names:
        # The generated package sits on the import path of everything that uses it: under
        # such a name it would replace that module for the generated code itself (which
        # imports msgspec, typing, enum, abc, idlc_runtime) and for every other importer.
        return f"it would shadow the module `{name}` (choose a name of the project's own)"
    return None


def typescript_package_name_problem(name: str) -> str | None:
    """Why `name` cannot name a generated TypeScript package (its folder under `out` and
    its package.json's `name`), or None when it can."""
    if not _TYPESCRIPT_PACKAGE.fullmatch(name):
        return "use lower-case letters, digits, `-`, `_` and `.`, first a letter or digit"
    if name in ("node_modules", "favicon.ico"):
        return "npm refuses that name"
    return None


_TYPESCRIPT_PACKAGE = re.compile(r"[a-z0-9][a-z0-9._-]{0,213}")


#: What generated code imports besides the standard library (docs/python-mapping.md).
_IMPORTED_BY_GENERATED_CODE = frozenset({"msgspec", "idlc_runtime", "idlc"})


def warning_code_problem(code: str) -> str | None:
    """Why `code` cannot be allowed, or None when it can (a known warning code)."""
    from idlc.diagnostics.codes import REGISTRY

    if code not in REGISTRY:
        return f"`{code}` is not a diagnostic code of idlc"
    if not code.startswith("W"):
        return f"`{code}` is an error; only warnings can be allowed"
    return None


def _warning_codes(value: object, where: str, bad: object) -> tuple[str, ...]:
    assert callable(bad)
    if not (isinstance(value, list) and all(isinstance(item, str) for item in value)):
        bad(f'`{where}` must be an array of warning codes such as "W0002"')
        return ()
    for code in value:
        problem = warning_code_problem(code)
        if problem is not None:
            bad(f"`{where}`: {problem}")
    return tuple(value)


def _paths(value: object, where: str, root: Path, bad: object) -> tuple[Path, ...]:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(root / item for item in value)
    assert callable(bad)
    bad(f"`{where}` must be an array of paths")
    return ()
