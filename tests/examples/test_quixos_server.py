"""The example server, run as a real process, driven through the generated proxies.

Every scenario runs twice (the `connect` fixture): over the stdio of a child started for the
test, and over a new connection to the module's TCP server.
"""

from __future__ import annotations

import asyncio

import pytest
from quixos_agent import (
    AgentContextSubjectRef,
    AgentDirectoryProxy,
    AgentObjectRef,
    AgentRequestObjectRef,
    AgentRequestProxy,
    AgentThreadObjectRef,
    DirectoryData,
    ItemData,
    ItemDataControl,
    RequestData,
    RequestState,
)
from quixos_harness import (
    CONFLICT,
    UNKNOWN_OBJECT,
    WHEN,
    Connect,
    admitted,
    claimed,
    run_async,
    submission,
    within,
)

from idlc_runtime import ErrorCode, RpcError, Unsupported, connect_tcp


@run_async
async def test_values(connect: Connect) -> None:
    async with connect() as peer:
        directory = AgentDirectoryProxy(peer)
        assert await within(directory.data()) == DirectoryData(
            sequence=0,
            pending=0,
            ordinary_pending=0,
            notification_pending=0,
            profiles="",
            availability="available",
        )
        _, _, ref = await admitted(directory, data="payload", profile="careful")
        request = AgentRequestProxy(peer, target=ref)
        data = await within(request.admission())
        assert isinstance(data, RequestData)
        assert (data.text, data.data, data.sequence, data.interactive) == (
            "Draft the notes",
            "payload",
            1,
            True,
        )
        assert '"profile": "careful"' in data.configuration
        assert len(data.configuration_digest) == 64
        state = await within(request.progress())
        assert state == RequestState(
            status="pending",
            attempt="",
            generation=0,
            reason="admitted",
            cancel_requested=False,
            retry_count=0,
            notification_pending=False,
        )
        assert await within(request.spawned()) == 0
        summary = await within(directory.data())
        assert (summary.sequence, summary.pending, summary.ordinary_pending) == (1, 1, 1)


@run_async
async def test_many_unique_relations(connect: Connect) -> None:
    async with connect() as peer:
        directory = AgentDirectoryProxy(peer)
        assert await within(directory.agents()) == frozenset()
        assert await within(directory.pending()) == frozenset()
        agent, thread, ref = await admitted(directory)
        other = await within(
            directory.create_agent(name="b", description="", instructions="", settings="")
        )
        assert await within(directory.agents()) == {agent, other}
        assert agent != other
        assert await within(directory.threads()) == {thread}
        assert await within(directory.pending()) == {ref}
        assert await within(directory.notifications()) == frozenset()
        request = AgentRequestProxy(peer, target=ref)
        assert await within(request.contexts()) == {
            AgentContextSubjectRef("context:a"),
            AgentContextSubjectRef("context:b"),
        }
        assert await within(request.items()) == frozenset()
        assert await within(request.questions()) == frozenset()
        generation = await claimed(request)
        steered = await within(
            request.steer(
                attempt="worker-a", generation=generation, key="k", text="t", created_at=WHEN
            )
        )
        asked = await within(
            request.ask(
                attempt="worker-a",
                generation=generation,
                key="q",
                title="Which?",
                options="[]",
                created_at=WHEN,
                expires_at=WHEN,
            )
        )
        assert await within(request.items()) == {steered}
        assert await within(request.questions()) == {asked}


@run_async
async def test_optional_one_relations(connect: Connect) -> None:
    async with connect() as peer:
        directory = AgentDirectoryProxy(peer)
        assert await within(directory.default_agent()) is None
        assert await within(directory.initial_thread()) is None
        await within(directory.initialize(instructions="Be brief.", settings="{}"))
        default = await within(directory.default_agent())
        initial = await within(directory.initial_thread())
        assert default is not None and initial is not None
        assert await within(directory.agents()) == {default}
        assert await within(directory.threads()) == {initial}
        # Initializing again updates the default agent rather than making another.
        await within(directory.initialize(instructions="Be thorough.", settings="{}"))
        assert await within(directory.default_agent()) == default
        assert len(await within(directory.agents())) == 1

        _, _, first = await admitted(directory)
        request = AgentRequestProxy(peer, target=first)
        assert await within(request.related()) is None
        assert await within(request.retry_of()) is None
        assert await within(request.root()) is None
        _, _, second = await admitted(directory, related=first, retry_of=first, root=first)
        linked = AgentRequestProxy(peer, target=second)
        assert await within(linked.related()) == first
        assert await within(linked.retry_of()) == first
        assert await within(linked.root()) == first


