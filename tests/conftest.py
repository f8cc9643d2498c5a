"""Test helpers for every folder: where the repository and its IDL inputs are."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SEEDS = (
    REPO / "idl" / "quixos" / "agent_directory.idl",
    REPO / "idl" / "quixos" / "agent_request.idl",
)
