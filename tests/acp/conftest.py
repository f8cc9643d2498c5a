"""Shared helpers for the ACP SDK tests: the ACP schema, validation, the echo agent."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: The vendored ACP v1 schema (idl/acp-schema/NOTICE says where it comes from).
ACP = ROOT / "idl" / "acp-schema" / "v1"
ECHO_AGENT = ROOT / "examples" / "acp_echo_agent.py"
CLIENT = ROOT / "examples" / "acp_client.py"
TEE = Path(__file__).with_name("tee.py")
FIXTURES = Path(__file__).with_name("fixtures")


@cache
def schema() -> dict[str, Any]:
    result: dict[str, Any] = json.loads((ACP / "schema.json").read_text())
    return result


@cache
def meta() -> dict[str, Any]:
    result: dict[str, Any] = json.loads((ACP / "meta.json").read_text())
    return result


@cache
def method_defs() -> dict[str, tuple[str, str | None]]:
    """wire method → (params $def, result $def or None for notifications)."""
    found: dict[str, dict[str, str]] = {}
    for name, node in schema()["$defs"].items():
        method = node.get("x-method")
        if method is not None:
            kind = "result" if name.endswith("Response") else "params"
            found.setdefault(method, {})[kind] = name
    return {method: (kinds["params"], kinds.get("result")) for method, kinds in found.items()}


def all_methods() -> dict[str, str]:
    """wire method → side ("agent", "client", "protocol") from meta.json."""
    sides = {"agentMethods": "agent", "clientMethods": "client", "protocolMethods": "protocol"}
    return {wire: side for key, side in sides.items() for wire in meta()[key].values()}


@cache
def _validators() -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    resource = Resource.from_contents(schema())
    registry: Registry[Any] = Registry().with_resource("urn:acp:v1", resource)
    return Draft202012Validator, registry


def schema_errors(instance: Any, definition: str) -> list[str]:
    """Why `instance` is not a valid `definition` of the ACP schema (empty when valid)."""
    validator_class, registry = _validators()
    validator = validator_class({"$ref": f"urn:acp:v1#/$defs/{definition}"}, registry=registry)
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '<root>'}: {error.message[:300]}"
        for error in validator.iter_errors(instance)
    ]


def message_errors(message: dict[str, Any], requests: dict[Any, str]) -> list[str]:
    """Schema problems of one JSON-RPC message; `requests` maps ids to their methods (filled
    as requests are seen, so responses can be checked against their method's result)."""
    if message.get("jsonrpc") != "2.0":
        return ["jsonrpc is not 2.0"]
    method = message.get("method")
    defs = method_defs()
    if method is not None:
        if "id" in message:
            requests[message["id"]] = method
        if method.startswith("_"):
            return []
        if method not in defs:
            return [f"unknown method {method}"]
        return schema_errors(message.get("params"), defs[method][0])
    if "error" in message:
        return schema_errors(message["error"], "Error")
    method = requests.get(message.get("id"))
    if method is None or method.startswith("_"):
        return []
    result_def = defs[method][1]
    return [] if result_def is None else schema_errors(message.get("result"), result_def)