@run_async
async def test_exactly_one_relations(connect: Connect) -> None:
    async with connect() as peer:
        directory = AgentDirectoryProxy(peer)
        _, thread, ref = await admitted(directory)
        request = AgentRequestProxy(peer, target=ref)
        assert await within(request.thread()) == thread
        assert await within(request.directory()) == "directory"
        # Admitting without a thread makes one, and the request lives on it.
        agent = await within(
            directory.create_agent(name="b", description="", instructions="", settings="")
        )
        admission = await within(
            directory.admit(agent=agent, submission=submission("New topic"), optional_work=False)
        )
        assert admission.accepted and admission.thread is not None
        assert admission.request is not None
        assert admission.thread != thread
        assert admission.thread in await within(directory.threads())
        assert await within(AgentRequestProxy(peer, target=admission.request).thread()) == (
            admission.thread
        )


@run_async
async def test_inputs_of_every_shape(connect: Connect) -> None:
    async with connect() as peer:
        directory = AgentDirectoryProxy(peer)
        # Inline records: create_agent, create_thread (with a list of interface refs) …
        agent, thread, ref = await admitted(directory)
        # … a named record as a field: admit's AgentSubmission.
        admission = await within(
            directory.admit(
                agent=agent, thread=thread, submission=submission("Again"), optional_work=False
            )
        )
        assert admission.accepted and admission.thread == thread
        request = AgentRequestProxy(peer, target=ref)
        generation = await claimed(request)
        # A named record nested in an inline one, with an optional inline record inside it.
        item = ItemData(
            key="outline",
            kind="note",
            text="1. 2.",
            phase="done",
            sequence=2**40,
            version=1,
            created_at=WHEN,
            updated_at=WHEN,
            control=ItemDataControl(
                attempt="worker-a", generation=generation, status="s", reason=""
            ),
        )
        stored = await within(
            request.upsert_item(attempt="worker-a", generation=generation, data=item)
        )
        assert stored in await within(request.items())
        # Unit inputs.
        assert await within(request.reserve_child()) is True
        assert await within(request.spawned()) == 1
        assert [await within(request.reserve_child()) for _ in range(3)] == [True, True, False]
        assert await within(request.spawned()) == 3
        assert await within(request.publish_completion()) is False  # not finished yet
        assert await within(
            request.finish(
                attempt="worker-a", generation=generation, status="done", reason="", ended_at=WHEN
            )
        )
        assert await within(request.publish_completion()) is True
        assert await within(request.publish_completion()) is False
        assert await within(request.cancel()) is False  # already finished
        # An atom-ref input (sent as {"input": ref}), after a settle that queued a notification.
        await within(directory.settle(request=ref, thread=thread, interactive=False, notify=True))
        assert await within(directory.notifications()) == {ref}
        assert (await within(directory.data())).notification_pending == 1
        assert await within(directory.notification_sent(ref)) is None
        assert await within(directory.notifications()) == frozenset()
        # Inline record in, optional atom-ref out.
        correction = await within(
            request.correct(errors=["wrong date"], max_corrections=1, created_at=WHEN)
        )
        assert correction is not None and correction != ref
        corrected = AgentRequestProxy(peer, target=correction)
        assert await within(corrected.retry_of()) == ref
        assert await within(corrected.root()) == ref
        assert "wrong date" in (await within(corrected.admission())).text
        assert (await within(corrected.progress())).retry_count == 1
        # Its retries have reached max_corrections: no further correction.
        await claimed(corrected)
        assert await within(
            corrected.finish(
                attempt="worker-a", generation=1, status="done", reason="", ended_at=WHEN
            )
        )
        assert (
            await within(corrected.correct(errors=["still"], max_corrections=1, created_at=WHEN))
            is None
        )
        # Unit operations on the directory's records.
        await within(directory.advertise(profiles="fast", availability="busy"))
        summary = await within(directory.data())
        assert (summary.profiles, summary.availability) == ("fast", "busy")


@run_async
async def test_claim_is_fenced_by_the_generation(connect: Connect) -> None:
    async with connect() as peer:
        _, _, ref = await admitted(AgentDirectoryProxy(peer))
        request = AgentRequestProxy(peer, target=ref)
        first = await within(
            request.claim(attempt="a", expected_generation=0, started_at=WHEN, recover=False)
        )
        assert (first.claimed, first.generation) == (True, 1)
        # Stale: generation 0 is gone.
        stale = await within(
            request.claim(attempt="b", expected_generation=0, started_at=WHEN, recover=True)
        )
        assert (stale.claimed, stale.generation) == (False, 1)
        # Current generation, but held by a running attempt and not a recovery.
        held = await within(
            request.claim(attempt="b", expected_generation=1, started_at=WHEN, recover=False)
        )
        assert (held.claimed, held.generation) == (False, 1)
        # A recovery takes it over and moves the generation on.
        taken = await within(
            request.claim(attempt="b", expected_generation=1, started_at=WHEN, recover=True)
        )
        assert (taken.claimed, taken.generation) == (True, 2)
        state = await within(request.progress())
        assert (state.status, state.attempt, state.generation, state.reason) == (
            "running",
            "b",
            2,
            "recovered",
        )
        assert state.started_at == WHEN


