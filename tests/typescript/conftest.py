"""Session fixtures of the TypeScript target's tests: the tools and the generated packages."""

from __future__ import annotations

import pytest

from idlc.codegen import GeneratedPackage

from .support import PACKAGES, Tools, build, find_tools


@pytest.fixture(scope="session")
def tools() -> Tools:
    return find_tools()


@pytest.fixture(scope="session")
def ts_packages() -> dict[str, GeneratedPackage]:
    return {name: build(name, paths) for name, paths in PACKAGES.items()}
