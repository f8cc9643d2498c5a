"""ACP extension methods: names starting with `_` that neither side declares.

An implementation that defines `ext_method(method, params)` answers extension requests
(the default, `Extensions.ext_method`, answers -32601) and one that defines
`ext_notification(method, params)` receives extension notifications (ignored by default).
Any other undeclared method keeps its -32601.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from idlc_runtime import MethodFallback, Unsupported


class Extensions:
    """Mixin with the two extension hooks and their defaults; override what you answer."""

    async def ext_method(self, method: str, params: Any) -> Any:
        """Answers an extension request (`_vendor/name`); the result is sent as is."""
        raise Unsupported(method, f"Method not found: {method}")

    async def ext_notification(self, method: str, params: Any) -> None:
        """Receives an extension notification; unknown ones are ignored."""
        return None


def extension_fallback(implementation: object) -> MethodFallback:
    """The runtime fallback that routes `_`-prefixed methods to `implementation`'s hooks."""
    method_hook: Callable[[str, Any], Awaitable[Any]] | None = getattr(
        implementation, "ext_method", None
    )
    notification_hook: Callable[[str, Any], Awaitable[None]] | None = getattr(
        implementation, "ext_notification", None
    )

    async def fallback(method: str, params: Any, notify: bool) -> Any:
        if not method.startswith("_"):
            raise Unsupported(method, f"Method not found: {method}")
        if notify:
            if notification_hook is not None:
                await notification_hook(method, params)
            return None
        if method_hook is None:
            raise Unsupported(method, f"Method not found: {method}")
        return await method_hook(method, params)

    return fallback
