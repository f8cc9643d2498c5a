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
