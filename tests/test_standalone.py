"""The repository stands alone: nothing tracked in it points outside it.

Its documents are the specification (docs/language.md, docs/wire.md); a comment, doc or test
that cites a document a reader of the repository cannot open, or a path of the machine it was
written on, is a broken promise. This scans every tracked text file.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.conftest import REPO

# Spelled in pieces so that this file does not match itself.
FORBIDDEN = {
    "a folder beside the repository": re.compile(re.escape("../" + "shared")),
    "the original design document (cite docs/ instead)": re.compile(r"\b" + "SP" + r"EC\b"),
    "an absolute path of a development machine": re.compile(
        "|".join(
            re.escape(prefix)
            for prefix in ("/" + "work/", "/" + "root/", "/" + "Users/", "/" + "opt/")
        )
        # The placeholder users of ACP payload examples (`/home/u/p`) and of the v2 draft
        # schema's descriptions, which idl/acp-v2.idl carries (`/home/user/project`), are no
        # machine's.
        + "|/"
        + r"home/(?!u/|user/project)"
    ),
}

#: Copied verbatim from elsewhere (idl/acp-schema/NOTICE); their text is not ours to change.
VENDORED = ("idl/acp-schema/",)

MARKDOWN_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def tracked_text_files() -> list[Path]:
    names = (
        subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    files = []
    for name in filter(None, names):
        path = REPO / name
        if name.startswith(VENDORED) or path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" not in data:
            files.append(path)
    return files


def test_no_tracked_file_points_outside_the_repository() -> None:
    found = []
    for path in tracked_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for what, pattern in FORBIDDEN.items():
                if pattern.search(line):
                    found.append(f"{path.relative_to(REPO)}:{number}: {what}: {line.strip()[:120]}")
    assert not found, "\n".join(found)


def test_relative_links_of_the_documents_stay_inside_the_repository() -> None:
    broken = []
    for path in tracked_text_files():
        if path.suffix != ".md":
            continue
        for target in MARKDOWN_LINK.findall(path.read_text(encoding="utf-8")):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # a URL
            resolved = (path.parent / target).resolve()
            if not resolved.is_relative_to(REPO) or not resolved.exists():
                broken.append(f"{path.relative_to(REPO)}: {target}")
    assert not broken, "\n".join(broken)


def test_no_library_example_or_benchmark_edits_the_import_path() -> None:
    """Library code, examples, benchmarks and tools import installed packages (or, for the
    examples, the committed generated package on PYTHONPATH, as their docstrings say); only
    the tests may arrange the import path (pytest's `pythonpath`)."""
    edits = re.compile(r"\bsys\.path\s*(\.|\[|=|\+=)")
    found = []
    for path in tracked_text_files():
        relative = path.relative_to(REPO)
        if relative.parts[0] not in ("idlc", "runtime", "acp", "examples", "bench", "tools"):
            continue
        if path.suffix != ".py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if edits.search(line):
                found.append(f"{relative}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
