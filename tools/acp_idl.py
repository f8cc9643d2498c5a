"""Write `idl/acp.idl` from the ACP JSON Schema (protocol version 1): the stable protocol of
`schema.json` and, marked `@unstable(feature = unstable)`, what `schema.unstable.json` adds.

    python tools/acp_idl.py [idl/acp-schema/v1] > idl/acp.idl && idlc fmt idl/acp.idl
    python tools/acp_idl.py --stable [idl/acp-schema/v1]    # schema.json alone
    python tools/acp_idl.py --v2 [idl/acp-schema/v2] > idl/acp-v2.idl && idlc fmt idl/acp-v2.idl

The unstable schema is the stable protocol plus what is not part of the spec yet
(`session/fork`, archive, title, status, providers, auth status, `mcp/message`, plans,
subagents, usage, system prompts) and the proxy-chain role's two interfaces, `Proxy` and
`Successor` (docs/acp.md, "Proxy chains"). Merging the two schemas makes one source: every
declaration, member, field, enum value and variant case the unstable schema adds is marked
(docs/language.md, "Stability"), and what both say is written as the stable schema says it,
so the stable view of `idl/acp.idl` is exactly `--stable`'s output. `idlc generate` writes
the stable view into `idlc_acp.protocol` and the unstable items into `idlc_acp.unstable`,
which imports everything else from the stable package (`tests/interop/test_unstable.py`
checks both, and that `idl/acp.idl` is exactly this script's output, formatted).

With `--v2` it writes `idl/acp-v2.idl` the same way from the vendored draft of protocol
version 2 (`idl/acp-schema/v2`, which has no meta.json: each `x-method` is listed by its
`x-side`). The draft's `SessionUpdate` has a `state_update` case that is `StateUpdate`, a
variant whose `idle` case is `IdleStateUpdate`, a variant again: three tags in one object
(docs/acp-gaps.md G18); and `ErrorData` and `ElicitationContentValue` end in "any other
value", written as a last `json` alternative (G19). `idlc generate` writes its stable view
into `idlc_acp.v2` and its unstable items into `idlc_acp.v2.unstable` (docs/acp.md,
"Protocol version 2").

The script knows the member names of the `Agent` and `Client` interfaces (from the MoonBit
SDK's traits) and the handful of schema shapes the language cannot say directly
(`docs/acp-gaps.md`, G1–G9).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

Json = Any

#: member id → (interface, member name, required, notify). Names follow the seed traits. A
#: member id is its wire method (docs/acp-gaps.md, G6), or `<method>:<verb>` for a method
#: that is a request of one interface and a notification of the other (`wire_of`).
MEMBERS: dict[str, tuple[str, str, bool, bool]] = {
    "initialize": ("Agent", "initialize", True, False),
    "authenticate": ("Agent", "authenticate", False, False),
    "logout": ("Agent", "logout", False, False),
    "session/new": ("Agent", "newSession", True, False),
    "session/load": ("Agent", "loadSession", False, False),
    "session/resume": ("Agent", "resumeSession", False, False),
    "session/list": ("Agent", "listSessions", False, False),
    "session/delete": ("Agent", "deleteSession", False, False),
    "session/close": ("Agent", "closeSession", False, False),
    "session/set_mode": ("Agent", "setMode", False, False),
    "session/set_config_option": ("Agent", "setConfigOption", False, False),
    "session/prompt": ("Agent", "prompt", True, False),
    "session/cancel": ("Agent", "cancel", False, True),
    "session/update": ("Client", "update", True, True),
    "session/request_permission": ("Client", "requestPermission", True, False),
    "fs/read_text_file": ("Client", "readTextFile", False, False),
    "fs/write_text_file": ("Client", "writeTextFile", False, False),
    "terminal/create": ("Client", "createTerminal", False, False),
    "terminal/output": ("Client", "terminalOutput", False, False),
    "terminal/wait_for_exit": ("Client", "waitForTerminalExit", False, False),
    "terminal/kill": ("Client", "killTerminal", False, False),
    "terminal/release": ("Client", "releaseTerminal", False, False),
    "elicitation/create": ("Client", "elicit", False, False),
    "elicitation/complete": ("Client", "completeElicitation", False, True),
    "$/cancel_request": ("Protocol", "cancelRequest", False, True),
}

#: The unstable schema's methods the unstable package serves (docs/acp.md, "The unstable
#: surface"). `mcp/message` (MCP over ACP) is a request the client answers and a
#: notification the agent receives: two members, one binding id (docs/language.md,
#: "Bindings"). The proxy-chain role (docs/acp-gaps.md, G13) is two more interfaces: `Proxy`
#: (`proxy/initialize`, which a proxy answers besides `Agent`) and `Successor` (both kinds of
#: `proxy/successor`, which a proxy and a conductor each answer).
UNSTABLE_MEMBERS: dict[str, tuple[str, str, bool, bool]] = {
    "session/fork": ("Agent", "forkSession", False, False),
    "session/archive": ("Agent", "archiveSession", False, False),
    "session/unarchive": ("Agent", "unarchiveSession", False, False),
    "session/set_title": ("Agent", "setSessionTitle", False, False),
    "session/status": ("Agent", "sessionStatus", False, False),
    "providers/list": ("Agent", "listProviders", False, False),
    "providers/set": ("Agent", "setProvider", False, False),
    "providers/disable": ("Agent", "disableProvider", False, False),
    "auth/status": ("Agent", "authStatus", False, False),
    "auth/status_update": ("Client", "authStatusUpdate", False, True),
    "mcp/message:call": ("Client", "messageMcp", False, False),
    "mcp/message:notify": ("Agent", "messageMcp", False, True),
    "proxy/initialize": ("Proxy", "initializeProxy", True, False),
    "proxy/successor:call": ("Successor", "successorRequest", False, False),
    "proxy/successor:notify": ("Successor", "successorNotification", False, True),
}

#: The interfaces only the unstable schema has: the proxy-chain role.
UNSTABLE_INTERFACES = ("Proxy", "Successor")

#: Schema definitions the unstable surface needs that the stable one skips: a child
#: session's failure carries a JSON-RPC error object (`ErrorStopReason.error`).
UNSTABLE_TYPES = {"Error", "ErrorCode"}

#: Methods that only read; everything else runs as a transaction.
SNAPSHOT = {
    "session/list",
    "fs/read_text_file",
    "terminal/output",
    "terminal/wait_for_exit",
    "session/status",
    "providers/list",
    "auth/status",
}

#: The v2 draft's members (idl/acp-schema/v2): the same names as v1's where the method is
#: v1's, and for what v2 adds or renames: `auth/login` and `auth/logout` (v1's
#: `authenticate` and `logout`), `tool_call/cancel` and `terminal/cancel`. The draft drops
#: `session/load`, `session/set_mode`, the file system and the client-side terminal methods.
V2_MEMBERS: dict[str, tuple[str, str, bool, bool]] = {
    "initialize": ("Agent", "initialize", True, False),
    "auth/login": ("Agent", "login", False, False),
    "auth/logout": ("Agent", "logout", False, False),
    "session/new": ("Agent", "newSession", True, False),
    "session/resume": ("Agent", "resumeSession", False, False),
    "session/list": ("Agent", "listSessions", False, False),
    "session/delete": ("Agent", "deleteSession", False, False),
    "session/close": ("Agent", "closeSession", False, False),
    "session/set_config_option": ("Agent", "setConfigOption", False, False),
    "session/prompt": ("Agent", "prompt", True, False),
    "session/cancel": ("Agent", "cancel", False, True),
    "tool_call/cancel": ("Agent", "cancelToolCall", False, False),
    "terminal/cancel": ("Agent", "cancelTerminal", False, False),
    "session/update": ("Client", "update", True, True),
    "session/request_permission": ("Client", "requestPermission", True, False),
    "elicitation/create": ("Client", "elicit", False, False),
    "elicitation/complete": ("Client", "completeElicitation", False, True),
    "$/cancel_request": ("Protocol", "cancelRequest", False, True),
}


@dataclass(frozen=True)
class Version:
    """What differs between the protocol versions the script writes: the folder of the
    vendored schema, the members of the stable and of the unstable schema, and the file's
    first comment line."""

    number: int
    members: dict[str, tuple[str, str, bool, bool]]
    unstable_members: dict[str, tuple[str, str, bool, bool]]
    header: tuple[str, ...]
    unstable_note: tuple[str, ...]
    #: Of `SKIPPED`, what the stable schema's types use (the v2 draft's
    #: `ErrorStopReason.error` is a JSON-RPC error object).
    types: frozenset[str] = frozenset()

    @property
    def folder(self) -> str:
        return f"idl/acp-schema/v{self.number}"


V1 = Version(
    1,
    MEMBERS,
    UNSTABLE_MEMBERS,
    (
        "// The Agent Client Protocol (ACP), protocol version 1, as the schema vendored in",
        "// idl/acp-schema/v1 says it (from @agentclientprotocol/sdk 2.4.0, Apache-2.0; see",
        "// idl/acp-schema/NOTICE). Member names and the required set follow the seed traits",
        "// of the ACP `Agent` and `Client` (the MoonBit SDK's style). Doc comments",
        "// are the schema's descriptions. Member ids are the wire method names (docs/acp-gaps.md",
        "// G6). It says the schema exactly: no workaround is left (docs/acp-gaps.md).",
    ),
    ('// "The unstable surface"). idlc_acp.unstable has them; idlc_acp.protocol not.',),
)
#: The unstable additions of the v2 draft are v1's unstable methods, by the same names.
V2 = Version(
    2,
    V2_MEMBERS,
    UNSTABLE_MEMBERS,
    (
        "// The Agent Client Protocol (ACP), the draft of protocol version 2, as the schema",
        "// vendored in idl/acp-schema/v2 says it (from @agentclientprotocol/sdk 2.4.0,",
        "// Apache-2.0; see idl/acp-schema/NOTICE), written by tools/acp_idl.py --v2. Member",
        "// names and the required set are v1's (idl/acp.idl) for the methods v1 has. Doc",
        "// comments are the schema's descriptions. Member ids are the wire method names.",
    ),
    ('// "The unstable surface"). idlc_acp.v2.unstable has them; idlc_acp.v2 not.',),
    frozenset(UNSTABLE_TYPES),
)
VERSIONS = {version.number: version for version in (V1, V2)}


def meta_of(schema: Json) -> Json:
    """The method list of a schema without a meta.json (the v2 draft): each `x-method` by
    its `x-side` (the side that answers it), as v1's meta.json lists them."""
    keys = {"agent": "agentMethods", "client": "clientMethods", "protocol": "protocolMethods"}
    found: dict[str, dict[str, str]] = {key: {} for key in keys.values()}
    for node in schema["$defs"].values():
        method, side = node.get("x-method"), node.get("x-side")
        if method is not None and side in keys:
            found[keys[side]][method] = method
    return found


