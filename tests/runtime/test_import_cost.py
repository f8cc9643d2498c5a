"""What importing a generated package costs: only what its module bodies use is loaded
(the runtime's tables and errors and msgspec, not the peer and its asyncio machinery, which
`idlc_runtime` loads on first use), and `MethodSpec`, made once per member, keeps its
dataclass behaviour with a quicker constructor (docs/benchmarks.md, "Import of a generated
package")."""

from __future__ import annotations

import os
import subprocess
import sys

import idlc_runtime
from tests.conftest import REPO

#: Loaded by the peer's modules only.
NOT_ON_IMPORT = {
    "asyncio",
    "idlc_runtime.rpc.peer",
    "idlc_runtime.transports",
    "idlc_runtime.transports.endpoints",
    "idlc_runtime.rpc.interceptors",
}


def test_a_generated_package_imports_without_the_peer() -> None:
    probe = "import sys, quixos_agent; print('\\n'.join(sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "generated")},
        timeout=60,
    )
    loaded = set(result.stdout.split())
    assert "quixos_agent.agent_request" in loaded
    assert not NOT_ON_IMPORT & loaded


def test_every_public_name_of_the_runtime_resolves_to_its_definition() -> None:
    import importlib

    for name in idlc_runtime.__all__:
        value = getattr(idlc_runtime, name)
        module = importlib.import_module(getattr(value, "__module__", "idlc_runtime"))
        assert getattr(module, name, value) is value, name
    assert set(idlc_runtime.__all__) <= set(dir(idlc_runtime))


def test_the_lazily_loaded_submodules_are_still_attributes_of_the_package() -> None:
    # In a fresh process: after a bare `import idlc_runtime`, as before the lazy loading.
    code = (
        "import idlc_runtime\n"
        "assert callable(idlc_runtime.transports.serve_tcp)\n"
        "assert idlc_runtime.peer.Peer is idlc_runtime.Peer\n"
        "assert idlc_runtime.interceptors.Interceptor is idlc_runtime.Interceptor\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        idlc_runtime.NoSuchName  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as error:
        assert "NoSuchName" in str(error)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_method_spec_is_still_the_frozen_dataclass_it_was() -> None:
    import dataclasses

    values = dict(
        wire="w",
        member="m",
        shape=idlc_runtime.InputShape.RECORD,
        params_type=int,
        result_type=str,
        invoke=print,
        execution=idlc_runtime.Execution.SNAPSHOT,
        notify=True,
        required=False,
    )
    spec = idlc_runtime.MethodSpec(**values)  # type: ignore[arg-type]
    assert [getattr(spec, name) for name in values] == list(values.values())
    assert idlc_runtime.MethodSpec(*values.values()) == spec  # type: ignore[arg-type]
    assert dataclasses.replace(spec, wire="x") == idlc_runtime.MethodSpec(
        **{**values, "wire": "x"}  # type: ignore[arg-type]
    )
    assert hash(spec) == hash(idlc_runtime.MethodSpec(**values))  # type: ignore[arg-type]
    try:
        spec.wire = "y"  # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise AssertionError("a MethodSpec stays frozen")
