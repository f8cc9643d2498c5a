"""Every transport carries a real round trip: TCP, Unix sockets, pipes, a child on stdio."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from idlc_runtime import (
    ConnectionClosed,
    connect_fds,
    connect_tcp,
    connect_unix,
    serve_tcp,
    serve_unix,
    spawn,
)

from .sample_api import SampleProxy
from .support import SampleService, run_async, within

SERVER_SCRIPT = str(Path(__file__).with_name("stdio_server.py"))
REPO_ROOT = str(Path(__file__).resolve().parents[2])


def _child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": REPO_ROOT}


@run_async
async def test_tcp_round_trips_with_callbacks_and_several_clients() -> None:
    services: list[SampleService] = []

    def make_root() -> SampleService:
        services.append(SampleService())
        return services[-1]

    async with serve_tcp(make_root, "127.0.0.1", 0) as server:
        callers = [SampleService(), SampleService()]
        async with (
            connect_tcp("127.0.0.1", server.port, root=callers[0]) as first,
            connect_tcp("127.0.0.1", server.port, root=callers[1]) as second,
        ):
            assert await within(SampleProxy(first).add(amount=2)) == 2
            assert await within(SampleProxy(second).add(amount=5)) == 5
            assert await within(SampleProxy(first).chatter(count=3)) == 3
            assert await callers[0].wait_for_events(3) == ["0", "1", "2"]
            assert callers[1].events == []
            assert len(server.peers) == 2
            assert sorted(service.total for service in services) == [2, 5]
        # Leaving the server block closes connections that are still open.
        async with connect_tcp("127.0.0.1", server.port) as third:
            assert await within(SampleProxy(third).ping()) == "pong"
            held = asyncio.create_task(SampleProxy(third).hold_read(gate_key="k"))
            await within(services[-1].started["k"].wait())
    with pytest.raises(ConnectionClosed):
        await within(held)


@run_async
async def test_unix_socket_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "rpc.sock"
    async with serve_unix(SampleService, path) as server:
        async with connect_unix(path) as client:
            assert await within(SampleProxy(client).echo(["x", "y"])) == ["y", "x"]
            assert len(server.peers) == 1


@run_async
async def test_pipe_pair_round_trip() -> None:
    to_server_read, to_server_write = os.pipe()
    to_client_read, to_client_write = os.pipe()
    async with connect_fds(to_server_read, to_client_write, SampleService()):
        async with connect_fds(to_client_read, to_server_write) as client:
            assert await within(SampleProxy(client).add(amount=9, note_text="n")) == 9


@run_async
async def test_a_spawned_child_serves_on_stdio() -> None:
    caller = SampleService()
    async with spawn([sys.executable, SERVER_SCRIPT], root=caller, env=_child_env()) as child:
        proxy = SampleProxy(child)
        assert await within(proxy.ping()) == "pong"
        assert await within(proxy.add(amount=40)) == 40
        assert await within(proxy.chatter(count=5)) == 5
        assert await caller.wait_for_events(5) == ["0", "1", "2", "3", "4"]


@run_async
async def test_the_stdio_server_writes_only_protocol_lines_to_stdout() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        SERVER_SCRIPT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=_child_env(),
    )
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "sample:ping:get"},
        {"jsonrpc": "2.0", "id": 2, "method": "sample:add:call", "params": {"amount": 1}},
        {"jsonrpc": "2.0", "id": 3, "method": "sample:fail:call"},
    ]
    payload = b"".join(json.dumps(r).encode() + b"\n" for r in requests)
    # The ping's answer comes before stdin ends, so its handler's noise has been written.
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(payload)
    answers = [json.loads(await within(process.stdout.readline())) for _ in requests]
    process.stdin.write(b"not json\n")
    process.stdin.close()
    stdout, stderr = await within(process.communicate())
    assert process.returncode == 0
    lines = stdout.splitlines()
    assert [json.loads(line)["error"]["code"] for line in lines] == [-32700]
    assert sorted(answer["id"] for answer in answers) == [1, 2, 3]
    by_id = {answer["id"]: answer for answer in answers}
    assert by_id[1]["result"] == "pong" and by_id[2]["result"] == 1
    assert by_id[3]["error"] == {"code": -32603, "message": "Internal error"}
    assert b"noise from print" in stderr and b"noise from fd 1" in stderr
    assert b"served" in stderr


def test_stdio_serving_works_with_regular_files(tmp_path: Path) -> None:
    import subprocess

    requests = tmp_path / "in.jsonl"
    requests.write_text(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "sample:echo:call",
                "params": {"input": ["a", "b"]},
            }
        )
        + "\n"
    )
    answers = tmp_path / "out.jsonl"
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        subprocess.run(
            [sys.executable, SERVER_SCRIPT],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=_child_env(),
            check=True,
            timeout=20,
        )
    # Input ended right after the request; its handler still got to answer.
    assert json.loads(answers.read_bytes()) == {"jsonrpc": "2.0", "id": 1, "result": ["b", "a"]}


@run_async
async def test_a_child_that_cannot_start_leaves_no_descriptor_open(tmp_path: Path) -> None:
    """`spawn` makes the child's pipes itself: when the program cannot be started, all four
    ends are closed again."""
    before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(FileNotFoundError):
        async with spawn([str(tmp_path / "no-such-program")]):
            raise AssertionError("nothing was started")
    assert set(os.listdir("/proc/self/fd")) == before


@run_async
async def test_stdio_transport_hands_stdin_and_stdout_to_code_that_makes_the_peer_later() -> None:
    script = str(Path(__file__).with_name("stdio_transport_server.py"))
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        script,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=_child_env(),
    )
    request = {"jsonrpc": "2.0", "id": 1, "method": "sample:ping:get"}
    out, err = await within(process.communicate(json.dumps(request).encode() + b"\n"), timeout=30)
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines == [{"hello": "before the peer"}, {"jsonrpc": "2.0", "id": 1, "result": "pong"}]
    assert b"noise from print" in err and b"noise from fd 1" in err and b"served" in err
    assert process.returncode == 0


@run_async
async def test_serve_root_changes_the_root_of_a_running_peer() -> None:
    from idlc_runtime import Unsupported, memory_pair

    async with memory_pair(None, None) as (a, b):
        with pytest.raises(Unsupported):
            await within(SampleProxy(a).ping())
        b.serve_root(SampleService())
        assert await within(SampleProxy(a).ping()) == "pong"
        b.serve_root(None)
        with pytest.raises(Unsupported):
            await within(SampleProxy(a).ping())