INTERFACE_DOCS = {
    "Agent": (
        "The agent side of ACP. Implement what the agent can do and leave the rest:\n"
        "`initialize`, `newSession` and `prompt` are the three every agent has; every other\n"
        "member answers -32601 until it is implemented, so `initialize` can declare exactly\n"
        "what the agent answers."
    ),
    "Client": (
        "The client side of ACP. `update` and `requestPermission` are required; the rest\n"
        "exist so the agent can ask for them, and a client that leaves one out answers\n"
        "-32601 when the agent asks."
    ),
    "Proxy": (
        "The proxy role of a proxy chain (UNSTABLE): a component with a successor answers it\n"
        'besides `Agent`, on its one connection to the conductor (docs/acp.md, "The unstable\n'
        'surface"). `idlc_acp.proxy_chain.ChainProxy` forwards what it does not handle.'
    ),
    "Successor": (
        "`proxy/successor` (UNSTABLE), a request and a notification: a message wrapped for the\n"
        "next hop. A proxy answers it for what its successor sends back, a conductor for what a\n"
        "proxy sends on; the wrapped result travels back unchanged."
    ),
    "Protocol": (
        "Messages either side may send. The runtime handles `$/cancel_request` itself in\n"
        "both directions (it cancels the handler of that request, which answers -32800);\n"
        "it is declared here so its params type is generated and documented."
    ),
}

