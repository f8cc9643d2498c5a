"""Every `pip install` command the documentation writes works as written.

The three wheels are built from a snapshot of this checkout into one folder (`wheels`),
the local index: each command that installs a distribution by name runs in a fresh virtual
environment as `pip install --find-links DIR <the documented arguments>` (the dependencies
from the configured package index), and what it installs is imported. The README's two
package-build recipes run in a scratch project: by name with `--find-links`, and from the
checkout with direct references. A command the documentation gains that this module does
not know fails `test_every_documented_pip_command_is_known`.

Slow: a fresh environment and an install per command. The environments are made without pip
and the test environment's pip installs into each (`support.pip_in`, `pip --python`): the same
pip resolving and installing the same command, without seconds of installing pip every time.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from tests.test_readme import _readme_commands
from tests.tooling.support import REPO, fresh_environment, pip_in
from tests.tooling.support import run_installed as run

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout"),
]

#: Where the documentation writes pip commands (and the message `idlc lsp` prints).
DOCUMENTS = [
    REPO / "README.md",
    REPO / "runtime" / "README.md",
    REPO / "acp" / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
    REPO / "idlc" / "cli.py",
]

#: The distributions of this repository, by the import that shows each extra works.
BY_NAME_CHECK = {
    "idlc": "import idlc, lark, jinja2, click",
    "idlc[lsp]": "import idlc.lsp, pygls",
    "idlc-runtime": "import idlc_runtime",
    "idlc-runtime[web]": "import idlc_runtime.web, starlette, uvicorn, websockets",
    "idlc-acp": "import idlc_acp.protocol",
    "idlc-acp[web]": "import idlc_acp.web, hypercorn, httpx, h2",
}

#: Commands that install from a checkout (the README's set-up and its recipe), with where
#: they run: `checkout` ones here, from the snapshot's root; the others in the test named.
FROM_A_CHECKOUT = {
    # The README's first set-up command, which tests/tooling/test_readme_main_job.py runs as
    # written from a copy of the snapshot (a fresh environment that then generates and runs
    # the seeds): installing it once more here would prove nothing more.
    "./runtime .": "the README's first command (test_readme_main_job)",
    "./runtime ./acp": "checkout",
    "./runtime": "checkout",
    "./runtime '.[lsp]'": "checkout",
    "-q -e ./runtime -e ./acp -e '.[test]'": "the README's test command, which CI runs",
    "-e '.[bench]'": "docs/benchmarks.md, the benchmarks' own set-up (grpcio-tools)",
    ".": "test_the_readme_recipe_with_direct_references_builds_the_package_from_a_checkout",
    "-e .": "test_the_readme_recipe_by_name_builds_the_package_and_reinstalls_it_editable",
    "--find-links wheels .": "test_the_readme_recipe_by_name_builds_the_package_and_reinstalls_it_editable",
    "'idlc-runtime @ git+https://github.com/<owner>/idlc#subdirectory=runtime' "
    "'idlc @ git+https://github.com/<owner>/idlc'": "a git URL: the same sources as ./runtime .",
    "'idlc-runtime @ git+https://github.com/<owner>/idlc#subdirectory=runtime' "
    "'idlc-acp @ git+https://github.com/<owner>/idlc#subdirectory=acp'": "docs/acp.md, a git URL: "
    "the same sources as ./runtime ./acp",
    # docs/tutorial.md's step 0 names the checkout by a placeholder path: `./runtime .`, run
    # from elsewhere (tests/test_tutorial.py checks it names both projects).
    "path/to/idlc/runtime path/to/idlc": "docs/tutorial.md: ./runtime . from outside the checkout",
    "mypy": "docs/tutorial.md: a third-party tool, optional in step 5",
}

_ARGUMENT = r"""(?:'[^'\n]*'|"[^"\n]*"|[^\s`'"#&;)]+)"""
_COMMAND = re.compile(rf"pip install((?:[ \t]+{_ARGUMENT})+)")


def documented_commands() -> dict[str, list[str]]:
    """The arguments of every `pip install` in the documentation → where it is written."""
    found: dict[str, list[str]] = {}
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for match in _COMMAND.finditer(text):
            arguments = " ".join(match.group(1).split())
            found.setdefault(arguments, []).append(str(document.relative_to(REPO)))
    return found


def _by_name(arguments: str) -> list[str] | None:
    """The requirements of a command that installs only this repository's distributions by
    name (`'idlc[lsp]'`), or None."""
    words = shlex.split(arguments)
    if words and all(word in BY_NAME_CHECK for word in words):
        return words
    return None


def test_every_documented_pip_command_is_known() -> None:
    unknown = {
        arguments: where
        for arguments, where in documented_commands().items()
        if _by_name(arguments) is None and arguments not in FROM_A_CHECKOUT
    }
    assert not unknown, f"pip commands no test runs (add them here): {unknown}"
    assert _by_name("'idlc[lsp]'") == ["idlc[lsp]"]  # the scan sees quoted arguments


