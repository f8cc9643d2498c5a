"""The serving helpers take an agent or a client of either surface, by role
(`idlc_acp.roles`): real mypy --strict accepts every skeleton in its own role and rejects
each in the other."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

# Each line marked `# E` must be a mypy error, and no other line may be one.
_SAMPLE = textwrap.dedent("""\
    from __future__ import annotations

    from idlc_acp import Agent, Client, agent_capabilities, agent_main, protocol, run_agent
    from idlc_acp import serve_agent, spawn_agent, unstable
    from idlc_acp.web.client_http import connect_http
    from idlc_acp.web.client_ws import connect_websocket


    class StableAgent(protocol.Agent): ...


    class UnstableAgent(unstable.Agent): ...


    class SdkAgent(Agent): ...


    class StableClient(protocol.Client): ...


    class UnstableClient(unstable.Client): ...


    class SdkClient(Client): ...


    async def agents(a: StableAgent, b: UnstableAgent, c: SdkAgent) -> None:
        run_agent(a)
        run_agent(b)
        await serve_agent(c)
        agent_capabilities(b)
        agent_main(UnstableAgent)


    async def clients(a: StableClient, b: UnstableClient, c: SdkClient) -> None:
        async with spawn_agent(a, ["agent"]):
            pass
        async with spawn_agent(b, ["agent"]):
            pass
        async with connect_websocket("ws://127.0.0.1:1/", c):
            pass
        async with connect_http("http://127.0.0.1:1/", b):
            pass


    async def crossed(agent: UnstableAgent, client: StableClient) -> None:
        run_agent(client)  # E
        await serve_agent(client)  # E
        agent_main(SdkClient)  # E
        async with spawn_agent(agent, ["agent"]):  # E
            pass
        async with connect_websocket("ws://127.0.0.1:1/", agent):  # E
            pass
    """)

_ERROR = re.compile(r"^sample\.py:(\d+): error: ", re.MULTILINE)


def test_mypy_takes_each_surfaces_skeletons_in_their_role_only(tmp_path: Path) -> None:
    (tmp_path / "sample.py").write_text(_SAMPLE, encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-pretty",
            "--cache-dir",
            str(tmp_path / "cache"),
            "sample.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    expected = {
        number for number, line in enumerate(_SAMPLE.splitlines(), 1) if line.endswith("# E")
    }
    found = {int(number) for number in _ERROR.findall(result.stdout)}
    assert len(expected) == 5
    assert found == expected, result.stdout + result.stderr