META_DOC = (
    "Extension metadata (ACP `_meta`). Implementations MUST NOT make assumptions about\n"
    "values at these keys.\n\n"
    "See protocol docs: [Extensibility](https://agentclientprotocol.com/protocol/extensibility)"
)
META_TYPE = "optional<map<string, json>>"

INTEGER_FORMATS = {"int32", "int64", "uint16", "uint32", "uint64", "int8", "int16", "uint8"}

#: The one feature the unstable items belong to. The schema names no features: the official
#: SDKs take `schema.unstable.json` as a whole behind one opt-in, and so does a package
#: generated with this feature.
FEATURE = "unstable"
ATTRIBUTE = f"@unstable(feature = {FEATURE})"

#: The key a merged schema node carries when only the unstable schema has it (not a schema
#: keyword: it lives only between `merged` and the converter).
MARK = "x-idlc-unstable"


#: Schema definitions that are JSON-RPC envelopes or raw extension payloads, not ACP types.
SKIPPED = {
    "AgentRequest",
    "AgentResponse",
    "AgentNotification",
    "ClientRequest",
    "ClientResponse",
    "ClientNotification",
    "ExtRequest",
    "ExtResponse",
    "ExtNotification",
    "Error",
    "ErrorCode",
}


def wire_of(member_id: str) -> str:
    """The wire method of a member id of `MEMBERS`: `mcp/message:notify` → `mcp/message`."""
    return member_id.partition(":")[0]


def ref_name(node: Json) -> str | None:
    if "$ref" in node:
        return str(node["$ref"]).rsplit("/", 1)[1]
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and "$ref" in all_of[0]:
        return ref_name(all_of[0])
    return None


