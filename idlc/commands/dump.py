"""`idlc dump --json`: the resolved model of some files, spans included, for tools."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from idlc.commands.console import Echo, exit_code, report


def run_dump(files: Sequence[Path], include: Sequence[Path], error_format: str, echo: Echo) -> int:
    """Print the resolved model of FILES as JSON on stdout; 1 (and no model) on errors."""
    import json

    from idlc.pipeline import compile_files
    from idlc.semantics.dump import model_to_json

    compilation = compile_files(files, include, plan_facts=False)  # (writes no code)
    report(compilation.diagnostics.items, compilation.sources, error_format, echo)
    if compilation.model is None:
        return exit_code(compilation.diagnostics, failed=True)
    echo(json.dumps(model_to_json(compilation.model), indent=2, ensure_ascii=False))
    return exit_code(compilation.diagnostics)
