"""The templates compiled to Python (`idlc.codegen.template_compiler`, used by
`idlc.codegen.template_loader`) write what Jinja2 writes from the templates, byte for byte,
and are used only while they match the templates they were made from."""

from __future__ import annotations

import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
import jinja2.filters
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.synthetic import schema
from idlc.codegen import compiled, generate, render, template_builtins, template_compiler
from idlc.codegen import template_loader as loader
from idlc.codegen.typescript import generate as generate_typescript
from idlc.codegen.typescript import render as typescript_render
from idlc.pipeline import compile_files
from idlc.resources import data_dir
from tests.conftest import REPO, SEEDS

from .conftest import PACKAGES

TEMPLATES = data_dir("templates")
ALL_TEMPLATES = sorted(str(p.relative_to(TEMPLATES)) for p in TEMPLATES.rglob("*.j2"))


def test_the_compiled_modules_are_those_of_the_templates_as_they_are() -> None:
    expected = template_compiler.expected_files()
    folder = template_compiler.COMPILED
    committed = {path.name: path.read_text(encoding="utf-8") for path in folder.glob("*.py")}
    stale = sorted(
        name
        for name in expected.keys() | committed.keys()
        if expected.get(name) != committed.get(name)
    )
    assert not stale, (
        f"idlc/codegen/compiled/ is stale ({', '.join(stale)}): run "
        f"`{template_compiler.COMMAND}` and commit what it writes"
    )


def test_every_template_has_a_compiled_module_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(loader.JINJA_ONLY, raising=False)
    assert sorted(compiled.MODULES) == ALL_TEMPLATES
    for name in ALL_TEMPLATES:
        folder, _, file = name.rpartition("/")
        options = typescript_render.options if folder else render.options
        templates = loader.Templates(folder, options, _no_jinja)
        assert isinstance(templates.get(file), types.ModuleType), name


def _no_jinja() -> Any:
    raise AssertionError("Jinja2 was asked for a template a compiled module matches")


# -- used only while it matches -------------------------------------------------------


class _Jinja:
    """A stand-in Jinja2 environment: which templates it was asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def get_template(self, name: str) -> str:
        self.asked.append(name)
        return f"jinja:{name}"


@pytest.fixture
def templates_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of templates/ that the loader reads instead."""
    copy = tmp_path / "templates"
    for path in TEMPLATES.rglob("*.j2"):
        target = copy / path.relative_to(TEMPLATES)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    monkeypatch.setattr(loader, "data_dir", lambda name: copy)
    monkeypatch.delenv(loader.JINJA_ONLY, raising=False)
    yield copy


@pytest.mark.parametrize(
    "edited, falls_back",
    [
        ("header.py.j2", {"header.py.j2"}),
        # module.py.j2 imports it: its compiled module would render the old macros.
        ("_types.py.j2", {"module.py.j2", "_types.py.j2"}),
        ("_interface.py.j2", {"module.py.j2", "_interface.py.j2"}),
    ],
)
def test_an_edited_template_is_rendered_by_jinja2(
    templates_copy: Path, edited: str, falls_back: set[str]
) -> None:
    path = templates_copy / edited
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n", 1))  # one byte more
    jinja = _Jinja()
    templates = loader.Templates("", render.options, lambda: jinja)
    for name in (p.name for p in templates_copy.glob("*.j2")):
        used: object = templates.get(name)
        assert (used == f"jinja:{name}") == (name in falls_back), name


def test_a_missing_or_unreadable_template_is_left_to_jinja2(templates_copy: Path) -> None:
    (templates_copy / "header.py.j2").unlink()
    (templates_copy / "init.py.j2").write_bytes(b"\xff\xfe not UTF-8")
    jinja = _Jinja()
    templates = loader.Templates("", render.options, lambda: jinja)
    get: Any = templates.get
    assert get("header.py.j2") == "jinja:header.py.j2"  # Jinja2 says it is missing
    assert get("init.py.j2") == "jinja:init.py.j2"
    assert isinstance(templates.get("refs.py.j2"), types.ModuleType)


