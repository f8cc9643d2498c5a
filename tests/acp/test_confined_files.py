"""`ConfinedFiles`: an agent reads and writes inside its session's folders and nowhere else.

The family: relative paths, `..` traversal, symbolic links leading out (to a file, to a
folder, dangling), NUL bytes, unknown sessions, special files, and writes that would land
outside; plus a hypothesis test over generated path strings that checks the one property
that matters: nothing outside the folders is read or changed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc_acp import (
    InvalidParams,
    PermissionOptionKind,
    ReadTextFileRequest,
    ResourceNotFound,
    WriteTextFileRequest,
)
from idlc_acp.contrib import ConfinedFiles, PermissionBroker, choose
from idlc_runtime import RpcError

SESSION = "s"
SECRET = "the secret outside"


class Tree:
    """root/project (the session's cwd), root/extra (an additional folder), root/outside."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = root / "project"
        self.extra = root / "extra"
        self.outside = root / "outside"
        for folder in (self.project / "sub", self.extra, self.outside):
            folder.mkdir(parents=True)
        (self.project / "README.md").write_text("one\ntwo\nthree\n")
        (self.project / "sub" / "inner.txt").write_text("inner\n")
        (self.extra / "notes.txt").write_text("notes\n")
        (self.outside / "secret.txt").write_text(SECRET)
        (self.project / "to_secret").symlink_to(self.outside / "secret.txt")
        (self.project / "to_outside").symlink_to(self.outside, target_is_directory=True)
        (self.project / "to_readme").symlink_to(self.project / "README.md")
        (self.project / "dangling_out").symlink_to(self.outside / "new.txt")
        (self.project / "loop").symlink_to(self.project / "loop")
        os.mkfifo(self.project / "fifo")
        (self.project / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))

    def files(self) -> ConfinedFiles:
        files = ConfinedFiles()
        files.open_session(SESSION, str(self.project), [str(self.extra)])
        return files

    def outside_state(self) -> dict[str, bytes]:
        return {
            str(path): path.read_bytes()
            for path in sorted(self.outside.rglob("*"))
            if path.is_file()
        }


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path)


def read(files: ConfinedFiles, path: str, **window: int) -> str:
    answer = asyncio.run(
        files.read_text_file(ReadTextFileRequest(session_id=SESSION, path=path, **window))
    )
    return answer.content


def write(files: ConfinedFiles, path: str, content: str, session: str = SESSION) -> None:
    asyncio.run(
        files.write_text_file(WriteTextFileRequest(session_id=session, path=path, content=content))
    )


def refusal(call: object) -> RpcError:
    assert isinstance(call, RpcError), call
    return call


def test_inside_the_folders_reads_and_writes_work(tree: Tree) -> None:
    files = tree.files()
    assert read(files, str(tree.project / "README.md")) == "one\ntwo\nthree\n"
    assert read(files, str(tree.project / "README.md"), line=2, limit=1) == "two\n"
    assert read(files, str(tree.project / "README.md"), line=3) == "three\n"
    assert read(files, str(tree.project / "sub" / ".." / "README.md"), limit=1) == "one\n"
    assert read(files, str(tree.project / "to_readme"), limit=1) == "one\n"
    assert read(files, str(tree.extra / "notes.txt")) == "notes\n"
    write(files, str(tree.project / "new" / "deep.txt"), "fresh ✓")
    assert (tree.project / "new" / "deep.txt").read_text() == "fresh ✓"
    (tree.project / "README.md").chmod(0o640)
    write(files, str(tree.project / "README.md"), "replaced")
    assert (tree.project / "README.md").read_text() == "replaced"
    assert (tree.project / "README.md").stat().st_mode & 0o777 == 0o640
    write(files, str(tree.extra / "notes.txt"), "more notes")
    assert (tree.extra / "notes.txt").read_text() == "more notes"
    # No temporary file is left behind.
    assert not [p for p in tree.root.rglob("*.tmp")]


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("README.md", "relative"),
        ("./README.md", "relative"),
        ("../outside/secret.txt", "relative"),
        ("{project}/../outside/secret.txt", "outside"),
        ("{project}/sub/../../outside/secret.txt", "outside"),
        ("{project}/to_secret", "outside"),
        ("{project}/to_outside/secret.txt", "outside"),
        ("{project}/dangling_out", "outside"),
        ("{root}", "outside"),
        ("/", "outside"),
        ("{project}/README.md\0", "invalid"),
        ("{project}x/README.md", "outside"),
    ],
)
def test_reads_and_writes_outside_are_refused_with_the_reason(
    tree: Tree, path: str, reason: str
) -> None:
    files = tree.files()
    named = path.format(project=tree.project, root=tree.root)
    before = tree.outside_state()
    for attempt in (lambda: read(files, named), lambda: write(files, named, "pwned")):
        with pytest.raises(InvalidParams) as refused:
            attempt()
        assert refused.value.data == {"path": named, "reason": reason}
        assert refused.value.message
    assert tree.outside_state() == before
    assert not (tree.outside / "new.txt").exists()


