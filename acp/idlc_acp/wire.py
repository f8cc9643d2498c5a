"""What ACP's wire is over the runtime's defaults (docs/wire.md §5 and §7).

ACP is JSON-RPC 2.0 without two things the runtime offers every generated interface: batches
(an array is answered with one -32600, id null, as the official SDKs answer it) and keyed
objects (`$target` is an ordinary member of params, passed on like any other, never a
route: an extension's params may hold anything). Every ACP peer — agent, client, conductor,
proxy — starts from these options.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from idlc_runtime import PeerOptions


def acp_options(base: PeerOptions | None = None, **changes: Any) -> PeerOptions:
    """`base` (or the defaults) as ACP's wire needs it, with `changes` applied."""
    return dataclasses.replace(
        base if base is not None else PeerOptions(),
        **changes,
        accept_batches=False,
        route_targets=False,
    )
