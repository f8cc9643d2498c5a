"""Real mypy --strict over the generated packages, sample implementations and misuse.

One mypy run covers every file (mypy's start-up dominates), then each file's expectations
are checked: no error in generated code or in the samples, and in `misuse.py` exactly the
errors its `# E:` comments name.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import PACKAGES, ROOT

TYPING = Path(__file__).parent / "typing"
MYPY = Path(sys.executable).with_name("mypy")
_ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: (?P<message>.*)$")


@pytest.fixture(scope="module")
def mypy_errors(
    package_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, list[tuple[int, str]]]:
    work = tmp_path_factory.mktemp("typing")
    for source in TYPING.glob("*.py"):
        shutil.copy(source, work / source.name)
    targets = [str(package_dir / name) for name in sorted(PACKAGES)]
    targets += sorted(str(path) for path in work.glob("*.py"))
    environment = dict(os.environ, MYPYPATH=f"{package_dir}{os.pathsep}{ROOT}")
    result = subprocess.run(
        [str(MYPY), "--strict", "--no-incremental", "--show-error-codes", "--no-pretty", *targets],
        capture_output=True,
        text=True,
        cwd=work,
        env=environment,
    )
    errors: dict[str, list[tuple[int, str]]] = {}
    for line in result.stdout.splitlines():
        match = _ERROR.match(line)
        if match:
            name = Path(match["file"]).name
            if str(package_dir) in str(Path(match["file"]).resolve()):
                name = str(Path(match["file"]).resolve().relative_to(package_dir))
            errors.setdefault(name, []).append((int(match["line"]), match["message"]))
    assert "error" not in result.stderr.lower(), result.stderr
    return errors


def test_generated_packages_pass_mypy_strict(mypy_errors: dict[str, list[tuple[int, str]]]) -> None:
    generated = {name: found for name, found in mypy_errors.items() if "/" in name}
    assert generated == {}


@pytest.mark.parametrize("sample", ["sample_impl.py", "features_use.py"])
def test_samples_pass_mypy_strict(
    sample: str, mypy_errors: dict[str, list[tuple[int, str]]]
) -> None:
    assert mypy_errors.get(sample, []) == []


def test_misuse_is_rejected_with_the_expected_errors(
    mypy_errors: dict[str, list[tuple[int, str]]],
) -> None:
    expected = {}
    for number, line in enumerate((TYPING / "misuse.py").read_text().splitlines(), 1):
        if "# E: " in line:
            expected[number] = line.split("# E: ", 1)[1].strip()
    assert len(expected) >= 6
    found = mypy_errors.get("misuse.py", [])
    for number, fragment in expected.items():
        messages = [message for line, message in found if line == number]
        assert any(fragment in message for message in messages), (number, fragment, found)
    unexpected = [(line, message) for line, message in found if line not in expected]
    assert unexpected == []
