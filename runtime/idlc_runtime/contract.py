"""What generated code and the runtime it imports promise each other.

- `API_VERSION`: the runtime API generated code is written against. A generated package
  says at import which one it was generated for (`require_api`, the first thing its
  `__init__` does); a runtime that does not serve that version makes the import fail with
  both versions named, instead of failing later on a missing or changed name.
- `RESERVED_NAMES`: the names generated modules take for themselves, which no generated
  class may take (the compiler gives declared types another name, and refuses derived
  names, E0202: docs/python-mapping.md).
- `Caller`: what a generated proxy calls. A `Peer` is one; so is anything with the same
  `request` and `notify`, such as a wrapper that translates errors or reroutes calls.

This module imports nothing of the runtime: the compiler reads `RESERVED_NAMES` from it.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Final, Protocol, TypeVar, overload

__all__ = [
    "API_VERSION",
    "OLDEST_API_VERSION",
    "RESERVED_NAMES",
    "Caller",
    "require_api",
]

#: The newest runtime API this runtime serves, and the oldest. Raised when generated code
#: needs something new of the runtime (the newest) or when the runtime drops something
#: older generated code uses (the oldest); an unchanged runtime API keeps both.
API_VERSION: Final = 1
OLDEST_API_VERSION: Final = 1

#: The names a generated module binds itself: the modules it imports, `annotations` (from
#: `from __future__ import annotations`), `TYPE_CHECKING`, `Unsupported` (imported from this
#: runtime), the package's `ATOMS`, and the class attributes of a skeleton (`INTERFACE_ID`,
#: `REVISION`), which its method annotations would otherwise resolve to. Generated code's
#: private names start with `_` (`_rt`, `_hooks`, `_UInt32`): no generated class does.
RESERVED_NAMES: Final = frozenset(
    {
        "abc",
        "annotations",
        "enum",
        "msgspec",
        "typing",
        "TYPE_CHECKING",
        "Unsupported",
        "ATOMS",
        "INTERFACE_ID",
        "REVISION",
    }
)


def require_api(version: int, package: str) -> None:
    """Fail the import of generated `package`, written against runtime API `version`, when
    this runtime does not serve that version; the message names both."""
    if OLDEST_API_VERSION <= version <= API_VERSION:
        return
    from idlc_runtime import __version__

    served = f"idlc-runtime {__version__}, which serves runtime API {_versions()}"
    if version > API_VERSION:
        advice = "install a newer idlc-runtime"
    else:
        advice = "generate the package again with a newer idlc"
    raise ImportError(
        f"{package} was generated for runtime API {version}, but the installed runtime is "
        f"{served}: {advice}",
        name=package,
    )


def _versions() -> str:
    if OLDEST_API_VERSION == API_VERSION:
        return str(API_VERSION)
    return f"{OLDEST_API_VERSION} to {API_VERSION}"


_Result = TypeVar("_Result")


class Caller(Protocol):
    """What a generated proxy calls: a `Peer`, or anything with its `request` and `notify`.

    `request` decodes the result into `result_type`. Given a class (a record, `int`,
    `list[Agent]`), the result has that type and the proxy needs no cast; given a union
    (`Agent | None`), which is no class, its type is whatever the proxy declares.
    """

    @overload
    def request(
        self,
        method: str,
        params: object | None,
        result_type: type[_Result],
        *,
        target: str | None = None,
    ) -> Awaitable[_Result]: ...

    @overload
    def request(
        self, method: str, params: object | None, result_type: object, *, target: str | None = None
    ) -> Awaitable[Any]: ...

    def notify(
        self, method: str, params: object | None, *, target: str | None = None
    ) -> Awaitable[None]: ...