@run_async
async def test_only_the_current_attempt_and_generation_act(connect: Connect) -> None:
    async with connect() as peer:
        _, _, ref = await admitted(AgentDirectoryProxy(peer))
        request = AgentRequestProxy(peer, target=ref)
        # Nothing may act before a claim.
        assert not await within(request.transition(attempt="", generation=0, status="x", reason=""))
        generation = await claimed(request, "a")
        for attempt, wrong in (("b", generation), ("a", generation - 1), ("a", generation + 1)):
            assert not await within(
                request.transition(attempt=attempt, generation=wrong, status="x", reason="r")
            )
            assert not await within(
                request.finish(
                    attempt=attempt,
                    generation=wrong,
                    status="done",
                    reason="",
                    ended_at=WHEN,
                )
            )
            with pytest.raises(RpcError) as raised:
                await within(
                    request.steer(
                        attempt=attempt, generation=wrong, key="k", text="t", created_at=WHEN
                    )
                )
            assert raised.value.code == CONFLICT
            assert raised.value.data == {"attempt": "a", "generation": 1, "status": "running"}
        state = await within(request.progress())
        assert (state.status, state.reason, state.ended_at) == ("running", "claimed", None)

        assert await within(
            request.transition(attempt="a", generation=generation, status="writing", reason="w")
        )
        assert (await within(request.progress())).status == "writing"
        assert await within(
            request.finish(
                attempt="a",
                generation=generation,
                status="completed",
                result="the notes",
                raw_output="raw",
                usage='{"tokens": 3}',
                reason="done",
                ended_at=WHEN,
            )
        )
        state = await within(request.progress())
        assert (state.status, state.result, state.raw_output, state.usage) == (
            "completed",
            "the notes",
            "raw",
            '{"tokens": 3}',
        )
        assert (state.reason, state.ended_at) == ("done", WHEN)
        # Finished: the same attempt can act no more, and nobody can claim it again.
        assert not await within(
            request.finish(attempt="a", generation=generation, status="x", reason="", ended_at=WHEN)
        )
        assert not await within(
            request.transition(attempt="a", generation=generation, status="x", reason="")
        )
        again = await within(
            request.claim(attempt="c", expected_generation=1, started_at=WHEN, recover=True)
        )
        assert not again.claimed
        assert await within(AgentDirectoryProxy(peer).pending()) == frozenset()


@run_async
async def test_concurrent_claims_have_one_winner(connect: Connect) -> None:
    async with connect() as peer:
        _, _, ref = await admitted(AgentDirectoryProxy(peer))
        request = AgentRequestProxy(peer, target=ref)
        answers = await within(
            asyncio.gather(
                *(
                    request.claim(
                        attempt=f"w{i}", expected_generation=0, started_at=WHEN, recover=False
                    )
                    for i in range(20)
                )
            )
        )
        winners = [i for i, answer in enumerate(answers) if answer.claimed]
        assert len(winners) == 1
        assert {answer.generation for answer in answers} == {1}
        assert (await within(request.progress())).attempt == f"w{winners[0]}"


@run_async
async def test_cancel(connect: Connect) -> None:
    async with connect() as peer:
        directory = AgentDirectoryProxy(peer)
        agent, thread, waiting = await admitted(directory)
        admission = await within(
            directory.admit(
                agent=agent, thread=thread, submission=submission(), optional_work=False
            )
        )
        assert admission.request is not None
        running = admission.request
        generation = await claimed(AgentRequestProxy(peer, target=running))
        # Not claimed yet: cancelled at once.
        assert await within(AgentRequestProxy(peer, target=waiting).cancel()) is True
        state = await within(AgentRequestProxy(peer, target=waiting).progress())
        assert (state.cancel_requested, state.status) == (True, "cancelled")
        assert state.ended_at is not None
        # Running: the request is only asked to stop; its attempt finishes it.
        request = AgentRequestProxy(peer, target=running)
        assert await within(request.cancel()) is True
        state = await within(request.progress())
        assert (state.cancel_requested, state.status, state.ended_at) == (True, "running", None)
        assert await within(request.reserve_child()) is False
        assert await within(directory.pending()) == {running}
        assert await within(
            request.finish(
                attempt="worker-a",
                generation=generation,
                status="cancelled",
                reason="asked to",
                ended_at=WHEN,
            )
        )
        assert await within(directory.pending()) == frozenset()


