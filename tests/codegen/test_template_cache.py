"""The compiled-template cache of Jinja2 (`idlc.codegen.jinja_env`) only ever saves time: a cache folder
that cannot be written, or entries that cannot be read back, give the same package."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from idlc import cachedir
from idlc.codegen import generate, jinja_env, render
from idlc.pipeline import compile_files
from tests.conftest import SEEDS


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache folder of its own, and an environment that has not loaded any template;
    Jinja2 renders every template (not their compiled modules)."""
    monkeypatch.setenv("IDLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("IDLC_JINJA_TEMPLATES", "1")
    jinja_env.environment.cache_clear()
    cachedir.store.cache_clear()
    folder = cachedir.cache_root()
    assert folder is not None
    yield folder
    jinja_env.environment.cache_clear()
    cachedir.store.cache_clear()


def _templates(folder: Path) -> list[Path]:
    """The compiled templates kept in the cache folder (it holds the parse tables too)."""
    return sorted(folder.glob(jinja_env.entry_prefix() + "*"))


def _files() -> dict[str, str]:
    compilation = compile_files(SEEDS)
    assert compilation.model is not None
    return generate(compilation.model, "seeds").files


@pytest.fixture(scope="module")
def expected() -> dict[str, str]:
    return _files()


def test_a_cache_folder_that_refuses_writes_is_no_error(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, expected: dict[str, str]
) -> None:
    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")  # a read-only (or full) folder

    monkeypatch.setattr(cachedir, "_publish_entry", refused)
    assert _files() == expected
    assert not _templates(fresh_cache)


@pytest.mark.parametrize(
    "damage",
    [
        lambda entry: b"",
        lambda entry: entry[:20],  # cut short inside the checksum
        lambda entry: entry[: len(entry) // 2],  # cut short inside the code
        lambda entry: entry[:14] + b"\xff" * 40,  # the checksum overwritten
        lambda entry: entry[:14] + entry[14:54] + b"not marshal data",
    ],
)
def test_damaged_entries_are_compiled_again(
    fresh_cache: Path, expected: dict[str, str], damage: object
) -> None:
    assert _files() == expected
    entries = _templates(fresh_cache)
    assert entries  # the run above kept its compiled templates
    for entry in entries:
        entry.write_bytes(damage(entry.read_bytes()))  # type: ignore[operator]
    jinja_env.environment.cache_clear()
    assert _files() == expected
    assert all(entry.read_bytes() != b"" for entry in entries)  # compiled again and kept


def test_entries_kept_are_used_again(fresh_cache: Path, expected: dict[str, str]) -> None:
    assert _files() == expected
    kept = {entry.name: entry.stat().st_mtime_ns for entry in _templates(fresh_cache)}
    assert kept
    jinja_env.environment.cache_clear()
    assert _files() == expected
    assert {entry.name: entry.stat().st_mtime_ns for entry in _templates(fresh_cache)} == kept


def test_the_compile_options_are_part_of_the_entries_names(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The source's checksum does not see them, yet they change the compiled code.
    before = jinja_env.entry_prefix()
    monkeypatch.setitem(render._OPTIONS, "trim_blocks", False)
    assert jinja_env.entry_prefix() != before


def test_without_a_home_directory_nothing_is_cached(
    monkeypatch: pytest.MonkeyPatch, expected: dict[str, str]
) -> None:
    # A container's user with neither HOME nor a passwd entry: generation works, uncached
    # (it ended in "internal error: RuntimeError: Could not determine home directory").
    import pwd

    for name in ("HOME", "XDG_CACHE_HOME", "IDLC_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("IDLC_JINJA_TEMPLATES", "1")

    def no_entry(uid: int) -> pwd.struct_passwd:
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    jinja_env.environment.cache_clear()
    cachedir.store.cache_clear()
    try:
        assert cachedir.cache_root() is None
        assert cachedir.store() is None
        assert _files() == expected
    finally:
        jinja_env.environment.cache_clear()
        cachedir.store.cache_clear()
