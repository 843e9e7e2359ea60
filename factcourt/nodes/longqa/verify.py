"""Verify one gathered fact: the single-call verifier over the fragments it came from and a search.

MAD-Fact's RAG verifier drops low-confidence and contested knowledge with a confidence threshold:
here a fact is kept when it is supported with a confidence of at least ``longqa_theta``.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.longqa import LongQAContext
from factcourt.errors import BackendError
from factcourt.nodes.agents.gatherer import search_fragments
from factcourt.nodes.agents.verifier import verify_once
from factcourt.nodes.helpers import emit
from factcourt.providers.search import uncovered_language
from factcourt.state.longqa import FactOutcome, FactTask
from factcourt.state.records import Evidence, Turn, Usage

DROPPED_VERDICT: dict[str, FactOutcome] = {
    "refuted": "refuted",
    "conflicting_evidence": "contested",
    "not_enough_evidence": "unverified",
}


def fact_outcome(turn: Turn, theta: float) -> tuple[FactOutcome, str]:
    """Keep a supported fact at or above ``theta``; say why any other is dropped."""
    if turn.failed or turn.verdict is None:
        return "failed", f"the verifier gave no verdict: {turn.failed}"
    if turn.verdict != "supported":
        return DROPPED_VERDICT[turn.verdict], f"the verifier found it {turn.verdict.replace('_', ' ')}"
    if turn.confidence is None:
        return "kept", "supported; the endpoint gives no confidence, so longqa_theta was not applied"
    if turn.confidence < theta:
        return "low_confidence", f"supported with confidence {turn.confidence:.2f} < {theta:g}"
    return "kept", f"supported with confidence {turn.confidence:.2f}"


async def verify_fact(state: FactTask, runtime: Runtime[LongQAContext]) -> dict[str, Any]:
    """Judge one fact on its fragments and, where search can find it, on the fact searched."""
    ctx, triple = runtime.context, state["triple"]
    fact = triple.knowledge.text
    usage, found = Usage(), list[Evidence]()
    if ctx.retrieval_enabled and not uncovered_language(ctx, fact):
        try:
            found, usage = await search_fragments(ctx, [fact])
        except BackendError as exc:
            failed = triple.model_copy(update={"outcome": "failed", "reason": str(exc)})
            return {"triples": [failed]}
    known = {(e.url, e.text) for e in triple.sources}
    # the fragments it came from last: the verifier is shown the most recent pieces
    evidence = [e for e in found if (e.url, e.text) not in known] + triple.sources
    turn, spent = await verify_once(
        ctx,
        fact,
        evidence,
        language=state["language"],
        question=triple.question,
        run_name="longqa: verify fact",
        tags=["system:longqa", f"fact:{triple.id}"],
    )
    outcome, reason = fact_outcome(turn, ctx.longqa_theta)
    emit("fact_verified", fact_id=triple.id, outcome=outcome)
    verified = triple.model_copy(
        update={"verdict": turn.verdict, "confidence": turn.confidence, "outcome": outcome, "reason": reason}
    )
    return {"triples": [verified], "usage": usage + spent}
