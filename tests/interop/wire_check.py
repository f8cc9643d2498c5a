"""Check captured ACP traffic against the v1 JSON Schema vendored in idl/acp-schema/v1 (or,
given its path, the v2 draft's, whose definitions carry the same annotations).

Every message is checked twice: against the schema's top-level message union, and against the
one `$defs` entry its method names (`x-method`/`x-side` annotations): a request's params
against `…Request`, a notification's against `…Notification`, a response's result against
the `…Response` of the request it answers (matched by id), an error against `Error`.
Extension methods (`_…`) are only checked as envelopes, as the schema leaves them open.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator

Side = Literal["agent", "client"]

#: The vendored ACP v1 schema (idl/acp-schema/NOTICE says where it comes from).
SCHEMA_PATH = Path(__file__).resolve().parents[2] / "idl" / "acp-schema" / "v1" / "schema.json"


@dataclass
class Message:
    sender: Side
    body: dict[str, Any]


@dataclass
class Report:
    checked: int = 0
    problems: list[str] = field(default_factory=list)
    methods: set[str] = field(default_factory=set)


class Schema:
    def __init__(self, path: Path = SCHEMA_PATH) -> None:
        self.document = json.loads(path.read_text(encoding="utf-8"))
        self.defs: dict[str, Any] = self.document["$defs"]
        self._validators: dict[str, Draft202012Validator] = {}
        # (method, kind) -> $defs name, kind in {"Request", "Response", "Notification"}
        self.by_method: dict[tuple[str, str], str] = {}
        # method -> the side that handles it ("agent", "client" or "protocol")
        self.handler_side: dict[str, str] = {}
        for name, definition in self.defs.items():
            method = definition.get("x-method")
            if method is None:
                continue
            kind = next(k for k in ("Request", "Response", "Notification") if name.endswith(k))
            self.by_method[(method, kind)] = name
            self.handler_side[method] = definition["x-side"]

    @cached_property
    def envelope(self) -> Draft202012Validator:
        return Draft202012Validator(self.document)

    def validator(self, name: str) -> Draft202012Validator:
        if name not in self._validators:
            self._validators[name] = Draft202012Validator(
                {"$defs": self.defs, "$ref": f"#/$defs/{name}"}
            )
        return self._validators[name]

    def errors(self, name: str, value: Any) -> list[str]:
        return [
            f"{name}: {error.message} at {list(error.absolute_path)}"
            for error in self.validator(name).iter_errors(value)
        ][:3]

    def check(self, messages: list[Message], only: Side | None = None) -> Report:
        """Checks the messages sent by `only` (or every message), in wire order.

        Responses are matched with the requests of the other side, so pass the whole
        conversation even when checking one side.
        """
        report = Report()
        pending: dict[tuple[Side, Any], str] = {}  # (requester, id) -> method
        for index, message in enumerate(messages):
            body, sender = message.body, message.sender
            where = f"message {index} from the {sender}"
            if isinstance(body, dict) and "method" in body and "id" in body:
                pending[(sender, json.dumps(body["id"]))] = body["method"]
            if only is not None and sender != only:
                continue
            report.checked += 1
            report.problems.extend(f"{where}: {p}" for p in self._check_one(body, sender, pending))
            if isinstance(body, dict) and isinstance(body.get("method"), str):
                report.methods.add(body["method"])
        return report

    def _check_one(
        self, body: Any, sender: Side, pending: dict[tuple[Side, Any], str]
    ) -> list[str]:
        if not isinstance(body, dict):
            return [f"not a JSON object: {body!r:.200}"]
        problems = [f"envelope: {error.message:.300}" for error in self.envelope.iter_errors(body)][
            :3
        ]
        if body.get("jsonrpc") != "2.0":
            problems.append('"jsonrpc" is not "2.0"')
        method = body.get("method")
        if isinstance(method, str):
            kind = "Request" if "id" in body else "Notification"
            if "id" in body:
                problems += self.errors("RequestId", body["id"])
            if method.startswith("_"):
                return problems
            name = self.by_method.get((method, kind))
            if name is None:
                return problems + [f"{kind.lower()} {method!r} is not an ACP v1 {kind.lower()}"]
            handler = self.handler_side[method]
            if handler == sender:
                problems.append(f"{method!r} is handled by the {handler}, not sent by it")
            return problems + self.errors(name, body.get("params"))
        if "id" not in body:
            return problems + ["neither a request, a notification nor a response"]
        if ("result" in body) == ("error" in body):
            return problems + ["a response needs exactly one of result and error"]
        other: Side = "client" if sender == "agent" else "agent"
        answered = pending.pop((other, json.dumps(body["id"])), None)
        if "error" in body:
            return problems + self.errors("Error", body["error"])
        if answered is None:
            return problems + [f"result for id {body['id']!r}, which no request of the {other} had"]
        if answered.startswith("_"):
            return problems
        name = self.by_method.get((answered, "Response"))
        if name is None:
            return problems + [f"result for {answered!r}, which has no response type"]
        return problems + self.errors(name, body["result"])


def read_tee_log(path: Path, child: Side) -> list[Message]:
    """The conversation recorded by tests/interop/tee.py around the `child` peer."""
    parent: Side = "client" if child == "agent" else "agent"
    messages: list[Message] = []
    if not path.exists():
        return messages
    for raw in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(raw)
        line = entry["line"].strip()
        if not line:
            continue
        sender = child if entry["to"] == "parent" else parent
        try:
            body = json.loads(line)
        except json.JSONDecodeError:
            body = line
        messages.append(Message(sender, body))
    return messages
