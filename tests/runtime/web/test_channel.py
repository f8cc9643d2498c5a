"""The message-channel adapters on their own (idlc_runtime.transports.channel), with a channel whose
sends the test lets through: a reader that stops reading holds the writers back, and the
source receives no more frames while answers wait (docs/wire.md §11, "Output")."""

from __future__ import annotations

import asyncio

from idlc_runtime.transports.channel import HIGH_WATER, ChannelSource, ChannelWriter, Frame
from idlc_runtime.transports.framing import Line

from ..support import run_async, within


class GatedChannel:
    """Sends only while `open` is set; counts the frames received from the other side."""

    def __init__(self, incoming: list[Frame]) -> None:
        self.open = asyncio.Event()
        self.sent: list[str] = []
        self.closed = False
        self.incoming = incoming
        self.received = 0

    async def send(self, text: str) -> None:
        await self.open.wait()
        self.sent.append(text)

    async def close(self) -> None:
        self.closed = True

    async def receive(self) -> Frame | None:
        if self.received == len(self.incoming):
            await asyncio.Event().wait()  # nothing more, for ever
        self.received += 1
        return self.incoming[self.received - 1]


class Collect:
    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.ended = False

    def lines_received(self, lines: list[Line]) -> None:
        self.lines.extend(lines)

    def input_ended(self, error: BaseException | None) -> None:
        self.ended = True


async def settle() -> None:
    """Let every task that can run, run."""
    for _ in range(20):
        await asyncio.sleep(0)


@run_async
async def test_writers_wait_past_the_high_water_mark_and_the_source_stops_receiving() -> None:
    channel = GatedChannel(incoming=[f'{{"n": {n}}}' for n in range(100)])
    writer = ChannelWriter(channel.send, channel.close)
    source = ChannelSource(channel.receive, 1024, writer=writer)
    sink = Collect()
    message = b'{"pad": "' + b"x" * 1000 + b'"}\n'
    for _ in range(HIGH_WATER // len(message) + 2):
        writer.write(message)
    assert writer.backed_up
    draining = asyncio.ensure_future(writer.drain())
    source.attach(sink)
    await settle()
    # Nothing was sent, so the writer waits and the source takes no frame at all.
    assert not draining.done()
    assert channel.received == 0 and sink.lines == []
    channel.open.set()
    await within(draining)
    await settle()
    # Once the other side reads, everything goes out in order, one frame per message.
    assert len(channel.sent) == HIGH_WATER // len(message) + 2
    assert all(text == message.decode().rstrip("\n") for text in channel.sent)
    assert channel.received == 100 and len(sink.lines) == 100
    source.close()
    writer.close()
    await within(writer.wait_closed())
    assert channel.closed


@run_async
async def test_one_write_of_several_lines_is_several_frames() -> None:
    channel = GatedChannel(incoming=[])
    channel.open.set()
    writer = ChannelWriter(channel.send, channel.close)
    writer.write(b'{"a": 1}\n{"b": 2}\n')
    writer.close()
    await within(writer.wait_closed())
    assert channel.sent == ['{"a": 1}', '{"b": 2}']


@run_async
async def test_a_failed_send_drops_the_rest_and_fails_drain() -> None:
    async def broken(text: str) -> None:
        raise ConnectionResetError("gone")

    async def close() -> None:
        return None

    writer = ChannelWriter(broken, close)
    writer.write(b"{}\n")
    await settle()
    writer.write(b"{}\n")  # dropped: the channel is gone
    try:
        await within(writer.drain())
    except ConnectionResetError:
        pass
    else:
        raise AssertionError("drain did not report the failure")
    await within(writer.wait_closed())
