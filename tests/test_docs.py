"""The documentation keeps up with the compiler: every diagnostic code is explained."""

from __future__ import annotations

import re
from pathlib import Path

from idlc.diagnostics.codes import REGISTRY

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_every_diagnostic_code_is_documented_with_cause_and_fix() -> None:
    text = (DOCS / "language.md").read_text(encoding="utf-8")
    sections = dict(
        re.findall(r"^### ([EW]\d{4})\n(.*?)(?=^### |\Z)", text, re.MULTILINE | re.DOTALL)
    )
    missing = sorted(set(REGISTRY) - set(sections))
    assert not missing, f"docs/language.md lacks a section for {missing}"
    for code, body in sections.items():
        assert code in REGISTRY, f"docs/language.md documents {code}, which idlc never reports"
        assert "*Fix:*" in body, f"the section of {code} does not say how to fix it"


def test_every_breaking_rule_is_documented() -> None:
    from idlc.breaking.rules import REGISTRY as RULES

    text = (DOCS / "breaking.md").read_text(encoding="utf-8")
    for rule in RULES.values():
        assert f"| {rule.id} | `{rule.name}` | {rule.explanation} |" in text, rule.id


def test_the_idl_shown_in_the_docs_is_in_canonical_layout(tmp_path: Path) -> None:
    """What users copy from the docs must not be rewritten by `idlc fmt`."""
    from idlc.commands.fmt import format_paths

    # The documents whose IDL is a whole file to copy; the language reference shows
    # constructs in the compact form that is easiest to read.
    documents = [DOCS.parent / "README.md", DOCS / "tutorial.md"]
    files = []
    for document in documents:
        blocks = re.findall(
            r"^```idl( [\w.]+)?\n(.*?)^```$",
            document.read_text(encoding="utf-8"),
            re.MULTILINE | re.DOTALL,
        )
        for index, (_, text) in enumerate(blocks):
            # Fragments (a single member, `…` elisions) are illustrations, not files.
            if "…" in text or not re.match(
                r"(///[^\n]*\n)*(external|import|type|interface)\b", text.lstrip()
            ):
                continue
            path = tmp_path / f"{document.stem}_{index}.idl"
            path.write_text(text, encoding="utf-8")
            files.append(path)
    assert len(files) >= 2
    result = format_paths(files, write=False, diff=True)
    assert not result.diagnostics.has_errors, [d.message for d in result.diagnostics]
    assert result.changed == [], "".join(result.diffs)


def test_every_error_code_of_the_runtime_is_in_the_wire_protocol() -> None:
    from idlc_runtime.errors import RUNTIME_CODES, ErrorCode

    text = (DOCS / "wire.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| (-\d+) \| (.+?) \|", text, re.MULTILINE))
    for code in ErrorCode:
        assert str(int(code)) in table, f"docs/wire.md §6 lacks {code.name} ({int(code)})"
    for code_text in table:
        assert int(code_text) in set(ErrorCode), f"docs/wire.md lists {code_text}, unused"
    own = [code for code in ErrorCode if code <= -32900]
    assert own and all(code in RUNTIME_CODES for code in own)
    assert f"{RUNTIME_CODES[0]}..{RUNTIME_CODES[-1]}" in text


def test_the_wire_protocol_sections_cited_in_code_exist() -> None:
    text = (DOCS / "wire.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+)\. ", text, re.MULTILINE))
    root = DOCS.parent
    for path in [
        *root.glob("idlc/**/*.py"),
        *root.glob("runtime/**/*.py"),
        *root.glob("acp/**/*.py"),
        *root.glob("templates/**/*"),
    ]:
        if not path.is_file():
            continue
        for cited in re.findall(r"docs/wire\.md §(\d+)", path.read_text(encoding="utf-8")):
            assert cited in sections, f"{path.relative_to(root)} cites docs/wire.md §{cited}"
