"""The contract between generated code and its runtime (idlc_runtime.contract): a package
refuses a runtime that cannot serve it, naming both versions; the compiler writes for a
runtime API the installed runtime serves and keeps clear of the runtime's reserved names;
a proxy calls any `Caller`, not only a `Peer`."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

import pytest

import idlc_runtime
from idlc.codegen.build import RUNTIME_API
from idlc.targets.python import naming
from idlc_runtime import contract
from tests.conftest import REPO


def _import_with(setting: str) -> subprocess.CompletedProcess[str]:
    """Import the committed package after `setting` changed the runtime's API range."""
    code = f"import idlc_runtime.contract as c\n{setting}\nimport quixos_agent\n"
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "generated")},
        timeout=60,
    )


@pytest.mark.parametrize(
    ("setting", "advice"),
    [
        ("c.API_VERSION = c.OLDEST_API_VERSION = 0", "install a newer idlc-runtime"),
        ("c.API_VERSION = c.OLDEST_API_VERSION = 2", "generate the package again"),
    ],
)
def test_a_runtime_that_cannot_serve_the_package_fails_its_import(
    setting: str, advice: str
) -> None:
    result = _import_with(setting)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: quixos_agent was generated for runtime API 1,"), last
    assert f"idlc-runtime {idlc_runtime.__version__}" in last, last
    assert ("serves runtime API 0" if "= 0" in setting else "serves runtime API 2") in last
    assert advice in last


def test_a_runtime_serving_a_range_of_versions_says_the_range(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _import_with("c.OLDEST_API_VERSION, c.API_VERSION = 1, 3").returncode == 0
    monkeypatch.setattr(contract, "OLDEST_API_VERSION", 2)
    monkeypatch.setattr(contract, "API_VERSION", 3)
    with pytest.raises(ImportError, match="serves runtime API 2 to 3: generate the package"):
        contract.require_api(1, "pkg")


def test_the_compiler_writes_for_an_api_the_installed_runtime_serves() -> None:
    assert contract.OLDEST_API_VERSION <= RUNTIME_API <= contract.API_VERSION
    assert (
        "_rt.require_api(1, __name__)" in (REPO / "generated/quixos_agent/__init__.py").read_text()
    )


def test_declared_names_keep_clear_of_the_runtimes_reserved_names() -> None:
    for name in idlc_runtime.RESERVED_NAMES:
        assert naming.declared_name(name) not in idlc_runtime.RESERVED_NAMES, name


class _Recording:
    """A `Caller` that is no `Peer`: it answers every request from a table."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, object, object, str | None]] = []

    async def request(
        self, method: str, params: object | None, result_type: Any, *, target: str | None = None
    ) -> Any:
        self.calls.append((method, params, result_type, target))
        return self.answers[method]

    async def notify(
        self, method: str, params: object | None, *, target: str | None = None
    ) -> None:
        self.calls.append((method, params, None, target))


def test_a_proxy_calls_any_caller() -> None:
    import quixos_agent

    caller = _Recording(
        {
            "agent:request:related:resolve": None,
            "agent:request:transition:call": True,
        }
    )
    proxy = quixos_agent.AgentRequestProxy(caller, target="r1")

    async def calls() -> tuple[object, object]:
        related = await proxy.related()
        moved = await proxy.transition(attempt="a", generation=1, status="done", reason="")
        return related, moved

    assert asyncio.run(calls()) == (None, True)
    assert [(method, target) for method, _, _, target in caller.calls] == [
        ("agent:request:related:resolve", "r1"),
        ("agent:request:transition:call", "r1"),
    ]
    assert caller.calls[1][2] is bool