def test_the_readme_first_command_is_the_checkout_install_it_stands_for() -> None:
    install, _ = _readme_commands()
    assert ".venv/bin/pip install ./runtime . &&" in install, install


BY_NAME = sorted(a for a in documented_commands() if _by_name(a) is not None)
CHECKOUT = sorted(a for a, how in FROM_A_CHECKOUT.items() if how == "checkout")


def test_the_documentation_names_the_extras() -> None:
    # What the issue found failing: the commands of docs/editors.md, docs/acp-remote.md and
    # docs/web.md (and `idlc lsp`'s message) are among those run below.
    assert {"'idlc[lsp]'", "'idlc-acp[web]'", "'idlc-runtime[web]'"} <= set(BY_NAME)


@pytest.mark.parametrize("arguments", BY_NAME)
def test_a_documented_install_by_name_works_from_the_local_index(
    arguments: str, wheels: dict[str, Path], tmp_path: Path
) -> None:
    python = fresh_environment(tmp_path / "env")
    index = wheels["idlc"].parent
    installed = pip_in(python, "install", "-q", "--find-links", index, *shlex.split(arguments))
    assert installed.returncode == 0, installed.stdout + installed.stderr
    for requirement in shlex.split(arguments):
        imported = run(python, "-c", BY_NAME_CHECK[requirement], cwd=tmp_path)
        assert imported.returncode == 0, imported.stderr


@pytest.mark.parametrize("arguments", CHECKOUT)
def test_a_documented_install_from_a_checkout_works(
    arguments: str, checkout_snapshot: Path, tmp_path: Path
) -> None:
    python = fresh_environment(tmp_path / "env")
    installed = pip_in(python, "install", "-q", *shlex.split(arguments), cwd=checkout_snapshot)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    imported = run(python, "-c", "import idlc_runtime", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr


WEATHER = """\
interface Weather id "weather" revision "weather@1" {
  operation forecast id "weather:forecast" : record { city : string; days : uint32; } -> list<float64> { call id "weather:forecast:call" execution snapshot; }
}
"""


def readme_recipes() -> list[str]:
    build = (REPO / "README.md").read_text(encoding="utf-8").split("## In a build", 1)[1]
    return re.findall(r"```toml\n(.*?)\n```", build.split("\n## ", 1)[0], re.DOTALL)


def build_recipe(recipe: str, options: list[str], folder: Path) -> Path:
    """A scratch project of `recipe` (a README pyproject.toml) and the IDL of one interface in
    `folder`, installed as the README says, `pip install .` (with build isolation: the build
    installs idlc itself), into a fresh environment, whose python is returned."""
    project = folder / "project"
    (project / "idl").mkdir(parents=True)
    (project / "pyproject.toml").write_text(recipe + "\n", encoding="utf-8")
    (project / "idl" / "weather.idl").write_text(WEATHER, encoding="utf-8")
    python = fresh_environment(folder / "env")
    installed = pip_in(python, "install", "-q", *options, ".", cwd=project)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    imported = run(
        python, "-c", "import weather_api; print(weather_api.Weather.__name__)", cwd=folder
    )
    assert imported.stdout.strip() == "Weather", imported.stderr
    checked = pip_in(python, "show", "idlc", cwd=folder)
    assert checked.returncode != 0, "idlc is needed to build, not installed to run"
    return python


def test_the_readme_recipe_by_name_builds_the_package_and_reinstalls_it_editable(
    wheels: dict[str, Path], tmp_path: Path
) -> None:
    by_name, _ = readme_recipes()
    assert 'requires = ["hatchling>=1.27", "idlc"]' in by_name
    index = wheels["idlc"].parent
    python = build_recipe(by_name, ["--find-links", str(index)], tmp_path)
    # `pip install -e .`, which the README says to run again after an IDL edit.
    project = tmp_path / "project"
    (project / "idl" / "weather.idl").write_text(
        WEATHER.replace("operation forecast", "operation outlook")
        .replace('"weather:forecast"', '"weather:outlook"')
        .replace("weather:forecast:call", "weather:outlook:call"),
        encoding="utf-8",
    )
    edited = pip_in(python, "install", "-q", "--find-links", index, "-e", ".", cwd=project)
    assert edited.returncode == 0, edited.stdout + edited.stderr
    outlook = run(
        python, "-c", "import weather_api; print(weather_api.Weather.outlook)", cwd=tmp_path
    )
    assert outlook.returncode == 0, outlook.stderr


def test_the_readme_recipe_with_direct_references_builds_the_package_from_a_checkout(
    checkout_snapshot: Path, tmp_path: Path
) -> None:
    _, direct = readme_recipes()
    assert "allow-direct-references = true" in direct
    build_recipe(direct.replace("file:///path/to/idlc", checkout_snapshot.as_uri()), [], tmp_path)
