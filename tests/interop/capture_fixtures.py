"""Regenerate tests/interop/captured/: messages the official ACP SDKs put on the wire.

    .venv/bin/python -m tests.interop.capture_fixtures     (from the repository root)

Runs the official TypeScript client against the official Python agent and the official
Python client against the official TypeScript agent, each through tee.py, and keeps the
first message of every (sender, kind, method[, session update]) — the conformance fixtures
that test_fixtures.py decodes with the generated ACP types. Needs tests/interop/js/node_modules.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CAPTURED = HERE / "captured"
PYTHON = sys.executable
MAX_BYTES = 16 * 1024
META = json.loads((HERE.parents[1].parent / "shared" / "acp" / "v1" / "meta.json").read_text())
ACP_METHODS = {
    method for group in ("agentMethods", "clientMethods") for method in META[group].values()
}
SDKS = {
    "ts": "@agentclientprotocol/sdk 2.4.0 (npm)",
    "py": "agent-client-protocol 0.12.1 (PyPI)",
}


def run(client: list[str], agent: list[str], log: Path, cwd: Path) -> None:
    command = [
        *client,
        "--cwd",
        str(cwd),
        "--",
        PYTHON,
        str(HERE / "tee.py"),
        str(log),
        "--",
        *agent,
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, timeout=300)


def fixtures(log: Path, client_sdk: str, agent_sdk: str) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    pending: dict[tuple[str, str], str] = {}
    for raw in log.read_text(encoding="utf-8").splitlines():
        entry = json.loads(raw)
        sender = "agent" if entry["to"] == "parent" else "client"
        line = entry["line"]
        message = json.loads(line)
        key_id = json.dumps(message.get("id"))
        if "method" in message:
            method = message["method"]
            kind = "request" if "id" in message else "notification"
            if "id" in message:
                pending[(sender, key_id)] = method
        else:
            other = "client" if sender == "agent" else "agent"
            method = pending.pop((other, key_id), "?")
            kind = "error" if "error" in message else "response"
        if method not in ACP_METHODS or len(line.encode()) > MAX_BYTES:
            continue  # extension and unknown methods and the 2 MiB prompt are not fixtures
        if kind == "error" and method != "session/load":
            continue  # the one error every run provokes on purpose: an unsupported method
        variant = ""
        if method == "session/update":
            variant = "-" + message["params"]["update"]["sessionUpdate"]
        sdk = client_sdk if sender == "client" else agent_sdk
        name = f"{sdk}-{sender}-{kind}-{method.replace('/', '_')}{variant}"
        if name not in found:
            found[name] = {
                "sdk": SDKS[sdk],
                "sender": sender,
                "kind": kind,
                "method": method,
                "message": message,
            }
    return found


def main() -> None:
    CAPTURED.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp) / "workspace"
        cwd.mkdir()
        (cwd / "README.md").write_text("# Captured by the official SDKs\nsecond line\n")
        ts_log, py_log = Path(tmp) / "ts_client.log", Path(tmp) / "py_client.log"
        run(
            ["node", str(HERE / "js" / "client.mjs")],
            [PYTHON, str(HERE / "py_official_agent.py")],
            ts_log,
            cwd,
        )
        run(
            [PYTHON, str(HERE / "py_official_client.py")],
            ["node", str(HERE / "js" / "agent.mjs")],
            py_log,
            cwd,
        )
        found = {**fixtures(ts_log, "ts", "py"), **fixtures(py_log, "py", "ts")}
    for old in CAPTURED.glob("*.json"):
        old.unlink()
    for name, fixture in sorted(found.items()):
        text = json.dumps(fixture, indent=2, ensure_ascii=False) + "\n"
        text = text.replace(tmp, "/tmp/acp-interop")
        (CAPTURED / f"{name}.json").write_text(text, encoding="utf-8")
    print(f"{len(found)} fixtures in {CAPTURED}")


if __name__ == "__main__":
    main()
