"""The express path: the lines of one read that are notifications the root handles itself,
taken in one loop instead of one line at a time through the general path.

Nearly every line a connection receives is such a notification (the `session/update`s of an
ACP turn). The general path takes each one through the intake's bound check, `Inbound.take`
and `_on_message` (the envelope decoded), `Handling.on_notification` (its params decoded
again, apart) and then the ordered worker; here, in one frame for the whole read, a line
that begins as a compact encoder begins a notification (`wire.NOTIFICATION_START`):

- is decoded, envelope and params, in one msgspec call: a union tagged by `method` of the
  root's direct notifications (`handling._Direct`: those of the root's own members with no
  interceptor, handled in order), each with the member's input as its `params`
  (`wire.typed_notification`; msgspec's typed decode, as the direct path's), which checks
  `"jsonrpc": "2.0"` and the method as `Inbound._on_message` would;
- must have no `id`, and no `$target` when routing is on (docs/wire.md §5);
- and, with the others of its run, is handed to the ordered worker, while that is idle (so
  no notification waits before them) and handlers are under their bound (docs/wire.md §11,
  §13), which takes their first steps one after another (`OrderedWorker.first_steps`).

Any line it cannot take so — another kind of message, a notification written with spaces or
another member first, params that need the lenient decode or do not decode, a busy worker,
handlers at their bound — ends the run: the intake gives that line to the general path,
which handles it exactly as it would have without this one (its errors, -32602 with the
path, included), and then comes back here for the lines after it. A line is thus never
handled twice, and lines are taken strictly in order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Union, cast

import msgspec
from msgspec import UNSET

from idlc_runtime.codec.hooks import dec_hook
from idlc_runtime.rpc.dispatch import InputShape, MethodSpec
from idlc_runtime.rpc.wire import NOTIFICATION_START, typed_notification

if TYPE_CHECKING:
    from idlc_runtime.rpc.handling import Handling
    from idlc_runtime.rpc.intake import Item

#: What decoding may raise: a `DecodeError` (`ValidationError` included) or a
#: `RecursionError` for JSON nested deeper than the decoder goes.
_UNDECODABLE: Final = (msgspec.DecodeError, RecursionError)


class ExpressEntry(NamedTuple):
    """A direct notification of the root, as the express path hands it to the worker."""

    wire: str
    invoke: Callable[[Any, Any], Awaitable[Any]]
    implementation: object


class ExpressTable(NamedTuple):
    """The root's notifications the express path takes: one decoder for them all, and what
    to do with each by the type it decodes to."""

    decode: Callable[[bytes], Any]
    entries: Mapping[type, ExpressEntry]


def express_table(
    specs: Mapping[str, MethodSpec], direct: Mapping[str, Any], implementation: object
) -> ExpressTable | None:
    """The express table of the root's direct notifications (`direct`, by wire method);
    those without params (a unit input) are left to the general path. None when none is
    left."""
    entries: dict[type, ExpressEntry] = {}
    for wire in direct:
        spec = specs[wire]
        if spec.shape is not InputShape.UNIT:
            entries[typed_notification(wire, spec.params_type)] = ExpressEntry(
                wire, spec.invoke, implementation
            )
    if not entries:
        return None
    decoder = msgspec.json.Decoder(Union[tuple(entries)], dec_hook=dec_hook)  # noqa: UP007
    return ExpressTable(decoder.decode, entries)


class Express:
    """Takes the run of express lines at the front of what it is given (see the module)."""

    def __init__(
        self,
        handling: Handling,
        *,
        bound: int,
        route_targets: bool,
        on_failed_line: Callable[[bytes, Exception], None],
    ) -> None:
        self._handling = handling
        self._bound = bound
        self._route_targets = route_targets
        #: What the general path does with a line whose handling failed on a bug
        #: (`Inbound.on_failed_line`).
        self._on_failed_line = on_failed_line
        #: Set by the intake once it handles no more lines (`Intake.stop`).
        self.stopped = False

    def take(self, lines: Sequence[Item], index: int) -> int:
        """Take `lines[index:]` as far as they are express lines; the index of the first
        line left to the general path (`len(lines)` when none is)."""
        handling = self._handling
        table = handling.express
        ordered = handling.ordered
        # While the worker is idle it holds no slot: the handlers' tasks are all there is to
        # count against the bound (`Handling.__len__`), and no notification's first step
        # changes them, nor stops the intake (only the peer's own task does).
        if table is None or ordered.busy or len(handling.handlers) >= self._bound or self.stopped:
            return index
        decode = table.decode
        entries = table.entries
        route_targets = self._route_targets
        run: list[tuple[ExpressEntry, Any]] = []
        for line in islice(lines, index, None):
            if type(line) is not bytes or not line.startswith(NOTIFICATION_START):
                break  # an oversized line, what a batch left, or not a compact notification
            if route_targets and (b"$target" in line or b"\\u" in line):
                break  # it may be addressed to another object (docs/wire.md §5)
            try:
                message = decode(line)
            except _UNDECODABLE:
                break
            if message.id is not UNSET:
                break  # a request
            run.append((entries[type(message)], message.params))
        if not run:
            return index
        try:
            # All of them, unless one awaits: those after it go the general way, to wait
            # behind it in the worker's queue within the bound.
            return index + ordered.first_steps(run)
        except OSError:
            raise  # writing failed: the transport is gone (as in `Inbound.take`)
        except Exception as error:  # a bug: what a handler raises is logged by the worker
            self._on_failed_line(cast(bytes, lines[index]), error)
            return index + len(run)