def test_an_escape_by_a_sibling_folder_sharing_a_prefix_is_refused(tree: Tree) -> None:
    sibling = tree.root / "project-evil"
    sibling.mkdir()
    (sibling / "x.txt").write_text("not yours")
    with pytest.raises(InvalidParams):
        read(tree.files(), str(sibling / "x.txt"))


@pytest.mark.parametrize(
    ("name", "code", "reason"),
    [
        ("missing.txt", -32002, None),
        ("fifo", -32602, "unreadable"),
        ("sub", -32602, "unreadable"),
        ("loop", -32602, "unreadable"),
        ("latin1.txt", -32602, "not text"),
    ],
)
def test_what_cannot_be_read_says_why_without_hanging(
    tree: Tree, name: str, code: int, reason: str | None
) -> None:
    with pytest.raises(RpcError) as failed:
        read(tree.files(), str(tree.project / name))
    assert failed.value.code == code
    if reason is not None:
        assert failed.value.data["reason"] == reason


def test_too_large_to_read_whole_but_readable_in_parts(tree: Tree) -> None:
    files = ConfinedFiles(max_read_bytes=10)
    files.open_session(SESSION, str(tree.project))
    with pytest.raises(InvalidParams) as refused:
        read(files, str(tree.project / "README.md"))
    assert refused.value.data["reason"] == "too large"
    assert read(files, str(tree.project / "README.md"), line=2, limit=2) == "two\nthree\n"
    # A line longer than the read chunk is skipped or kept whole, multi-byte characters too.
    long_line = "é" * (1024 * 1024) + "\n"
    (tree.project / "long.txt").write_text("first\n" + long_line + "last")
    files = tree.files()
    assert read(files, str(tree.project / "long.txt"), line=3) == "last"
    assert read(files, str(tree.project / "long.txt"), line=2, limit=1) == long_line
    assert read(files, str(tree.project / "long.txt"), line=1, limit=1) == "first\n"


def test_unknown_sessions_and_relative_folders(tree: Tree) -> None:
    files = tree.files()
    with pytest.raises(ResourceNotFound) as unknown:
        write(files, str(tree.project / "README.md"), "x", session="other")
    assert unknown.value.data == {"sessionId": "other"}
    with pytest.raises(ValueError):
        files.open_session("t", "relative/folder")
    files.close_session(SESSION)
    with pytest.raises(ResourceNotFound):
        read(files, str(tree.project / "README.md"))


def test_writes_can_wait_for_the_users_permission(tree: Tree) -> None:
    asked: list[str] = []

    def broker(kind: PermissionOptionKind | None) -> PermissionBroker:
        decide = choose() if kind is None else choose(kind)

        async def recording(request: object) -> object:
            asked.append(request.tool_call.title)
            return await decide(request)  # type: ignore[arg-type]

        return PermissionBroker(recording)  # type: ignore[arg-type]

    target = tree.project / "README.md"
    for kind in (PermissionOptionKind.REJECT_ONCE, None):
        files = ConfinedFiles(permissions=broker(kind))
        files.open_session(SESSION, str(tree.project))
        with pytest.raises(InvalidParams) as refused:
            write(files, str(target), "not allowed")
        assert refused.value.data["reason"] == "denied"
        assert target.read_text() == "one\ntwo\nthree\n"
    files = ConfinedFiles(permissions=broker(PermissionOptionKind.ALLOW_ALWAYS))
    files.open_session(SESSION, str(tree.project))
    write(files, str(target), "allowed")
    write(files, str(target), "allowed again")  # remembered: not asked again
    assert target.read_text() == "allowed again"
    assert asked == [f"Write {target}"] * 3


