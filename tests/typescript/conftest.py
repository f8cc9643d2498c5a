"""Session fixtures of the TypeScript target's tests: the tools and the generated packages."""

from __future__ import annotations

import pytest

from idlc.codegen import GeneratedPackage

from .support import PACKAGES, Tools, build, build_runtime, find_tools


@pytest.fixture(scope="session")
def tools() -> Tools:
    return find_tools()


@pytest.fixture(scope="session")
def ts_packages() -> dict[str, GeneratedPackage]:
    return {name: build(name, paths) for name, paths in PACKAGES.items()}


@pytest.fixture(scope="session")
def runtime(tools: Tools) -> Tools:
    """The tools, with runtime-ts/dist built from the sources as they are."""
    build_runtime(tools)
    return tools