def doc_lines(text: str | None, indent: str) -> list[str]:
    if not text:
        return []
    out = []
    for line in text.strip().splitlines():
        line = line.rstrip()
        out.append(f"{indent}///" + (f" {line}" if line else ""))
    return out


def leniency(prop: Json, type_: str = "") -> str:
    """The forward-compatibility modifiers of a property of IDL type `type_`
    (docs/language.md, "Forward-compatible fields"): the schema's `x-deserialize-…` marks,
    which the official SDKs honour (serde's `DefaultOnError`/`VecSkipError`/`DefaultOnNull`,
    the TS SDK's `defaultOnError`/`vecSkipError`/`defaultOnNull`). An optional field reads
    `null` as nothing already, so it takes no `null-default`."""
    marks = ""
    if prop.get("x-deserialize-default-on-error"):
        marks += " lenient"
    if prop.get("x-deserialize-skip-invalid-items"):
        marks += " skip-invalid"
    if prop.get("x-deserialize-default-on-null") and not type_.startswith("optional<"):
        marks += " null-default"
    return marks


#: A property's own words for patch semantics in the v2 draft: "Omitted leaves the stored
#: value unchanged. `null` clears it", "Omission leaves the title unchanged, `null` unsets
#: it", "`null` resets it to `pending`", "`null` removes the current report".
_PROPERTY_PATCH = re.compile(r"unchanged\b.*`null` (?:clears|unsets|resets|removes)", re.DOTALL)


def patch_fields(node: Json) -> set[str]:
    """The properties of record `node` with patch semantics — absent leaves the stored
    value unchanged, `null` clears it — as the schema's descriptions say: the record's
    "`a`, `b`, and `c` have patch semantics" (or "`content` has patch semantics"), or
    "Only `id` is required. Other fields have patch semantics" (every optional property,
    `_meta` included: the draft's `null` clears it too), or a property's "Set to null to
    clear" (v1) or `_PROPERTY_PATCH` (v2)."""
    properties = node.get("properties", {})
    description = node.get("description", "")
    found = {
        name
        for name, prop in properties.items()
        if "null to clear" in prop.get("description", "")
        or _PROPERTY_PATCH.search(prop.get("description", ""))
    }
    match = re.search(r"((?:`\w+`,? (?:and )?)+)ha(?:ve|s) patch\s+semantics", description)
    if match:
        found |= set(re.findall(r"`(\w+)`", match.group(1)))
    if re.search(r"Other fields have patch\s+semantics", description):
        found |= set(properties) - set(node.get("required", []))
    return found


def merged(stable: Json, unstable: Json) -> Json:
    """`stable` with what `unstable` adds to it, each addition carrying `MARK`: properties
    (and whether they are required), and alternatives of a `oneOf`/`anyOf` (enum values,
    variant cases), matched by `alternative_key`; what both have is merged the same way,
    and everything else is as `stable` says it (the unstable schema's descriptions link
    the draft's pages)."""
    out = dict(stable)
    if "properties" in stable or "properties" in unstable:
        ours = stable.get("properties", {})
        theirs = unstable.get("properties", {})
        out["properties"] = dict(merged_items(ours, theirs))
        required = list(stable.get("required", []))
        required += [
            name for name in unstable.get("required", []) if name not in ours and name in theirs
        ]
        if required:
            out["required"] = required
    for key in ("oneOf", "anyOf", "allOf"):
        if key in stable or key in unstable:
            ours = {alternative_key(a): a for a in stable.get(key, [])}
            theirs = {alternative_key(a): a for a in unstable.get(key, [])}
            out[key] = [node for _, node in merged_items(ours, theirs)]
    return out


def merged_items(ours: dict[str, Json], theirs: dict[str, Json]) -> list[tuple[str, Json]]:
    """The items of both, keyed alike, in `in_merged_order`: one both have merged, one only
    `theirs` has marked."""
    return [
        (
            key,
            (
                merged(ours[key], theirs.get(key, ours[key]))
                if key in ours
                else {**theirs[key], MARK: True}
            ),
        )
        for key in in_merged_order(list(ours), list(theirs))
    ]


def alternative_key(node: Json) -> str:
    """What identifies an alternative across the two schemas: its tag's value, the
    definition it names, or its title, type and shape."""
    for key, prop in node.get("properties", {}).items():
        if isinstance(prop, dict) and "const" in prop:
            return f"{key}={json.dumps(prop['const'])}"
    if "const" in node:
        return f"const={json.dumps(node['const'])}"
    ref = ref_name(node)
    if ref is not None:
        return f"ref={ref}"
    if "title" in node:
        return f"title={node['title']}"
    return json.dumps({k: v for k, v in node.items() if k != "description"}, sort_keys=True)