def test_other_options_are_rendered_by_jinja2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(loader.JINJA_ONLY, raising=False)
    monkeypatch.setitem(render._OPTIONS, "trim_blocks", False)
    jinja = _Jinja()
    get: Any = loader.Templates("", render.options, lambda: jinja).get
    assert get("header.py.j2") == "jinja:header.py.j2"


def test_a_compiled_module_that_does_not_import_is_rendered_by_jinja2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stale module can fail before `matches` sees it (a filter it takes renamed, a
    template it imports deleted): Jinja2 renders its template instead of idlc failing."""
    monkeypatch.delenv(loader.JINJA_ONLY, raising=False)
    real = loader.importlib.import_module

    def import_module(name: str) -> types.ModuleType:
        if name.endswith(".t_header_py"):
            raise KeyError("wrap")  # as `_FILTERS['wrap']` raises once the filter is gone
        return real(name)

    monkeypatch.setattr(loader.importlib, "import_module", import_module)
    jinja = _Jinja()
    get: Any = loader.Templates("", render.options, lambda: jinja).get
    assert get("header.py.j2") == "jinja:header.py.j2"
    assert isinstance(get("refs.py.j2"), types.ModuleType)


def test_idlc_jinja_templates_renders_every_template_with_jinja2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    jinja = _Jinja()
    get: Any = loader.Templates("", render.options, lambda: jinja).get
    for value, jinja_used in [("1", True), ("0", False), ("", False)]:
        monkeypatch.setenv(loader.JINJA_ONLY, value)
        assert (get("refs.py.j2") == "jinja:refs.py.j2") == jinja_used


# -- the same text ----------------------------------------------------------------------


class _Both:
    """Renders a template both ways and insists on the same text."""

    def __init__(self, name: str, compiled_module: Any, jinja_template: Any, seen: set[str]):
        self.name, self.compiled, self.jinja, self.seen = (
            name,
            compiled_module,
            jinja_template,
            seen,
        )

    def render(self, **context: Any) -> str:
        text: str = self.compiled.render(**context)
        assert text == self.jinja.render(**context), self.name
        self.seen.add(self.name)
        return text


@pytest.fixture
def both_ways(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Every template rendered both ways from here on; the names of those rendered."""
    monkeypatch.delenv(loader.JINJA_ONLY, raising=False)
    seen: set[str] = set()
    for module, jinja in [
        (render, render._jinja),
        (typescript_render, typescript_render.environment),
    ]:
        templates: loader.Templates = module._TEMPLATES
        original = templates.get

        def get(
            name: str,
            templates: loader.Templates = templates,
            jinja: Any = jinja,
            original: Any = original,
        ) -> _Both:
            compiled_module = original(name)
            assert isinstance(compiled_module, types.ModuleType), name
            path = f"{templates.folder}/{name}" if templates.folder else name
            return _Both(path, compiled_module, jinja().get_template(name), seen)

        monkeypatch.setattr(templates, "get", get)
    return seen


def _both_targets(paths: list[Path], features: frozenset[str] | None = frozenset()) -> None:
    compilation = compile_files(paths, features=features)
    assert compilation.model is not None, list(compilation.diagnostics)
    assert generate(compilation.model, "pkg", plan=compilation.plan).files
    if features is None:  # the unstable overlay on the stable package, as ACP's is made
        base = compilation.overlay("stable")
        assert generate(compilation.model, "unstable", plan=compilation.plan, base=base).files
    assert generate_typescript(compilation.model, "pkg").files


CORPORA = {
    **{name: paths for name, paths in PACKAGES.items()},
    "seeds": list(SEEDS),
    "acp": [REPO / "idl/acp.idl"],
    "acp-v2": [REPO / "idl/acp-v2.idl"],
}


