"""The Jinja2 environment of `templates/`: how idlc renders a template no compiled module
(`idlc.codegen.compiled`) matches, and how `idlc.codegen.template_compiler` parses them all.

Imported only then: `import jinja2` is a sixth of a small `idlc generate`'s start-up.
"""

from __future__ import annotations

import functools
import hashlib
import types
from typing import Any

import jinja2

import idlc
from idlc import cachedir
from idlc.codegen.filters import FILTERS
from idlc.codegen.render import _OPTIONS
from idlc.resources import data_dir


class _TemplateCache(jinja2.BytecodeCache):
    """Compiled templates kept between runs: compiling them costs more than rendering.

    Entries live in idlc's cache folder (`idlc.cachedir`: the user's own, each entry
    checked with the folder's key before Jinja2 unmarshals it). Jinja2 keys each entry by
    the template's name and checks it against the source's checksum, so an edited template
    is compiled again; the entry's name covers idlc's version and the compile options
    (`_OPTIONS`), which the checksum does not see. The cache only saves time: an entry that
    cannot be read back (cut short, overwritten, planted) is compiled again, and one that
    cannot be written is not kept.
    """

    def __init__(self, entries: cachedir.CacheStore) -> None:
        self.entries = entries
        self.prefix = entry_prefix()

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        data = self.entries.load(self.prefix + bucket.key)
        if data is None:
            return
        try:
            bucket.bytecode_from_string(data)
        except Exception:  # noqa: BLE001 - any damage to an entry: compile again
            bucket.reset()
        if bucket.code is not None and not isinstance(bucket.code, types.CodeType):
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.entries.store(self.prefix + bucket.key, bucket.bytecode_to_string())


def entry_prefix() -> str:
    """What the names of this idlc's compiled templates begin with in the cache folder."""
    from idlc.codegen import render  # its options as they are now (a test changes them)

    options = hashlib.sha256(render.options().encode()).hexdigest()[:12]
    return f"jinja-{idlc.__version__}-{options}-"


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    entries = cachedir.store()
    if entries is None:
        return None  # no cache: every run compiles the templates
    return _TemplateCache(entries)


#: The extensions of `_OPTIONS`, loaded by `_Environment` when it first compiles.
_EXTENSIONS: list[str] = _OPTIONS["extensions"]  # type: ignore[assignment]


class _Environment(jinja2.Environment):
    """An environment that loads `_OPTIONS`' extensions only when it compiles a template.

    Extensions act at parse time only (the `do` tag compiles to a plain expression
    statement): the code of a template taken from the cache never needs them, and
    importing `jinja2.ext` is 5M instructions of a small `idlc generate` run's start-up
    (docs/benchmarks.md, "generate's start-up, item by item"). The compiled code is the
    same either way (tests/codegen/test_template_extensions.py compiles every template
    both ways).
    """

    # The two public ways into Jinja2's parser (a template loaded and not found in the
    # cache is compiled by `compile`), both before anything reads `self.extensions`.
    def compile(self, *args: Any, **kwargs: Any) -> Any:
        self._load_extensions()
        return super().compile(*args, **kwargs)

    def parse(self, *args: Any, **kwargs: Any) -> Any:
        self._load_extensions()
        return super().parse(*args, **kwargs)

    def _load_extensions(self) -> None:
        if not self.extensions:
            for extension in _EXTENSIONS:
                self.add_extension(extension)


@functools.cache
def environment() -> jinja2.Environment:
    options = {key: value for key, value in _OPTIONS.items() if key != "extensions"}
    env = _Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        bytecode_cache=_bytecode_cache(),
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # one run renders thousands of modules: no stat() per template use
        **options,  # type: ignore[arg-type]
    )
    env.filters.update(FILTERS)
    # Plain attribute access: the view models are nodes, never mappings, so `x.name`
    # needs no fallback to `x["name"]`. Templates read attributes about a million times for
    # a large schema; the builtin itself answers them without a Python call of Jinja's.
    env.getattr = getattr  # type: ignore[method-assign, assignment]
    return env