@run_async
async def test_admission_refusals(connect: Connect) -> None:
    async with connect() as peer:
        directory = AgentDirectoryProxy(peer)
        agent, thread, ref = await admitted(directory)
        other = await within(
            directory.create_agent(name="b", description="", instructions="", settings="")
        )
        refusals = [
            (AgentObjectRef("agent-404"), None, submission(), False),
            (agent, AgentThreadObjectRef("thread-404"), submission(), False),
            (other, thread, submission(), False),
            (agent, thread, submission(related=AgentRequestObjectRef("request-404")), False),
        ]
        for who, where, what, optional in refusals:
            admission = await within(
                directory.admit(agent=who, thread=where, submission=what, optional_work=optional)
            )
            assert not admission.accepted
            assert admission.reason
            assert admission.thread is None and admission.request is None
        # Optional work: declined unless the directory is available.
        await within(directory.advertise(profiles="", availability="busy"))
        assert not (
            await within(directory.admit(agent=agent, submission=submission(), optional_work=True))
        ).accepted
        assert (
            await within(directory.admit(agent=agent, submission=submission(), optional_work=False))
        ).accepted
        await within(directory.advertise(profiles="", availability="available"))
        optional = await within(
            directory.admit(agent=agent, submission=submission(), optional_work=True)
        )
        assert optional.accepted
        summary = await within(directory.data())
        assert (summary.pending, summary.ordinary_pending) == (3, 2)
        assert await within(directory.threads()) >= {thread}


@run_async
async def test_application_errors(connect: Connect) -> None:
    async with connect() as peer:
        directory = AgentDirectoryProxy(peer)
        _, thread, ref = await admitted(directory)
        with pytest.raises(RpcError) as raised:
            await within(
                directory.create_thread(
                    agent=AgentObjectRef("agent-404"),
                    title="",
                    kind="",
                    created_at=WHEN,
                    contexts=[],
                )
            )
        assert (raised.value.code, raised.value.data) == (UNKNOWN_OBJECT, {"agent": "agent-404"})
        with pytest.raises(RpcError) as raised:
            await within(directory.notification_sent(AgentRequestObjectRef("request-404")))
        assert raised.value.code == UNKNOWN_OBJECT
        # Settling needs a finished request, on its own thread.
        with pytest.raises(RpcError) as raised:
            await within(
                directory.settle(request=ref, thread=thread, interactive=True, notify=True)
            )
        assert raised.value.code == CONFLICT
        with pytest.raises(RpcError) as raised:
            await within(
                directory.settle(
                    request=ref,
                    thread=AgentThreadObjectRef("thread-404"),
                    interactive=True,
                    notify=True,
                )
            )
        assert raised.value.code == CONFLICT
        # The connection goes on serving after every error.
        assert await within(directory.pending()) == {ref}


@run_async
async def test_unimplemented_member_answers_unsupported(connect: Connect) -> None:
    async with connect() as peer:
        with pytest.raises(Unsupported) as raised:
            await within(
                AgentDirectoryProxy(peer).reconcile_repair(
                    key="k",
                    text="t",
                    configuration="c",
                    created_at=WHEN,
                    confirmed_at=WHEN,
                    publication="p",
                    attempt="a",
                    generation=0,
                    started_at=WHEN,
                )
            )
        assert raised.value.code == -32601
        assert raised.value.method == "agent:directory:reconcile-repair:call"
        assert "agent:directory:reconcile-repair:call" in raised.value.message


@run_async
async def test_unknown_target(connect: Connect) -> None:
    async with connect() as peer:
        missing = AgentRequestProxy(peer, target="request-404")
        for call in (missing.progress, missing.cancel, missing.items):
            with pytest.raises(RpcError) as raised:
                await within(call())
            assert raised.value.code == -32900
            assert raised.value.data == {"target": "request-404"}
        # A directory member aimed at a request answers -32601: requests are not directories.
        _, _, ref = await admitted(AgentDirectoryProxy(peer))
        with pytest.raises(Unsupported):
            await within(AgentDirectoryProxy(peer, target=ref).data())


@run_async
async def test_tcp_connections_each_have_their_own_directory(
    tcp_address: tuple[str, int],
) -> None:
    host, port = tcp_address
    async with connect_tcp(host, port) as first, connect_tcp(host, port) as second:
        _, _, ref = await admitted(AgentDirectoryProxy(first))
        assert await within(AgentDirectoryProxy(second).pending()) == frozenset()
        with pytest.raises(RpcError) as raised:
            await within(AgentRequestProxy(second, target=ref).progress())
        assert raised.value.code == ErrorCode.UNKNOWN_TARGET
        assert (await within(AgentRequestProxy(first, target=ref).progress())).generation == 0
    # A connection made after others closed starts afresh too, on the same server.
    async with connect_tcp(host, port) as third:
        assert await within(AgentDirectoryProxy(third).agents()) == frozenset()