def test_every_template_writes_what_jinja2_writes_over_the_corpora(both_ways: set[str]) -> None:
    for paths in CORPORA.values():
        _both_targets(paths)
    for paths in ([REPO / "idl/acp.idl"], [REPO / "idl/acp-v2.idl"]):
        _both_targets(paths, features=None)
    # The macro templates render inside module.py.j2.
    assert both_ways == set(ALL_TEMPLATES) - {"_types.py.j2", "_interface.py.j2"}


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(n=st.integers(min_value=1, max_value=4), seed=st.integers(min_value=0, max_value=2**32))
def test_synthetic_schemas_are_written_alike(
    both_ways: set[str], tmp_path_factory: pytest.TempPathFactory, n: int, seed: int
) -> None:
    path = tmp_path_factory.mktemp("synthetic") / "bench.idl"
    path.write_text(schema(n, seed), encoding="utf-8")
    _both_targets([path])


@given(
    text=st.text(alphabet=st.sampled_from("ab \t\n\r\x0b\x0c\x1c\x85\u2028"), max_size=30),
    width=st.one_of(st.integers(min_value=0, max_value=8), st.text(alphabet=" >-", max_size=3)),
    first=st.booleans(),
    blank=st.booleans(),
)
def test_indent_is_jinja2s(text: str, width: int | str, first: bool, blank: bool) -> None:
    assert template_builtins.indent(text, width, first, blank) == jinja2.filters.do_indent(
        text, width, first, blank
    )


# -- what the compiler translates, and what it refuses -----------------------------------


def _compile(tmp_path: Path, source: str, name: str = "t.py.j2") -> Any:
    """`source` as a template of the Python target's, compiled and loaded as a module."""
    folder = tmp_path / "templates"
    (folder / "typescript").mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(source, encoding="utf-8")
    modules = template_compiler.compile_all(folder)
    module = types.ModuleType(name)
    exec(compile(modules[template_compiler.module_name(name)].text, name, "exec"), vars(module))
    return module


def _jinja(source: str, **context: Any) -> str:
    from idlc.codegen import jinja_env

    return jinja_env.environment().from_string(source).render(**context)


class _Item:
    def __init__(self, **attributes: Any) -> None:
        vars(self).update(attributes)


SAME = {
    # A loop's `set` is the loop's own: the outer value is back after it.
    "scopes": "{% set x = 1 %}{% for i in items %}{% set x = i.n %}{{ x }}{% endfor %}|{{ x }}",
    "loop": "{% for i in items %}{{ loop.index }}{{ loop.first }}{{ loop.last }},{% endfor %}",
    "filtered": "{% for i in items if i.n > 1 %}{{ i.n }}{% endfor %}",
    "unpacked": "{% for a, b in [(1, 2), (3, 4)] %}{{ a ~ b }}{% endfor %}",
    "macros": "{% macro m(a) %}<{{ a }}{{ n(a) }}>{% endmacro %}{% macro n(b) %}{{ b * 2 }}{% endmacro %}{{ m(3) }}",
    "inline if": "{{ 'x' if items }}{{ 'y' if not items }}{{ 'z' ~ ('w' if false) }}",
    "values": "{{ none }} {{ true }} {{ [1, 'a'] }} {{ {'k': 1} }} {{ (1,) }} {{ 7 // 2 }} {{ -3 % 2 }}",
    "tests": "{{ x is none }}{{ items is not none }}{{ 1 in [1] }}{{ 2 not in [1] }}{{ items | length }}",
    "do": "{% set seen = [] %}{% for i in items %}{% do seen.append(i.n) %}{% endfor %}{{ seen }}",
    "percent": "100% {{ '%s' }} %% {{ 5 % 3 }}",
    # Python names of their own, whatever the templates' names are.
    "names": "{% set x = 1 %}{% for i in items %}{% set x = 2 %}{% set x_2 = 3 %}{% endfor %}"
    "{% set x_2 = 4 %}{{ x }}{{ x_2 }}{% set j_x = 5 %}{{ j_x }}{{ items[0].n }}",
    "filters": "{{ 'a\nb' | indent(2) }}|{{ 'q' | python_string }}|{{ items | each('{0.n}') }}",
}


@pytest.mark.parametrize("name", sorted(SAME))
def test_constructs_render_as_jinja2_renders_them(tmp_path: Path, name: str) -> None:
    source = SAME[name]
    context = {"items": [_Item(n=1), _Item(n=2), _Item(n=3)], "x": None}
    assert _compile(tmp_path, source).render(**context) == _jinja(source, **context)