SEGMENTS = st.sampled_from(
    [
        "..",
        ".",
        "",
        "README.md",
        "sub",
        "inner.txt",
        "to_secret",
        "to_outside",
        "to_readme",
        "secret.txt",
        "outside",
        "project",
        "extra",
        "notes.txt",
        "dangling_out",
        "hard",
        "x",
        "\0",
        "é",
    ]
)


def build(tree: Tree, start: str, parts: list[str]) -> str:
    base = {"project": str(tree.project), "root": str(tree.root), "none": "", "slash": "/"}[start]
    return os.path.join(base, *parts) if base else "/".join(parts)


@pytest.fixture(scope="module")
def shared_tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tree]:
    yield Tree(tmp_path_factory.mktemp("confined"))


@given(
    start=st.sampled_from(["project", "root", "none", "slash"]),
    parts=st.lists(SEGMENTS, max_size=6),
)
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_no_generated_path_reads_or_changes_anything_outside(
    shared_tree: Tree, start: str, parts: list[str]
) -> None:
    tree = shared_tree
    files = tree.files()
    path = build(tree, start, parts)
    roots = (os.path.realpath(tree.project), os.path.realpath(tree.extra))
    before = tree.outside_state()
    try:
        content = read(files, path)
    except RpcError as error:
        assert error.code in (-32602, -32002) and error.message
    else:
        real = os.path.realpath(path)
        assert any(real == r or real.startswith(r + os.sep) for r in roots), path
        assert SECRET not in content
    try:
        write(files, path, "generated")
    except RpcError as error:
        assert error.code in (-32602, -32002) and error.message
    else:
        real = os.path.realpath(path)
        assert any(real.startswith(r + os.sep) for r in roots), path
    assert tree.outside_state() == before
    assert sorted(p.name for p in tree.outside.iterdir()) == ["secret.txt"]


def test_a_session_folder_reached_through_a_link_is_the_folder_it_leads_to(tree: Tree) -> None:
    alias = tree.root / "alias"
    alias.symlink_to(tree.project, target_is_directory=True)
    files = ConfinedFiles()
    files.open_session(SESSION, str(alias))
    assert files.roots(SESSION) == (os.path.realpath(tree.project),)
    assert read(files, str(alias / "README.md"), limit=1) == "one\n"
    assert read(files, str(tree.project / "README.md"), limit=1) == "one\n"
    with pytest.raises(InvalidParams):
        read(files, str(alias / "to_secret"))


def test_a_hard_link_inside_to_an_outside_file_is_neither_read_nor_written(tree: Tree) -> None:
    linked = tree.project / "hard"
    os.link(tree.outside / "secret.txt", linked)
    files = tree.files()
    before = tree.outside_state()
    for attempt in (lambda: read(files, str(linked)), lambda: write(files, str(linked), "x")):
        with pytest.raises(InvalidParams) as refused:
            attempt()
        assert refused.value.data == {"path": str(linked), "reason": "hard link"}
        assert "2 hard links" in refused.value.message
    assert tree.outside_state() == before
    assert linked.read_text() == SECRET  # the link itself is left alone too
    files.close()


def test_closing_a_session_releases_its_folders(tree: Tree) -> None:
    opened = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    files = tree.files()
    files.open_session(SESSION, str(tree.project))  # reopening replaces, does not add
    files.close()
    assert files.roots(SESSION) == ()
    if opened is not None:
        assert len(os.listdir("/proc/self/fd")) == opened
    with pytest.raises(ValueError, match="cannot be opened"):
        files.open_session("t", str(tree.project / "README.md"))


