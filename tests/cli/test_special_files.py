"""Input that is not a regular file, or is too large, is a diagnostic (exit 1), never a
hang, an exhausted machine or an internal error (exit 3): FIFOs, devices, sockets and links
to them (`idlc.boundedread`)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc import boundedread
from idlc.boundedread import InputTooLarge, NotARegularFile, read_input
from idlc.pipeline import parse_files

#: A bound against hangs (a FIFO used to block `idlc check` for good), not a speed check.
PATIENCE = 60

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _hostile_folder(root: Path) -> Path:
    folder = root / "hostile"
    folder.mkdir()
    os.mkfifo(folder / "x.idl")
    (folder / "zero.idl").symlink_to("/dev/zero")
    (folder / "ok.idl").write_text("type T = string;\n", encoding="utf-8")
    return folder


def _idlc(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "idlc", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
        stdin=subprocess.DEVNULL,
        timeout=PATIENCE,
    )


@pytest.mark.parametrize(
    "command",
    [["check"], ["check", "hostile"], ["fmt"], ["fmt", "--check", "hostile"], ["fmt", "hostile"]],
)
def test_fifos_and_devices_are_reported_not_read(tmp_path: Path, command: list[str]) -> None:
    _hostile_folder(tmp_path)
    result = _idlc(*command, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert "x.idl: is a FIFO (named pipe), not a regular file" in result.stderr
    assert "zero.idl: is a character device, not a regular file" in result.stderr
    assert result.stderr.count("error[E0010]") == 2


def test_a_named_fifo_and_device_are_reported(tmp_path: Path) -> None:
    folder = _hostile_folder(tmp_path)
    result = _idlc("check", str(folder / "x.idl"), "/dev/zero", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("error[E0010]") == 2


def test_a_file_over_the_limit_is_e0012_naming_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.idl"
    with big.open("wb") as file:
        file.truncate(boundedread.MAX_INPUT_BYTES + 1)  # sparse: no disk used
    result = _idlc("check", "big.idl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "error[E0012]: big.idl: is larger than 16 MiB" in result.stderr


def test_a_socket_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "s.idl"
    listener = socket.socket(socket.AF_UNIX)
    try:
        listener.bind(str(path))
        with pytest.raises(NotARegularFile):
            read_input(path)
        parsed = parse_files([path])
        assert [d.code.id for d in parsed.diagnostics] == ["E0010"]
    finally:
        listener.close()


def test_a_fifo_with_a_writer_is_still_not_read(tmp_path: Path) -> None:
    path = tmp_path / "x.idl"
    os.mkfifo(path)
    writer = os.open(path, os.O_RDWR)  # a writer holding it open: a read would still block
    try:
        with pytest.raises(NotARegularFile, match="FIFO"):
            read_input(path)
    finally:
        os.close(writer)


@settings(max_examples=40, deadline=None)
@given(
    size=st.integers(min_value=0, max_value=4096), limit=st.integers(min_value=0, max_value=4096)
)
def test_the_limit_holds_exactly(
    tmp_path_factory: pytest.TempPathFactory, size: int, limit: int
) -> None:
    path = tmp_path_factory.mktemp("sized") / "f.idl"
    data = os.urandom(size)
    path.write_bytes(data)
    if size <= limit:
        assert read_input(path, limit) == data
    else:
        with pytest.raises(InputTooLarge) as raised:
            read_input(path, limit)
        assert raised.value.limit == limit


def test_a_file_that_grows_past_the_limit_while_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fstat says small, the reads go on: only what the limit allows (plus one) is read.
    path = tmp_path / "f.idl"
    path.write_bytes(b"x" * 100)
    real_fstat = os.fstat

    class Small:
        def __init__(self, status: os.stat_result) -> None:
            self.st_mode = status.st_mode
            self.st_size = 0

    monkeypatch.setattr(boundedread.os, "fstat", lambda fd: Small(real_fstat(fd)))
    with pytest.raises(InputTooLarge):
        read_input(path, 10)