def in_merged_order(ours: list[str], theirs: list[str]) -> list[str]:
    """`ours` in its own order, with each item only `theirs` has placed after the item it
    follows there, so that what the stable schema says keeps its order."""
    out = list(ours)
    for index, item in enumerate(theirs):
        if item in out:
            continue
        before = next((theirs[i] for i in range(index - 1, -1, -1) if theirs[i] in out), None)
        out.insert(0 if before is None else out.index(before) + 1, item)
    return out


class Converter:
    def __init__(
        self, schema: Json, meta: Json, unstable: Json | None = None, version: Version = V1
    ) -> None:
        """The protocol of `schema`; with `unstable` (the unstable schema), merged with what
        that one adds, each addition marked (`merged`)."""
        self.meta = meta
        self.version = version
        self.order: list[str] = []
        self.seen: set[str] = set()
        self.merging = unstable is not None
        self.defs: dict[str, Json] = schema["$defs"]
        self.members = version.members
        self.stable_order: list[str] = []
        if unstable is not None:
            stable = Converter(schema, meta, version=version)
            stable.reach_members()
            self.stable_order = stable.order
            kept = set(stable.order)
            self.defs = {
                name: merged(schema["$defs"][name], node) if name in kept else node
                for name, node in unstable["$defs"].items()
            }
            self.members = {**version.members, **version.unstable_members}
        self.methods = self.method_types()

    def unstable(self, name: str) -> bool:
        """Whether declaration `name` is only the unstable schema's."""
        return self.merging and name not in self.stable_order

    @staticmethod
    def mark(node: Json, indent: str) -> list[str]:
        """The attribute line of an item only the unstable schema has."""
        return [f"{indent}{ATTRIBUTE}"] if node.get(MARK) else []

    # -- reachability, in the order a reader meets the types --

    def reach(self, name: str) -> None:
        skipped = SKIPPED - UNSTABLE_TYPES if self.merging else SKIPPED - self.version.types
        if name in self.seen or name in skipped:
            return
        self.seen.add(name)
        self.order.append(name)
        for ref in self.refs(self.defs[name]):
            self.reach(ref)

    def refs(self, node: Json) -> Iterator[str]:
        if isinstance(node, dict):
            if "$ref" in node:
                yield str(node["$ref"]).rsplit("/", 1)[1]
            for key, value in node.items():
                if key != "not":
                    yield from self.refs(value)
        elif isinstance(node, list):
            for item in node:
                yield from self.refs(item)

    def method_types(self) -> dict[str, dict[str, str]]:
        """wire method → its defs: "request" and "result", or "notification" (or both, for
        a method that is a request one way and a notification the other: `mcp/message`)."""
        found: dict[str, dict[str, str]] = {}
        for name, node in self.defs.items():
            method = node.get("x-method")
            if method is None:
                continue
            kind = "result" if name.endswith("Response") else "request"
            if name.endswith("Notification"):
                kind = "notification"
            found.setdefault(method, {})[kind] = name
        return found

    # -- types --

    def type_of(self, node: Json) -> str:
        ref = ref_name(node)
        if ref is not None:
            return ref
        if "anyOf" in node:
            alternatives = [a for a in node["anyOf"] if a.get("type") != "null"]
            if len(alternatives) == 1 and len(node["anyOf"]) == 2:
                return f"optional<{self.type_of(alternatives[0])}>"
        kind = node.get("type")
        if isinstance(kind, list):
            rest = [k for k in kind if k != "null"]
            inner = self.type_of({**node, "type": rest[0]})
            return f"optional<{inner}>" if "null" in kind else inner
        if kind == "string":
            return "string"
        if kind == "boolean":
            return "bool"
        if kind == "number":
            return "float64"
        if kind == "integer":
            fmt = str(node.get("format", "int64"))
            assert fmt in INTEGER_FORMATS, fmt
            return fmt
        if kind == "array":
            return f"list<{self.type_of(node['items'])}>"
        if kind == "object":
            extra = node.get("additionalProperties")
            if extra is True or extra is None:
                return "map<string, json>"
            return f"map<string, {self.type_of(extra)}>"
        if not kind:
            return "json"
        raise ValueError(f"cannot convert {node}")

    def fields(self, node: Json, indent: str, skip: tuple[str, ...] = ()) -> list[str]:
        required = set(node.get("required", []))
        patched = patch_fields(node)
        lines: list[str] = []
        for name, prop in node.get("properties", {}).items():
            if name in skip:
                continue
            if name == "_meta" and name not in patched:
                lines += doc_lines(META_DOC, indent)
                lines += self.mark(prop, indent)
                lines.append(f"{indent}_meta: {META_TYPE}{leniency(prop)};")
                continue
            doc = prop.get("description", "")
            lines += doc_lines(doc, indent)
            lines += self.mark(prop, indent)
            type_ = self.type_of(prop)
            if name in patched:
                # Absent leaves the stored value, `null` clears it: a tri-state field
                # (docs/language.md, "Nullable and tri-state fields").
                if type_ == "json" and name not in required:
                    type_ = "optional<json>"  # `json` holds `null`: its tri-state is spelt so
                if not type_.startswith("optional<") or name in required:
                    raise ValueError(f"{name}: a patch field must be nullable and not required")
                type_ = f"optional<nullable<{type_.removeprefix('optional<')}>"
                lines.append(f"{indent}{name}: {type_}{leniency(prop, type_)};")
                continue
            default = ""
            if "default" in prop:
                value = prop["default"]
                if value is False or value is True:
                    default = f" = {json.dumps(value)}"
                elif value == []:
                    default = " = []"
                elif isinstance(value, str):
                    default = f" = {json.dumps(value)}"
                elif isinstance(value, dict) and self.at_defaults(prop, value):
                    default = " = {}"
                else:
                    raise ValueError(f"{name}: cannot say the default {json.dumps(value)}")
            elif name not in required and type_ == "json" and "null is retained" in doc:
                # Absent and `null` apart (`McpError.data`): the tri-state of `json`
                # (docs/language.md, "Nullable and tri-state fields").
                type_ = "optional<nullable<json>>"
            elif name not in required and not type_.startswith("optional<"):
                type_ = f"optional<{type_}>"
            lines.append(f"{indent}{name}: {type_}{default}{leniency(prop, type_)};")
        return lines

    def at_defaults(self, prop: Json, value: Json) -> bool:
        """Whether the object `value` (a property's schema default) is what `{}` builds: the
        empty map, or the record with every field at its own default (docs/language.md,
        "Records and field defaults")."""
        ref = ref_name(prop)
        node = self.defs[ref] if ref is not None else prop
        properties = node.get("properties")
        if properties is None:
            return isinstance(value, dict) and not value
        for key, item in value.items():
            field = properties.get(key)
            if field is None:
                return False
            if isinstance(item, dict):
                if not self.at_defaults(field, item):
                    return False
            elif "default" not in field or item != field["default"]:
                return False
        return True

    def record(self, node: Json, indent: str, extra: list[str] | None = None) -> str:
        # `additionalProperties: true` beside declared properties: the object keeps the
        # members it does not declare (`McpError`; docs/language.md, "Open records").
        keyword = "open record" if node.get("additionalProperties") is True else "record"
        body = self.fields(node, indent + "    ") + (extra or [])
        if not body:
            return f"{keyword} {{}}"
        return f"{keyword} {{\n" + "\n".join(body) + f"\n{indent}}}"

    def merged_union(self, node: Json, alternatives: list[Json]) -> str:
        """An object with properties of its own and an untagged `anyOf` of records (the
        elicitation modes: their fields and a session or a request scope): a union of
        records, each holding the object's own fields and one alternative's (docs/language.md,
        "Variants": a case may be a union of records)."""
        records = []
        for alternative in alternatives:
            self.unmarked(alternative, "an alternative of a union")
            scope = self.defs[ref_name(alternative) or ""]
            merged = {
                "properties": {**node["properties"], **scope["properties"]},
                "required": [*node.get("required", []), *scope.get("required", [])],
            }
            records.append("    " + self.record(merged, "    ") + ";")
        return "union {\n" + "\n".join(records) + "\n}"

    def enum(self, alternatives: list[Json], indent: str) -> str:
        values = []
        open_ = False
        for alternative in alternatives:
            if "const" not in alternative:
                open_ = True
                continue
            values += doc_lines(alternative.get("description"), indent + "    ")
            values += self.mark(alternative, indent + "    ")
            values.append(f'{indent}    {json.dumps(alternative["const"])};')
        return ("open " if open_ else "") + "enum {\n" + "\n".join(values) + f"\n{indent}}}"

    def variant(self, name: str, node: Json, alternatives: list[Json], tag: str) -> str:
        open_ = False
        lines: list[str] = []
        for alternative in alternatives:
            props = alternative.get("properties", {})
            const = props.get(tag, {}).get("const")
            if tag in props and const is None:
                open_ = True  # the "other" alternative: unknown tags are kept
                self.unmarked(alternative, "the unknown case of a variant")
                lines += self.unknown_case(alternative, tag)
                continue
            lines += doc_lines(alternative.get("description"), "    ")
            lines += self.mark(alternative, "    ")
            # An alternative without the tag reads any object shaped like it, whatever its
            # tag says, as the official SDKs decode it: the `default:` case (docs/language.md,
            # "Variants").
            label = "default" if const is None else json.dumps(const)
            ref = ref_name(alternative)
            own = {k: v for k, v in props.items() if k != tag}
            if ref is not None:
                case = ref
            elif own:
                case = self.record({**alternative, "properties": own}, "    ")
            else:
                case = "unit"
            lines.append(f"    {label}: {case};")
        head = ("open " if open_ else "") + f'variant tag "{tag}"'
        if node.get("properties"):
            # The object's own properties sit beside every case's (docs/language.md,
            # "Variants": `fields`).
            head += " fields {\n" + "\n".join(self.fields(node, "    ")) + "\n}"
        return head + " {\n" + "\n".join(lines) + "\n}"

    def unknown_case(self, alternative: Json, tag: str) -> list[str]:
        """What the "other" alternative's object must also be, beside its tag: the
        `unknown:` case (docs/language.md, "Variants") — a union of the records its `anyOf`
        names (`CreateElicitationRequest`: a session or a request scope), or a record of its
        own properties; nothing when it says nothing more."""
        scopes = [
            ref_name(item) or ref_name((item.get("allOf") or [{}])[0])
            for item in alternative.get("anyOf", [])
        ]
        own = {k: v for k, v in alternative.get("properties", {}).items() if k != tag}
        if scopes and own:
            raise ValueError(f"cannot say both a union and fields for unknown {tag!r}")
        if scopes:
            if not all(scopes):
                raise ValueError(f"an unknown {tag!r} must be a union of named records")
            case = "union { " + " ".join(f"{scope};" for scope in scopes) + " }"
        elif own:
            # The unknown case keeps the object as received, so the members the record does
            # not declare travel anyway: `additionalProperties: true` (the v2 draft's
            # `AuthMethod`) needs no `open record`, which a case cannot be (E0130).
            closed = {**alternative, "properties": own, "additionalProperties": None}
            case = self.record(closed, "    ")
        else:
            return []
        lines = doc_lines(alternative.get("description"), "    ")
        return [*lines, f"    unknown: {case};"]

    def definition(self, name: str) -> str:
        node = self.defs[name]
        alternatives = node.get("oneOf") or node.get("anyOf")
        if name == "ErrorCode":  # the codes it lists are documentation; any integer travels
            return "int32"
        tag = self.tag_of(alternatives) if alternatives else None
        if tag is not None and tag in node.get("properties", {}):
            # A record that is also a variant on one of its own optional fields (the unstable
            # `IdleStateUpdate`, on `stopReason`): a variant with the other properties as
            # shared fields and a `default:` case for an absent tag (docs/language.md,
            # "Variants"; a case of `StateUpdate`, it is a variant inside a variant case).
            if tag in node.get("required", []):
                raise ValueError(f"{name}: a required tag property is the tag alone")
            properties = {k: v for k, v in node["properties"].items() if k != tag}
            shared = {**node, "properties": properties}
            absent = (
                f"    /// No `{tag}`: not reported (the schema describes `null` and a malformed\n"
                "    /// value as the same).\n    default: unit;\n}"
            )
            return self.variant(name, shared, alternatives, tag).removesuffix("}") + absent
        if (
            alternatives
            and node.get("properties")
            and tag is None
            and all(ref_name(a) for a in alternatives)
        ):
            return self.merged_union(node, alternatives)
        if name == "AvailableCommandInput" and self.tag_of(alternatives) is None:
            # v1's: a union with one alternative (v2's is an open variant on `type`).
            return ref_name(alternatives[0]) or "json"
        if alternatives and all("const" in a or a.get("type") == "string" for a in alternatives):
            return self.enum(alternatives, "")
        if alternatives:
            tag = self.tag_of(alternatives)
            if tag is not None:
                return self.variant(name, node, alternatives, tag)
            for alternative in alternatives:
                self.unmarked(alternative, "an alternative of a union")
            parts = [self.alternative(a) for a in alternatives if a.get("type") != "null"]
            union = "union { " + " ".join(f"{p};" for p in parts) + " }"
            # `RequestId`: JSON-RPC's null id is one of its values.
            return f"nullable<{union}>" if len(parts) < len(alternatives) else union
        if node.get("type") == "object":
            return self.record(node, "")
        return self.type_of(node)

    def alternative(self, node: Json) -> str:
        """An alternative of an untagged union: an inline object with properties is a record
        (`MessageMcpResponse`: `{result}` or `{error}`), anything else its type."""
        if node.get("type") == "object" and node.get("properties") and ref_name(node) is None:
            return self.record(node, "")
        return self.type_of(node)

    @staticmethod
    def unmarked(node: Json, what: str) -> None:
        """Refuse an unstable addition where the language has no place for `@unstable`."""
        if node.get(MARK):
            raise ValueError(f"the unstable schema adds {what}, which cannot be marked unstable")

    @staticmethod
    def tag_of(alternatives: list[Json]) -> str | None:
        for alternative in alternatives:
            for key, prop in alternative.get("properties", {}).items():
                if "const" in prop and key in alternative.get("required", []):
                    return str(key)
        return None

    # -- the file --

    def by_interface(self) -> dict[str, list[str]]:
        """interface → its member ids, in the order they are written."""
        wire_order = [
            *self.meta["agentMethods"].values(),
            *self.meta["clientMethods"].values(),
            *self.meta["protocolMethods"].values(),
            *(self.methods if self.merging else ()),
        ]
        interfaces = ["Agent", "Client", "Protocol", *(UNSTABLE_INTERFACES if self.merging else ())]
        found: dict[str, list[str]] = {interface: [] for interface in interfaces}
        for member_id in self.members:
            assert wire_of(member_id) in wire_order, member_id
            found[self.members[member_id][0]].append(member_id)
        return found

    def signature(self, member_id: str) -> tuple[str, str]:
        """The params and result types of a member (`unit` for a notification)."""
        _, _, _, notify = self.members[member_id]
        types = self.methods[wire_of(member_id)]
        if notify:
            return types["notification"], "unit"
        return types["request"], types["result"]

    def reach_members(self) -> None:
        """Every type the members use, in the order a reader meets them."""
        for member_ids in self.by_interface().values():
            for member_id in member_ids:
                params, result = self.signature(member_id)
                self.reach(params)
                if result != "unit":
                    self.reach(result)

    def run(self) -> str:
        self.reach_members()
        # The stable declarations keep the stable schema's order, so that the stable view
        # of the merged file is the stable file, byte for byte.
        order = in_merged_order(self.stable_order, self.order) if self.merging else self.order
        out = [
            *self.version.header,
            *(
                (
                    f"// Items marked `{ATTRIBUTE}` are schema.unstable.json's additions: not",
                    "// part of the spec yet, they may change or go at any time (docs/acp.md,",
                    *self.version.unstable_note,
                )
                if self.merging
                else ()
            ),
            "",
        ]
        for interface, member_ids in self.by_interface().items():
            ident = f"acp:{interface.lower()}"
            whole = interface in UNSTABLE_INTERFACES
            out += doc_lines(INTERFACE_DOCS[interface], "")
            out += [ATTRIBUTE] if whole else []
            out.append(f'interface {interface} id "{ident}" revision "{ident}@1" {{')
            for member_id in member_ids:
                _, member, required, notify = self.members[member_id]
                wire = wire_of(member_id)
                params, output = self.signature(member_id)
                out += doc_lines(self.defs[params].get("description"), "    ")
                if not whole and member_id in self.version.unstable_members and self.merging:
                    out.append(f"    {ATTRIBUTE}")
                binding = (
                    f'notify id "{wire}";'
                    if notify
                    else f'call id "{wire}" execution '
                    f'{"snapshot" if wire in SNAPSHOT else "transaction"};'
                )
                out.append(
                    f'    {"required " if required else ""}operation {member} id "{member_id}"'
                    f" : {params} -> {output} {{ {binding} }}"
                )
            out.append("}")
            out.append("")
        for name in order:
            out += doc_lines(self.defs[name].get("description"), "")
            out += [ATTRIBUTE] if self.unstable(name) else []
            out.append(f"type {name} = {self.definition(name)};")
            out.append("")
        return "\n".join(out).rstrip("\n") + "\n"