_RENAME_EXCHANGE = 2


def _renameat2() -> object | None:
    """libc's renameat2, or None where it is missing."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    function.argtypes += [ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def test_a_folder_swapped_for_a_link_to_outside_during_reads_and_writes_leaks_nothing(
    tree: Tree,
) -> None:
    """Another process exchanges `project/sub` with a link to `outside` (renameat2
    RENAME_EXCHANGE, atomic) as fast as it can while reads and writes go through `sub`:
    each either works inside or is refused; none reads or changes a file outside."""
    import ctypes
    import threading
    import time

    renameat2 = _renameat2()
    if renameat2 is None:
        pytest.skip("no renameat2 in this libc")
    at_fdcwd = -100
    (tree.outside / "inner.txt").write_text(SECRET)
    swap = tree.project / "swap"
    swap.symlink_to(tree.outside, target_is_directory=True)
    sub, swap_name = bytes(tree.project / "sub"), bytes(swap)
    if renameat2(at_fdcwd, sub, at_fdcwd, swap_name, _RENAME_EXCHANGE) != 0:  # type: ignore[operator]
        pytest.skip(f"RENAME_EXCHANGE unsupported here: {os.strerror(ctypes.get_errno())}")
    files = tree.files()
    before = tree.outside_state()
    stop = threading.Event()
    exchanges = 0

    def exchange() -> None:
        nonlocal exchanges
        while not stop.is_set():
            if renameat2(at_fdcwd, sub, at_fdcwd, swap_name, _RENAME_EXCHANGE) == 0:  # type: ignore[operator]
                exchanges += 1

    swapper = threading.Thread(target=exchange, daemon=True)
    swapper.start()
    outcomes: dict[str, int] = {"read": 0, "written": 0, "refused": 0}
    deadline = time.monotonic() + 20  # a bound on the test, not a claim about speed
    try:
        for number in range(2000):
            if time.monotonic() > deadline:
                break
            try:
                content = read(files, str(tree.project / "sub" / "inner.txt"))
            except RpcError:
                outcomes["refused"] += 1
            else:
                assert content == "inner\n", content
                outcomes["read"] += 1
            try:
                write(files, str(tree.project / "sub" / f"w{number % 7}.txt"), "written")
            except RpcError:
                outcomes["refused"] += 1
            else:
                outcomes["written"] += 1
    finally:
        stop.set()
        swapper.join()
        files.close()
    assert exchanges > 0
    assert tree.outside_state() == before
    assert sorted(p.name for p in tree.outside.iterdir()) == ["inner.txt", "secret.txt"]
    # Both outcomes happened: the race was real, and confinement did not just refuse all.
    assert outcomes["refused"] > 0, outcomes
    assert outcomes["read"] + outcomes["written"] > 0, outcomes


@given(
    parts=st.lists(
        st.one_of(SEGMENTS, st.text(st.characters(codec="utf-8"), max_size=12)), max_size=5
    ),
)
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_no_path_string_reaches_outside_or_a_hard_link(linked_tree: Tree, parts: list[str]) -> None:
    """Any text below the project: an answer or a refusal, never an outside byte read or
    written, never a traceback other than an ACP error."""
    tree = linked_tree
    files = tree.files()
    path = os.path.join(str(tree.project), *parts) if parts else str(tree.project)
    before = tree.outside_state()
    try:
        for attempt in (lambda: read(files, path), lambda: write(files, path, "generated")):
            try:
                content = attempt()
            except RpcError as error:
                assert error.code in (-32602, -32002) and error.message
            else:
                assert content is None or SECRET not in content
    finally:
        files.close()
    assert tree.outside_state() == before
    assert sorted(p.name for p in tree.outside.iterdir()) == ["secret.txt"]
    assert (tree.project / "hard").read_text() == SECRET


@pytest.fixture(scope="module")
def linked_tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tree]:
    tree = Tree(tmp_path_factory.mktemp("linked"))
    os.link(tree.outside / "secret.txt", tree.project / "hard")
    yield tree
