"""examples/acp_echo_agent.py plus the news scenario: `python tests/interop/idlc_news_agent.py`.

A prompt that is the one text block NEWS gets, if the client advertised `session.notices` and
`session.compaction`, a notice, a compaction_update, a compaction_summary_chunk and a second
compaction_update completing the compaction (the same updates as py_official_agent.py sends,
expectations.NEWS_UPDATES), sent through the session handle, and the turn ends with end_turn.
Every other prompt is the echo agent's.
"""

from __future__ import annotations

from examples.acp_echo_agent import EchoAgent
from idlc_acp import (
    CompactionStatus,
    ContentBlockText,
    NoticeSeverity,
    PromptRequest,
    PromptResponse,
    SessionUpdate,
    SessionUpdateCompactionSummaryChunk,
    SessionUpdateCompactionUpdate,
    SessionUpdateNotice,
    StopReason,
    current_session,
    run_agent,
)

NEWS = "NEWS"


def news_updates() -> list[SessionUpdate]:
    return [
        SessionUpdateNotice(
            severity=NoticeSeverity.WARNING,
            title="Context almost full",
            description="compacting soon",
        ),
        SessionUpdateCompactionUpdate(compaction_id="c-1", status=CompactionStatus.IN_PROGRESS),
        SessionUpdateCompactionSummaryChunk(
            compaction_id="c-1", content=ContentBlockText(text="summary, first part")
        ),
        SessionUpdateCompactionUpdate(
            compaction_id="c-1",
            status=CompactionStatus.COMPLETED,
            summary=[ContentBlockText(text="the whole summary")],
            meta={"tokensBefore": 1000, "tokensAfter": 100},
        ),
    ]


class NewsAgent(EchoAgent):
    async def prompt(self, input: PromptRequest) -> PromptResponse:
        texts = [block.text for block in input.prompt if isinstance(block, ContentBlockText)]
        session = current_session()
        offered = session.capabilities.session
        if (
            texts != [NEWS]
            or offered is None
            or offered.notices is None
            or offered.compaction is None
        ):
            return await super().prompt(input)
        for update in news_updates():
            await session.update(update)
        return PromptResponse(stop_reason=StopReason.END_TURN)


def main() -> None:
    run_agent(NewsAgent())


if __name__ == "__main__":
    main()
