"""What a transport provides, in one place: everything a new transport implements.

A peer reads through a `LineSource`, which delivers complete lines to the peer's
`LineSink` as they arrive, and writes through a `ByteWriter`. A server's connections that
buffer input may share an `InputBudget`, which pauses and resumes them as `BudgetHolder`s.
`framing.LineProtocol` (sockets, pipes), `channel.ChannelSource` (message channels such as
WebSocket's) and `rpc.intake.StreamSource` (any `asyncio.StreamReader`) are the sources the
runtime has; `asyncio.StreamWriter`, `framing.TransportWriter` and `channel.ChannelWriter`
the writers (docs/wire.md, "The path of one request").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from idlc_runtime.transports.framing import Line


class LineSink(Protocol):
    """Where a source delivers; the peer's intake is one."""

    def lines_received(self, lines: list[Line]) -> None: ...

    def input_ended(self, error: BaseException | None) -> None: ...


class LineSource(Protocol):
    """What delivers lines to a peer: attached once, then paused and resumed by the peer's
    backpressure (docs/wire.md §11), closed when the peer closes."""

    def attach(self, sink: LineSink) -> None: ...

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...

    def close(self) -> None: ...


class ByteWriter(Protocol):
    """The writing half of a transport; `asyncio.StreamWriter` is one."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...

    async def wait_closed(self) -> None: ...


class BudgetHolder(Protocol):
    """A connection that buffers input: the budget pauses and resumes its reading."""

    def budget_pause(self) -> None: ...

    def budget_resume(self) -> None: ...
