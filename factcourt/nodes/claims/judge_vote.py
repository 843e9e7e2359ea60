"""The judge: the jury's majority or its Judge agent's ruling, or the moderator's verdict. No model call."""

from __future__ import annotations

from collections import Counter
from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.nodes.claims.protocols import PROTOCOLS
from factcourt.nodes.claims.rules import final_turns
from factcourt.nodes.helpers import emit
from factcourt.providers.search import uncovered_language
from factcourt.state.claims import ClaimResult, ClaimState
from factcourt.state.records import Turn, Verdict


def majority(final: dict[str, Turn]) -> Verdict | None:
    """Most frequent verdict; a tie goes to the last speaker among the tied (MAD-Fact)."""
    counts = Counter(t.verdict for t in final.values() if t.verdict)
    if not counts:
        return None
    top = max(counts.values())
    tied = {v for v, n in counts.items() if n == top}
    for turn in reversed(list(final.values())):
        if turn.verdict in tied:
            return turn.verdict
    return None


def _p_true(turns: list[Turn]) -> float | None:
    """Mean probability of 'supported' over the turns that carry a verdict distribution."""
    known = [t.probabilities["supported"] for t in turns if t.probabilities]
    return sum(known) / len(known) if known else None


def _justification(turns: list[Turn], agreeing: list[Turn], verdict: Verdict | None) -> str:
    """The last argument for ``verdict``: a refused change's text argues against it, so never that."""
    argued = [t for t in agreeing if t.rejected_change is None]
    if not argued:  # every final turn for it is a refused change: the speakers' earlier words
        argued = [t for t in turns if t.verdict == verdict and t.rejected_change is None and not t.failed]
    return argued[-1].text if argued else ""


async def judge_vote(state: ClaimState, runtime: Runtime[ClaimsContext]) -> dict[str, Any]:
    """Decide the claim and write its result."""
    ctx, claim = runtime.context, state["claim"]
    turns, summaries = state.get("turns", []), state.get("summaries", [])
    screen = state.get("first_pass")
    final = final_turns(turns)
    error = state.get("error")
    verdict, justification, confidence, p_true, p_true_raw = None, "", None, None, None
    round_one = {t.speaker: t for t in turns if t.round == 1 and t.failed is None}
    if not error:
        if state.get("decided") and screen is not None:
            verdict, justification, confidence = screen.verdict, screen.text, screen.confidence
            final, p_true = {screen.speaker: screen}, _p_true([screen])
            p_true_raw = (screen.raw_probabilities or {}).get("supported", p_true)
        elif PROTOCOLS[ctx.protocol].verdict == "moderator":
            verdict = summaries[-1].verdict if summaries else None
            justification = summaries[-1].justification if summaries else ""
        else:
            if ctx.first_pass_votes and screen is not None and screen.verdict:
                final = {screen.speaker: screen, **final}  # first, so a tie goes to a juror
            ruling = state.get("ruling")
            verdict = ruling.verdict if ruling and ruling.verdict else majority(final)
            agreeing = [t for t in final.values() if t.verdict == verdict]
            if agreeing:
                known = [t.confidence for t in agreeing if t.confidence is not None]
                confidence = sum(known) / len(known) if known else None
                justification = _justification(turns, agreeing, verdict)
            if ruling and ruling.verdict:
                justification = ruling.text
            p_true = p_true_raw = _p_true(list(final.values()))  # the jury's turns are not calibrated
        if verdict is None:
            error = "every turn failed: " + "; ".join(sorted({t.failed or "" for t in turns}))[:400]
    result = ClaimResult(
        claim=claim,
        verdict=verdict,
        justification=justification,
        confidence=confidence,
        p_true=p_true,
        p_true_raw=p_true_raw,
        route="first_pass" if state.get("decided") else "debate" if turns else None,
        first_pass=screen,
        first_round_verdict=majority(round_one) if PROTOCOLS[ctx.protocol].first_round_vote else None,
        ruling=state.get("ruling"),
        votes={s: t.verdict for s, t in final.items() if t.verdict},
        rounds=max([t.round for t in turns], default=0),
        turns=turns,
        summaries=summaries,
        evidence=state.get("evidence", []),
        queries=state.get("queries", []),
        usage=state["usage"],  # the reducer channel starts at Usage()
        error=error,
        unchecked_reason=screen.text or None
        if verdict == "not_enough_evidence" and state.get("decided") and screen is not None
        else None,
        uncovered_language=uncovered_language(ctx, claim.text) if ctx.retrieval_enabled else None,
    )
    emit("verdict", claim_id=claim.id, verdict=verdict, error=error, unchecked_reason=result.unchecked_reason)
    return {"results": [result]}
