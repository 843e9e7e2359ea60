"""The moderator (DebateCV): summarise the round, check convergence, give the verdict."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.nodes.claims.rules import moderator_may_stop
from factcourt.nodes.helpers import (
    emit,
    fence,
    format_evidence,
    format_pool,
    ground_citations,
    shown_evidence,
)
from factcourt.prompts import prompt
from factcourt.providers.models import ask
from factcourt.state import ClaimState, Evidence, ModeratorAnswer, RoundSummary, Turn


def moderator_reply(summary: RoundSummary) -> str:
    """A round's answer as the moderator's own turn: ModeratorAnswer's fields, in the schema's order."""
    return json.dumps(
        {name: getattr(summary, name) for name in ModeratorAnswer.model_fields}, ensure_ascii=False
    )


def moderator_messages(
    language: str,
    claim: str,
    evidence: list[Evidence],
    turns: list[Turn],
    summaries: list[RoundSummary],
    max_rounds: int,
) -> list[BaseMessage]:
    """What the moderator is sent at the end of round ``len(summaries) + 1``.

    DebateCV's multi-turn dialogue: one user turn per round with that round's debate, the
    moderator's answers to the earlier rounds between them. Debate-SFT trains on exactly these
    messages, so a trained moderator sees at inference what it learned from. The first turn
    holds the knowledge base as it stands now: with given evidence that never changes, and the
    server's prompt cache serves every earlier round.
    """
    messages: list[BaseMessage] = [SystemMessage(prompt(language, "MODERATOR_SYSTEM"))]
    finished = len(summaries) + 1
    for round_ in range(1, finished + 1):
        fields = {
            "pool": format_pool([t for t in turns if t.round == round_]),
            "round": round_,
            "max_rounds": max_rounds,
            "last_round_note": prompt(language, "LAST_ROUND_NOTE") if round_ >= max_rounds else "",
        }
        if round_ == 1:
            text = prompt(language, "MODERATOR_USER").format(
                claim=fence(claim), evidence=format_evidence(evidence), **fields
            )
        else:
            text = prompt(language, "MODERATOR_ROUND").format(**fields)
        messages.append(HumanMessage(text))
        if round_ < finished:
            messages.append(AIMessage(moderator_reply(summaries[round_ - 1])))
    return messages


async def moderator(state: ClaimState, runtime: Runtime[ClaimsContext]) -> dict:
    """End a round; a moderator answer that never parses fails the claim (no made-up verdict)."""
    ctx, claim = runtime.context, state["claim"]
    finished = state["round"] - 1
    last = finished >= ctx.max_rounds
    answer = await ask(
        ctx,
        "moderator",
        ModeratorAnswer,
        moderator_messages(
            state["language"],
            claim.text,
            state.get("evidence", []),
            state.get("turns", []),
            state.get("summaries", []),
            ctx.max_rounds,
        ),
        run_name=f"moderator round {finished}",
        tags=[f"protocol:{ctx.protocol}", f"rule:{ctx.rule}", f"claim:{claim.id}"],
        metadata={"claim_id": claim.id, "round": finished},
    )
    if answer.value is None:
        return {"usage": answer.usage, "error": f"moderator failed: {answer.error}"}
    value = answer.value
    stop = last or (value.stop and moderator_may_stop(ctx, finished))
    # its justification becomes the claim's (and Debate-SFT's target): only evidence it was shown
    shown = shown_evidence(state.get("evidence", []))
    justification, _, _ = ground_citations(value.justification, shown)
    summary = RoundSummary(
        round=finished,
        summary=ground_citations(value.summary, shown)[0],
        new_insights=value.new_insights,
        gaps=value.gaps,
        stop=stop,
        verdict=value.verdict,
        justification=justification,
    )
    emit("round_summary", claim_id=claim.id, round=finished, stop=stop, verdict=value.verdict)
    return {"summaries": [summary], "stop": stop, "usage": answer.usage}