def main() -> None:
    arguments = sys.argv[1:]
    stable_only = "--stable" in arguments
    version = V2 if "--v2" in arguments else V1
    arguments = [argument for argument in arguments if argument not in ("--stable", "--v2")]
    options = [argument for argument in arguments if argument.startswith("-")]
    if options or len(arguments) > 1:
        fail(f"unknown argument {(options or arguments)[-1]!r}: use [--stable] [--v2] [folder]")
    root = Path(__file__).resolve().parents[1]
    folder = Path(arguments[0]) if arguments else root / version.folder
    schema = read_json(folder / "schema.json")
    meta = read_json(folder / "meta.json") if (folder / "meta.json").is_file() else meta_of(schema)
    unstable = None if stable_only else read_json(folder / "schema.unstable.json")
    try:
        sys.stdout.write(Converter(schema, meta, unstable, version).run())
    except (KeyError, ValueError, AssertionError) as error:
        fail(f"cannot convert the schema in {folder}: {error}")


def read_json(path: Path) -> Json:
    """The JSON document at `path`, or a clear message and exit 2."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        fail(f"cannot read {path}: {error}")


def fail(message: str) -> NoReturn:
    sys.stderr.write(f"acp_idl: {message}\n")
    raise SystemExit(2)


if __name__ == "__main__":
    main()
