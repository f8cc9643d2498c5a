"""The Hatch build hook: a downstream project that lists its IDL sources in its own
pyproject.toml gets its package generated into the wheel by `pip install`.

Slow: builds idlc's wheel, makes a fresh virtual environment, and builds a sample project in
it. The dependencies come from this test environment (no network); idlc itself only from
the wheel, so the hook's entry point must really be in idlc's metadata.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.tooling.support import REPO
from tests.tooling.support import run_installed as run

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout"),
]

WEATHER = """\
interface Weather id "weather" revision "weather@1" {
  operation forecast id "weather:forecast" : record { city : string; days : uint32; } -> list<float64> { call id "weather:forecast:call" execution snapshot; }
}"""

SAMPLE_PYPROJECT = """\
[build-system]
requires = ["hatchling", "idlc"]
build-backend = "hatchling.build"

[project]
name = "weather-sample"
version = "0.1"
# The generated package needs the runtime only; idlc is needed to build, not to run.
dependencies = ["idlc-runtime"]

[tool.hatch.build.targets.wheel]
packages = ["src/weather_sample"]

[tool.hatch.build.hooks.idlc]

[tool.idlc]

[[tool.idlc.packages]]
name = "weather_api"
sources = ["idl"]
"""


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory, wheels: dict[str, Path]) -> Path:
    """A fresh virtual environment with idlc and idlc-runtime installed from their wheels (built
    from a snapshot of this checkout) and the other dependencies of this test environment."""
    folder = tmp_path_factory.mktemp("build-hook")
    with zipfile.ZipFile(wheels["idlc"]) as archive:
        entry_points = next(
            (
                archive.read(name).decode()
                for name in archive.namelist()
                if name.endswith("entry_points.txt")
            ),
            "",
        )
    assert "[hatch]" in entry_points and "idlc = idlc.build.hatch" in entry_points, (
        "idlc's wheel lacks the hatch entry point: pyproject.toml needs\n"
        '[project.entry-points.hatch]\nidlc = "idlc.build.hatch"'
    )
    environment = folder / "env"
    venv.create(environment, with_pip=False, system_site_packages=False)
    site = run(
        environment / "bin" / "python",
        "-c",
        "import sysconfig; print(sysconfig.get_paths()['purelib'])",
    ).stdout.strip()
    ours = [path for path in sys.path if path.endswith("site-packages")]
    (Path(site) / "deps.pth").write_text("\n".join(ours) + "\n")
    installed = run(
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-deps",
        "-q",
        "--target",
        site,
        wheels["idlc"],
        wheels["idlc-runtime"],
    )
    assert installed.returncode == 0, installed.stderr
    return environment


def test_the_installed_wheel_checks_the_seeds_from_another_folder(
    environment: Path, tmp_path: Path
) -> None:
    """`pip install .` gives an idlc that finds its grammar outside the checkout."""
    seeds = [
        REPO / "idl" / "quixos" / name for name in ("agent_directory.idl", "agent_request.idl")
    ]
    result = run(
        environment / "bin" / "python",
        "-c",
        "import idlc, sys; from idlc.cli import main; sys.argv[0]='idlc'; "
        "print(idlc.__file__, file=sys.stderr); main()",
        "check",
        *seeds,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert (
        str(REPO) not in result.stderr.splitlines()[0]
    ), "idlc was imported from the checkout, not the wheel"


def make_sample(folder: Path, idl: str = WEATHER) -> Path:
    sample = folder / "sample"
    (sample / "idl").mkdir(parents=True)
    (sample / "src" / "weather_sample").mkdir(parents=True)
    (sample / "src" / "weather_sample" / "__init__.py").write_text(
        "from weather_api import Weather\n\n__all__ = ['Weather']\n"
    )
    (sample / "pyproject.toml").write_text(SAMPLE_PYPROJECT)
    (sample / "idl" / "weather.idl").write_text(idl)
    return sample


def test_pip_install_generates_the_package_into_the_wheel(
    environment: Path, tmp_path: Path
) -> None:
    sample = make_sample(tmp_path)
    python = environment / "bin" / "python"
    wheels = tmp_path / "wheels"
    built = run(
        python, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", wheels, sample
    )
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = wheels.glob("weather_sample-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {
        "weather_api/__init__.py",
        "weather_api/py.typed",
        "weather_sample/__init__.py",
    } <= names
    assert not [name for name in names if name.endswith(".idlc-manifest")], names
    assert not (sample / "src" / "weather_api").exists(), "the source tree is left alone"

    installed = run(
        python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-q", sample
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    imported = run(
        python,
        "-c",
        "import weather_api, weather_sample, sys; "
        "print(weather_api.__file__); print(weather_sample.Weather.__name__)",
        cwd=elsewhere,
    )
    assert imported.returncode == 0, imported.stderr
    location, name = imported.stdout.splitlines()
    built_with = run(python, "-c", "import idlc; print(idlc.__file__)", cwd=elsewhere).stdout
    assert str(REPO) not in built_with, "idlc must come from its wheel, not the checkout"
    assert name == "Weather"
    assert str(environment) in location and "site-packages" in location


def test_an_idl_error_fails_the_build_with_the_diagnostic(
    environment: Path, tmp_path: Path
) -> None:
    sample = make_sample(tmp_path, WEATHER.replace("list<float64>", "list<Temperature>"))
    python = environment / "bin" / "python"
    built = run(
        python,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        tmp_path / "w",
        sample,
    )
    assert built.returncode != 0
    output = built.stdout + built.stderr
    assert "error[E0101]: unknown type `Temperature`" in output, output
    assert "idl/weather.idl:2:" in output, output
    assert "Traceback" not in output, output


def test_generate_check_in_a_hook_only_project_says_there_is_nothing_to_compare(
    environment: Path, tmp_path: Path
) -> None:
    sample = make_sample(tmp_path)
    python = environment / "bin" / "python"
    for arguments, nothing in (("generate", "--check"), "nothing committed to compare"), (
        ("generate",),
        "nothing to write",
    ):
        result = run(python, "-m", "idlc", *arguments, cwd=sample)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "package `weather_api` has no `out`" in result.stderr, result.stderr
        assert nothing in result.stderr, result.stderr
    assert not (sample / "weather_api").exists()


def test_the_generated_files_in_the_wheel_have_ordinary_modes(
    environment: Path, tmp_path: Path
) -> None:
    # Hatchling normalises modes in a reproducible build (the default); without it, the
    # wheel records the files' own modes, which must be those of files the user wrote.
    sample = make_sample(tmp_path)
    pyproject = sample / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "[tool.hatch.build.targets.wheel]\n",
            "[tool.hatch.build.targets.wheel]\nreproducible = false\n",
        )
    )
    python = environment / "bin" / "python"
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(wheels),
            str(sample),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        umask=0o022,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = wheels.glob("weather_sample-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        generated = {
            info.filename: (info.external_attr >> 16) & 0o777
            for info in archive.infolist()
            if info.filename.startswith("weather_api/")
        }
    assert generated and set(generated.values()) == {0o644}, generated


def test_the_hook_refuses_one_name_in_two_out_folders(tmp_path: Path) -> None:
    """`[tool.idlc]` allows it (`idlc_acp.unstable`, `idlc_acp.v2.unstable`); the hook
    writes every package into one folder by name, so it says so instead."""
    from idlc.build.hatch import IdlcBuildError, generate_packages

    (tmp_path / "a.idl").write_text("type A = string;\n")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n'
        '[[tool.idlc.packages]]\nname = "p"\nsources = ["a.idl"]\nout = "one"\n\n'
        '[[tool.idlc.packages]]\nname = "p"\nsources = ["a.idl"]\nout = "two"\n'
    )
    with pytest.raises(IdlcBuildError, match="two packages named p"):
        generate_packages(tmp_path, tmp_path / "build")
