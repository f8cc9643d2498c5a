"""The documentation keeps up with the compiler: every diagnostic code is explained."""

from __future__ import annotations

import re
from pathlib import Path

from idlc.diagnostics.codes import REGISTRY

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_every_diagnostic_code_is_documented_with_cause_and_fix() -> None:
    text = (DOCS / "language.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^### ([EW]\d{4})\n(.*?)(?=^### |\Z)", text, re.MULTILINE | re.DOTALL))
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