def test_what_is_missing_raises_and_names_it(tmp_path: Path) -> None:
    module = _compile(tmp_path, "{{ item.nothing }}")
    with pytest.raises(KeyError, match="item"):
        module.render()
    with pytest.raises(AttributeError, match="nothing"):
        module.render(item=_Item())
    with pytest.raises(AttributeError, match="nothing"):  # as Jinja2 (`env.getattr = getattr`)
        _jinja("{{ item.nothing }}", item=_Item())


REFUSED = {
    "{% for i in items %}{% else %}none{% endfor %}": "`For`",
    "{{ items | sort }}": "the filter `sort`",
    "{{ items is defined }}": "`Test`",
    "{% set x %}block{% endset %}": "`AssignBlock`",
    "{{ range(3) }}": "`range`",
    "{% if a %}{% set x = 1 %}{% endif %}{{ x }}": "reading `x` where its scope may not have set it",
    "{% for i in items if i %}{{ loop.index }}{% endfor %}": "`loop` in a loop with an `if` filter",
    "{% macro m(a=1) %}{% endmacro %}": "`Macro`",
    "{% macro m() %}{{ caller() }}{% endmacro %}": "`caller` in a macro",
    "{{ 'x' if a }}{% set y = ('x' if a) + 'b' %}": "an inline `if` without `else`",
    "{{ loop }}": "`loop` outside a loop",
    "{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}": "a macro call with keyword arguments or another arity",
    "{% filter upper %}x{% endfilter %}": "`FilterBlock`",
    "{{ items[1:2] }}": "`Getitem`",
    "{{ items['n'] }}": "`Getitem`",
    "{% import '../x.py.j2' as x %}": "`Import`",
    "{{ items | each(class=1) }}": "the keyword argument `class`",
    "{% macro m() %}{% endmacro %}{{ m }}": "the macro `m` as a value",
    "{% if a %}{% set y = 1 %}{% endif %}{% macro m() %}{{ y }}{% endmacro %}{{ m() }}": (
        "a macro reading `y`, which is set only in an `if`"
    ),
}


@pytest.mark.parametrize("source", sorted(REFUSED))
def test_what_it_does_not_translate_is_a_clear_error(tmp_path: Path, source: str) -> None:
    with pytest.raises(template_compiler.TemplateCompileError) as raised:
        _compile(tmp_path, "\n" + source, name="bad.py.j2")
    message = str(raised.value)
    assert message.startswith("templates/bad.py.j2:2: "), message
    assert REFUSED[source] in message
    assert "not supported by idlc's template compiler" in message


def test_what_jinja2_itself_refuses_is_refused(tmp_path: Path) -> None:
    """Jinja2's compiler runs too: a template it would refuse does not work compiled."""
    with pytest.raises(template_compiler.TemplateCompileError) as raised:
        _compile(tmp_path, "\n{% for loop in items %}{% endfor %}", name="bad.py.j2")
    assert str(raised.value).startswith("templates/bad.py.j2:2: "), raised.value
    assert "loop" in str(raised.value)


def test_a_filter_that_asks_jinja2_for_more_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from idlc.codegen import filters

    @jinja2.pass_context
    def contextual(context: Any, value: Any) -> str:
        return str(value)

    monkeypatch.setitem(filters.FILTERS, "contextual", contextual)
    with pytest.raises(template_compiler.TemplateCompileError, match="asks Jinja2"):
        _compile(tmp_path, "{{ 1 | contextual }}")


def test_a_syntax_error_names_the_template_and_line(tmp_path: Path) -> None:
    with pytest.raises(template_compiler.TemplateCompileError, match=r"templates/bad.py.j2:3: "):
        _compile(tmp_path, "\n\n{% if %}", name="bad.py.j2")


def test_the_command_reports_a_template_it_cannot_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse() -> dict[str, str]:
        raise template_compiler.TemplateCompileError("templates/x.py.j2:1: `For` is not ...")

    monkeypatch.setattr(template_compiler, "expected_files", refuse)
    assert template_compiler.main() == 1
    assert capsys.readouterr().err == "error: templates/x.py.j2:1: `For` is not ...\n"
