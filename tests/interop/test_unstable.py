"""The opt-in unstable surface (docs/acp.md, "The unstable surface"): `idlc_acp.unstable`,
generated from schema.unstable.json. Importing idlc_acp never imports it; an agent that opts
in serves `session/fork` to the official TypeScript client, and idlc's client forks a
session of the official TypeScript agent."""

from __future__ import annotations

import asyncio
import json
import subprocess
from typing import Any

import pytest

from idlc_acp import (
    Client,
    InitializeRequest,
    NewSessionRequest,
    RequestPermissionOutcomeCancelled,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    spawn_agent,
)
from idlc_runtime import Unsupported

from .support import HERE, JS, PYTHON, RUN_TIMEOUT, child_env, require_node_modules

SCHEMA = HERE.parents[1] / "idl" / "acp-schema" / "v1" / "schema.unstable.json"
UNSTABLE_AGENT = [PYTHON, str(HERE / "idlc_unstable_agent.py")]
TS_FORK_AGENT = ["node", str(JS / "fork_agent.mjs")]


def test_importing_idlc_acp_does_not_import_the_unstable_surface() -> None:
    probe = (
        "import sys, idlc_acp, idlc_acp.agent, idlc_acp.client, idlc_acp.session\n"
        "print(sorted(m for m in sys.modules if m.startswith('idlc_acp.unstable')))"
    )
    completed = subprocess.run(
        [PYTHON, "-c", probe], capture_output=True, text=True, env=child_env(), timeout=60
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


def test_the_official_ts_client_forks_a_session_of_an_idlc_agent() -> None:
    require_node_modules()
    completed = subprocess.run(
        ["node", str(JS / "fork_client.mjs"), "--", *UNSTABLE_AGENT],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=RUN_TIMEOUT,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    found = json.loads(completed.stdout.splitlines()[-1])
    parent = found["created"]["sessionId"]
    assert found["forked"]["sessionId"].endswith(f"-of-{parent}")
    # An unstable method the agent leaves out answers -32601, as any other.
    assert found["archive"]["error"]["code"] == -32601


class Recorder(Client):
    async def update(self, input: SessionNotification) -> None:
        pass

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())


async def fork_with_our_client(agent: list[str]) -> tuple[str, Any]:
    from idlc_acp.unstable import ArchiveSessionRequest, ForkSessionRequest

    async with spawn_agent(Recorder(), agent, env=child_env()) as connection:
        await connection.initialize(InitializeRequest(protocol_version=1))
        created = await connection.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
        unstable = connection.unstable()
        forked = await unstable.fork_session(
            ForkSessionRequest(session_id=created.session_id, cwd="/tmp", mcp_servers=[])
        )
        with pytest.raises(Unsupported):
            await unstable.archive_session(ArchiveSessionRequest(session_id=created.session_id))
    return created.session_id, forked


def test_idlc_client_forks_a_session_of_the_official_ts_agent() -> None:
    require_node_modules()
    parent, forked = asyncio.run(asyncio.wait_for(fork_with_our_client(TS_FORK_AGENT), 60))
    assert forked.session_id.startswith("fork-") and forked.session_id != parent
    assert forked.meta == {"forkedFrom": parent}


def test_idlc_client_forks_a_session_of_an_idlc_agent() -> None:
    parent, forked = asyncio.run(asyncio.wait_for(fork_with_our_client(UNSTABLE_AGENT), 60))
    assert forked.session_id.endswith(f"-of-{parent}")


def _validator(definition: str) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    registry: Registry[Any] = Registry().with_resource(
        "urn:acp:v1u", Resource.from_contents(json.loads(SCHEMA.read_text()))
    )
    return Draft202012Validator({"$ref": f"urn:acp:v1u#/$defs/{definition}"}, registry=registry)


def _unstable_samples() -> list[tuple[str, Any]]:
    from idlc_acp import unstable as u

    return [
        (
            "ForkSessionRequest",
            u.ForkSessionRequest(
                session_id="s-1",
                cwd="/work",
                additional_directories=["/data"],
                mcp_servers=[],
                meta={"k": 1},
            ),
        ),
        ("ForkSessionResponse", u.ForkSessionResponse(session_id="s-2")),
        ("ArchiveSessionRequest", u.ArchiveSessionRequest(session_id="s-1")),
        ("SetSessionTitleRequest", u.SetSessionTitleRequest(session_id="s-1", title="Plan")),
        ("SessionStatusRequest", u.SessionStatusRequest(session_id="s-1")),
        ("ListProvidersRequest", u.ListProvidersRequest()),
        ("AuthStatusRequest", u.AuthStatusRequest()),
    ]


@pytest.mark.parametrize("index", range(len(_unstable_samples())))
def test_what_the_unstable_surface_encodes_is_valid_under_the_unstable_schema(index: int) -> None:
    import msgspec

    from idlc_runtime.hooks import enc_hook

    definition, value = _unstable_samples()[index]
    instance = json.loads(msgspec.json.encode(value, enc_hook=enc_hook))
    errors = [error.message for error in _validator(definition).iter_errors(instance)]
    assert not errors, (definition, instance, errors)


def test_every_unstable_method_but_the_ones_left_out_is_served() -> None:
    """The unstable package has every method of schema.unstable.json except those docs/acp.md
    lists as left out (`proxy/*`)."""
    from idlc_acp import unstable as u

    schema = json.loads(SCHEMA.read_text())
    methods = {node["x-method"] for node in schema["$defs"].values() if "x-method" in node}
    served = {
        wire
        for interface in (u.Agent, u.Client, u.Protocol)
        for wire in interface.__idlc_interface__.methods
    }
    left_out = {"proxy/initialize", "proxy/successor"}
    assert served == methods - left_out
