"""The walk of examples/quixos_client.ts done by a Python client: the same calls, in the same
order, through the generated Python proxies (`generated/quixos_agent`), recorded in the same
JSON shape (`{"result": …}` as the wire writes it, lists of references sorted, or
`{"error": {code, message, data, unsupported}}`), so that the two walks can be compared
whole, against either server."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from quixos_agent import (
    AgentContextSubjectRef,
    AgentDirectoryProxy,
    AgentRequestObjectRef,
    AgentRequestProxy,
    AgentSubmission,
    AgentThreadObjectRef,
    ItemData,
    ItemDataControl,
)

from idlc_runtime import RpcError, Unsupported
from idlc_runtime.hooks import enc_hook

WHEN = "2025-01-01T12:00:00Z"


def _json(value: object) -> object:
    if isinstance(value, frozenset):
        return sorted(value)
    return msgspec.to_builtins(value, enc_hook=enc_hook)


async def outcome(call: Awaitable[object], encode: Callable[[Any], object] = _json) -> object:
    try:
        return {"result": encode(await call)}
    except RpcError as error:
        return {
            "error": {
                "code": error.code,
                "message": error.message,
                "data": error.data,
                "unsupported": isinstance(error, Unsupported),
            }
        }


def submission(text: str, **links: AgentRequestObjectRef) -> AgentSubmission:
    return AgentSubmission(
        text=text,
        source_kind="user",
        source_label="walkthrough",
        created_at=WHEN,
        contexts=[AgentContextSubjectRef("context:docs")],
        causal_depth=0,
        **links,
    )


async def walk(peer: Any) -> dict[str, object]:
    """Every member of both interfaces, in the order of examples/quixos_client.ts."""
    seen: dict[str, object] = {}
    directory = AgentDirectoryProxy(peer)
    seen["data"] = await outcome(directory.data())
    seen["defaultAgent before initialize"] = await outcome(directory.default_agent())
    seen["initialize"] = await outcome(
        directory.initialize(instructions="Be brief.", settings='{"model": "small"}')
    )
    seen["defaultAgent"] = await outcome(directory.default_agent())
    seen["initialThread"] = await outcome(directory.initial_thread())
    writer = await directory.create_agent(
        name="writer",
        description="Writes release notes",
        instructions="Write clearly.",
        settings="{}",
    )
    seen["createAgent"] = {"result": writer}
    thread = await directory.create_thread(
        agent=writer, title="Release 1.0", kind="chat", created_at=WHEN, contexts=[]
    )
    seen["createThread"] = {"result": thread}
    seen["agents"] = await outcome(directory.agents())
    seen["threads"] = await outcome(directory.threads())

    admission = await directory.admit(
        agent=writer, thread=thread, submission=submission("Draft the notes"), optional_work=False
    )
    seen["admit"] = {"result": _json(admission)}
    assert admission.accepted and admission.request is not None
    ref = admission.request
    seen["pending"] = await outcome(directory.pending())
    seen["advertise busy"] = await outcome(
        directory.advertise(profiles="fast,careful", availability="busy")
    )
    seen["admit optional while busy"] = await outcome(
        directory.admit(agent=writer, submission=submission("Tidy up"), optional_work=True)
    )
    seen["advertise available"] = await outcome(
        directory.advertise(profiles="fast,careful", availability="available")
    )
    seen["data after advertise"] = await outcome(directory.data())

    request = AgentRequestProxy(peer, target=ref)
    seen["admission"] = await outcome(request.admission())
    seen["progress"] = await outcome(request.progress())
    seen["thread"] = await outcome(request.thread())
    seen["directory"] = await outcome(request.directory())
    seen["contexts"] = await outcome(request.contexts())
    seen["related"] = await outcome(request.related())
    seen["retryOf"] = await outcome(request.retry_of())
    seen["root"] = await outcome(request.root())

    first = await request.claim(
        attempt="worker-a", expected_generation=0, started_at=WHEN, recover=False
    )
    seen["claim worker-a"] = {"result": _json(first)}
    seen["claim worker-b stale"] = await outcome(
        request.claim(attempt="worker-b", expected_generation=0, started_at=WHEN, recover=False)
    )
    generation = first.generation
    seen["transition worker-b"] = await outcome(
        request.transition(attempt="worker-b", generation=generation, status="x", reason="")
    )
    seen["transition worker-a"] = await outcome(
        request.transition(
            attempt="worker-a", generation=generation, status="writing", reason="drafting"
        )
    )
    seen["steer"] = await outcome(
        request.steer(
            attempt="worker-a",
            generation=generation,
            key="tone",
            text="Friendlier",
            created_at=WHEN,
        )
    )
    seen["steer stale"] = await outcome(
        request.steer(attempt="worker-b", generation=generation, key="x", text="", created_at=WHEN)
    )
    outline = ItemData(
        key="outline",
        kind="note",
        text="1. Features 2. Fixes",
        phase="done",
        sequence=1,
        version=1,
        created_at=WHEN,
        updated_at=WHEN,
        control=ItemDataControl(
            attempt="worker-a", generation=generation, status="writing", reason=""
        ),
    )
    seen["upsertItem"] = await outcome(
        request.upsert_item(attempt="worker-a", generation=generation, data=outline)
    )
    seen["ask"] = await outcome(
        request.ask(
            attempt="worker-a",
            generation=generation,
            key="audience",
            title="Who reads these notes?",
            options='["users", "developers"]',
            created_at=WHEN,
            expires_at="2025-01-02T12:00:00Z",
        )
    )
    seen["items"] = await outcome(request.items())
    seen["questions"] = await outcome(request.questions())
    seen["reserveChild"] = await outcome(request.reserve_child())
    seen["spawned"] = await outcome(request.spawned())

    seen["finish generation 0"] = await outcome(
        request.finish(
            attempt="worker-a", generation=0, status="completed", reason="", ended_at=WHEN
        )
    )
    seen["finish"] = await outcome(
        request.finish(
            attempt="worker-a",
            generation=generation,
            status="completed",
            result="Release 1.0 brings ...",
            usage='{"tokens": 420}',
            reason="done",
            ended_at=WHEN,
        )
    )
    seen["progress finished"] = await outcome(request.progress())
    seen["pending after finish"] = await outcome(directory.pending())
    seen["publishCompletion"] = await outcome(request.publish_completion())
    seen["publishCompletion again"] = await outcome(request.publish_completion())

    seen["settle wrong thread"] = await outcome(
        directory.settle(
            request=ref, thread=AgentThreadObjectRef("thread-404"), interactive=False, notify=True
        )
    )
    seen["settle"] = await outcome(
        directory.settle(request=ref, thread=thread, interactive=False, notify=True)
    )
    seen["notifications"] = await outcome(directory.notifications())
    seen["data with a notification"] = await outcome(directory.data())
    seen["notificationSent"] = await outcome(directory.notification_sent(ref))
    seen["notifications after"] = await outcome(directory.notifications())
    seen["notificationSent unknown"] = await outcome(
        directory.notification_sent(AgentRequestObjectRef("request-404"))
    )

    correction = await request.correct(
        errors=["Version number is wrong"], max_corrections=2, created_at=WHEN
    )
    seen["correct"] = {"result": correction}
    assert correction is not None
    follow_up = AgentRequestProxy(peer, target=correction)
    seen["followUp admission"] = await outcome(follow_up.admission())
    seen["followUp retryOf"] = await outcome(follow_up.retry_of())
    seen["followUp root"] = await outcome(follow_up.root())
    seen["followUp reserveChild"] = await outcome(follow_up.reserve_child())
    seen["followUp cancel"] = await outcome(follow_up.cancel())
    seen["followUp progress"] = await outcome(follow_up.progress())
    seen["followUp cancel again"] = await outcome(follow_up.cancel())

    seen["reconcileRepair"] = await outcome(
        directory.reconcile_repair(
            key="k",
            text="",
            configuration="",
            created_at=WHEN,
            confirmed_at=WHEN,
            publication="",
            attempt="",
            generation=0,
            started_at=WHEN,
        )
    )
    seen["unknown target"] = await outcome(AgentRequestProxy(peer, target="request-404").progress())
    return seen


async def edges(peer: Any) -> dict[str, object]:
    """The rules' other branches, through the raw peer (answers as JSON): refusals, links,
    recovery, limits, corrections of corrections, text beyond ASCII in the configuration
    (Python's `json.dumps` escapes it, and the digest is of that text)."""
    seen: dict[str, object] = {}
    step = 0

    async def record(method: str, params: object = None, target: str | None = None) -> Any:
        nonlocal step
        step += 1
        answer = await outcome(peer.request(method, params, Any, target=target), lambda x: x)
        seen[f"{step:02} {method}{'' if target is None else ' @' + target}"] = answer
        return answer.get("result") if isinstance(answer, dict) else None

    def submission(text: str, **extra: object) -> dict[str, object]:
        return {
            "text": text,
            "sourceKind": "agent",
            "sourceLabel": "edges",
            "createdAt": WHEN,
            "contexts": ["context:b", "context:a", "context:b"],
            "causalDepth": 2,
            **extra,
        }

    d = "agent:directory:"
    r = "agent:request:"
    await record(d + "create-thread:call", {"agent": "agent-9", "title": "", "kind": "", "createdAt": WHEN, "contexts": []})  # fmt: skip
    await record(d + "initialize:call", {"instructions": "héllo ☃ \u2028 😀", "settings": "{}"})
    await record(d + "initialize:call", {"instructions": "again", "settings": "s2"})
    default = await record(d + "default-agent:resolve")
    other = await record(d + "create-agent:call", {"name": "o", "description": "", "instructions": "ünï \u2028 😀 \x7f", "settings": "x"})  # fmt: skip
    other_thread = await record(d + "create-thread:call", {"agent": other, "title": "t", "kind": "k", "createdAt": WHEN, "contexts": []})  # fmt: skip
    for agent, thread, extra in [
        ("agent-9", None, {}),
        (default, "thread-404", {}),
        (default, other_thread, {}),
        (default, None, {"related": "request-404"}),
        (default, None, {"retryOf": "request-404"}),
        (default, None, {"root": "request-404"}),
    ]:
        params = {"agent": agent, "submission": submission("refused", **extra)}
        await record(d + "admit:call", {**params, "optionalWork": False} | ({"thread": thread} if thread else {}))  # fmt: skip
    first = await record(d + "admit:call", {"agent": other, "submission": submission("Line one\nline two", data="d", profile="p☃", response="json", publication="pub"), "optionalWork": True})  # fmt: skip
    ref = first["request"]
    linked = await record(d + "admit:call", {"agent": default, "submission": submission("linked", related=ref, retryOf=ref, root=ref), "optionalWork": False})  # fmt: skip
    second = linked["request"]
    await record(d + "data:get")
    await record(d + "threads:resolve")
    for target in (ref, second):
        for member in ("admission:get", "state:get", "contexts:resolve", "related:resolve", "retry-of:resolve", "root:resolve", "thread:resolve"):  # fmt: skip
            await record(r + member, target=target)
    for _ in range(4):
        await record(r + "reserve-child:call", target=ref)
    await record(r + "spawned:get", target=ref)
    await record(r + "publish-completion:call", target=ref)
    await record(r + "correct:call", {"errors": ["e"], "maxCorrections": 5, "createdAt": WHEN}, target=ref)  # fmt: skip
    claim = {"attempt": "it's", "expectedGeneration": 0, "startedAt": WHEN, "recover": False}
    await record(r + "claim:call", claim, target=ref)
    await record(r + "claim:call", {**claim, "attempt": "b", "expectedGeneration": 1}, target=ref)
    await record(r + "claim:call", {**claim, "attempt": "b", "expectedGeneration": 1, "recover": True}, target=ref)  # fmt: skip
    await record(r + "state:get", target=ref)
    await record(r + "steer:call", {"attempt": "it's", "generation": 2, "key": "k", "text": "", "createdAt": WHEN}, target=ref)  # fmt: skip
    await record(r + "ask:call", {"attempt": 'say "x"', "generation": 2, "key": "k", "title": "", "options": "", "createdAt": WHEN, "expiresAt": WHEN}, target=ref)  # fmt: skip
    await record(r + "steer:call", {"attempt": "b", "generation": 2, "key": "k", "text": "1", "profile": "p", "createdAt": WHEN}, target=ref)  # fmt: skip
    await record(r + "steer:call", {"attempt": "b", "generation": 2, "key": "k", "text": "2", "createdAt": "later"}, target=ref)  # fmt: skip
    await record(r + "items:resolve", target=ref)
    await record(r + "cancel:call", target=ref)
    await record(r + "state:get", target=ref)
    await record(r + "reserve-child:call", target=ref)
    await record(d + "settle:call", {"request": ref, "thread": first["thread"], "interactive": True, "notify": True})  # fmt: skip
    await record(d + "settle:call", {"request": "request-404", "thread": first["thread"], "interactive": True, "notify": True})  # fmt: skip
    await record(r + "finish:call", {"attempt": "b", "generation": 2, "status": "failed", "reason": "r", "endedAt": WHEN, "rawOutput": "raw"}, target=ref)  # fmt: skip
    await record(r + "finish:call", {"attempt": "b", "generation": 2, "status": "again", "reason": "r", "endedAt": WHEN}, target=ref)  # fmt: skip
    await record(r + "transition:call", {"attempt": "b", "generation": 2, "status": "s", "reason": "r"}, target=ref)  # fmt: skip
    await record(r + "claim:call", {**claim, "expectedGeneration": 2, "recover": True}, target=ref)
    await record(r + "cancel:call", target=ref)
    await record(r + "state:get", target=ref)
    await record(d + "settle:call", {"request": ref, "thread": first["thread"], "interactive": True, "notify": False})  # fmt: skip
    await record(d + "notifications:resolve")
    for errors, most in (([], 5), (["x"], 0)):
        await record(r + "correct:call", {"errors": errors, "maxCorrections": most, "createdAt": WHEN}, target=ref)  # fmt: skip
    fix = await record(r + "correct:call", {"errors": ["a", "b"], "maxCorrections": 5, "createdAt": "c1"}, target=ref)  # fmt: skip
    await record(r + "correct:call", {"errors": ["a"], "maxCorrections": 5, "createdAt": WHEN}, target=fix)  # fmt: skip
    await record(r + "claim:call", {**claim, "attempt": "f"}, target=fix)
    await record(r + "finish:call", {"attempt": "f", "generation": 1, "status": "done", "reason": "", "endedAt": WHEN}, target=fix)  # fmt: skip
    fix2 = await record(r + "correct:call", {"errors": ["c"], "maxCorrections": 5, "createdAt": "c2"}, target=fix)  # fmt: skip
    for member in ("admission:get", "state:get", "retry-of:resolve", "root:resolve", "contexts:resolve"):  # fmt: skip
        await record(r + member, target=fix2)
    await record(r + "correct:call", {"errors": ["d"], "maxCorrections": 1, "createdAt": WHEN}, target=fix)  # fmt: skip
    await record(r + "publish-completion:call", target=fix)
    await record(d + "data:get")
    await record(d + "pending:resolve")
    await record(d + "agents:resolve")
    return {
        key: (
            {"result": sorted(value["result"])}
            if isinstance(value, dict) and isinstance(value.get("result"), list)
            else value
        )
        for key, value in seen.items()
    }
