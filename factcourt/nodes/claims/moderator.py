"""The moderator (DebateCV): summarise the round, check convergence, give the verdict."""

from __future__ import annotations

from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.nodes.claims.rules import moderator_may_stop
from factcourt.nodes.helpers import (
    emit,
    fence,
    format_evidence,
    format_pool,
    format_summaries,
    ground_citations,
    shown_evidence,
)
from factcourt.prompts import conversation, prompt
from factcourt.providers.models import ask
from factcourt.state import ClaimState, ModeratorAnswer, RoundSummary


async def moderator(state: ClaimState, runtime: Runtime[ClaimsContext]) -> dict:
    """End a round; a moderator answer that never parses fails the claim (no made-up verdict)."""
    ctx, claim = runtime.context, state["claim"]
    finished = state["round"] - 1
    language = state["language"]
    last = finished >= ctx.max_rounds
    answer = await ask(
        ctx,
        "moderator",
        ModeratorAnswer,
        conversation(
            language,
            "MODERATOR",
            claim=fence(claim.text),
            evidence=format_evidence(state.get("evidence", [])),
            pool=format_pool(state.get("turns", [])),
            summaries=format_summaries(state.get("summaries", [])),
            round=finished,
            max_rounds=ctx.max_rounds,
            last_round_note=prompt(language, "LAST_ROUND_NOTE") if last else "",
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
