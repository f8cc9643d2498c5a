"""Rendering view models with the Jinja2 templates of `templates/`.

Each module's body is rendered before its header, so the header's imports are the ones
the body actually used (collected while the view model was built).
"""

from __future__ import annotations

import functools
import hashlib
import os
import types
from collections.abc import Sequence
from pathlib import Path

import jinja2

import idlc
from idlc import naming
from idlc.codegen.filters import FILTERS
from idlc.codegen.views import ModuleView, PackageView
from idlc.resources import data_dir

#: How the templates are compiled. Part of the compiled code, so part of the cache's key.
_OPTIONS: dict[str, bool | list[str]] = {
    "autoescape": False,
    "keep_trailing_newline": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
    "extensions": ["jinja2.ext.do"],  # `{% do list.append(…) %}`, to collect without copying
}


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between runs: compiling them costs more than rendering.

    Jinja2 keys each entry by the template's name and checks it against the source's
    checksum, so an edited template is compiled again; the folder's name covers idlc's
    version and the compile options (`_OPTIONS`), which the checksum does not see. The
    cache only saves time: an entry that cannot be read back (cut short, overwritten) is
    compiled again, and one that cannot be written (a read-only or full folder) is not
    kept.
    """

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - any damage to an entry: compile again
            bucket.reset()
        if bucket.code is not None and not isinstance(bucket.code, types.CodeType):
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass  # not kept: the next run compiles the template again


def cache_folder() -> Path | None:
    """Where compiled templates are kept (`IDLC_CACHE_DIR`, default `~/.cache/idlc`), or None
    when there is nowhere to keep them: no `IDLC_CACHE_DIR`, no `XDG_CACHE_HOME` and no home
    directory (a container's user with neither `HOME` nor a passwd entry)."""
    base = os.environ.get("IDLC_CACHE_DIR")
    if not base:
        cache_home = os.environ.get("XDG_CACHE_HOME")
        if not cache_home:
            home = os.path.expanduser("~")  # "~" itself when there is no home to find
            if not os.path.isabs(home):
                return None
            cache_home = os.path.join(home, ".cache")
        base = os.path.join(cache_home, "idlc")
    options = hashlib.sha256(repr(sorted(_OPTIONS.items())).encode()).hexdigest()[:12]
    return Path(base) / f"jinja-{idlc.__version__}-{options}"


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    folder = cache_folder()
    if folder is None:
        return None  # no cache: every run compiles the templates
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return _TemplateCache(str(folder))


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        bytecode_cache=_bytecode_cache(),
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # one run renders thousands of modules: no stat() per template use
        **_OPTIONS,  # type: ignore[arg-type]
    )
    env.filters.update(FILTERS)
    # Plain attribute access: the view models are dataclasses, never mappings, so `x.name`
    # needs no fallback to `x["name"]`. Templates read attributes about a million times for
    # a large schema; the builtin itself answers them without a Python call of Jinja's.
    env.getattr = getattr  # type: ignore[method-assign, assignment]
    return env


def _format(head: str, text: str) -> str:
    """`head` + `text` with blank lines at the end normalised. No formatter runs: the
    templates and filters write the layout, so it depends on idlc's version only."""
    return head + text.rstrip("\n") + "\n"


def _provenance(source_names: Sequence[str]) -> str:
    """The comment opening every module, naming idlc's version and every source file
    (`idlc.codegen.provenance`).

    The same for every module of a package, so it is rendered once.
    """
    template = environment().get_template("provenance.py.j2")
    return template.render(version=idlc.__version__, sources=source_names)


def render_module(provenance: str, module: ModuleView) -> str:
    env = environment()
    template = "refs.py.j2" if module.name == naming.REFS_MODULE else "module.py.j2"
    body = env.get_template(template).render(module=module)
    header = env.get_template("header.py.j2").render(
        doc=module.doc,
        module=module,
    )
    return _format(provenance, header + body)


def render_package(package: PackageView, source_names: Sequence[str]) -> dict[str, str]:
    env = environment()
    provenance = _provenance(source_names)
    files: dict[str, str] = {}
    for module in package.modules:
        files[f"{module.name}.py"] = render_module(provenance, module)
    body = env.get_template("init.py.j2").render(package=package)
    header = env.get_template("header.py.j2").render(
        doc="The generated package: every public name of its modules.",
        module=ModuleView("__init__", ""),
    )
    files["__init__.py"] = _format(provenance, header + body)
    files["py.typed"] = ""
    return files
