"""One verifier's judgement (``single``): it reasons first, then gives a verdict with its explanation.

Several systems ask it (the claim court's ``single`` method, the long-form QA builder's fact
check); the claim court's label reading (its first pass and ``plain``) is its own:
``factcourt.nodes.claims.label_reading``.
"""

from __future__ import annotations

from factcourt.context.base import BaseContext
from factcourt.nodes.helpers import (
    fence,
    format_evidence,
    ground_citations,
    read_confidence,
    shown_evidence,
)
from factcourt.prompts import conversation
from factcourt.prompts.agents import table
from factcourt.providers.models import ask
from factcourt.state.records import Evidence, Rating, Turn, Usage

FIRST_PASS = "First pass"


async def verify_once(
    ctx: BaseContext,
    claim: str,
    evidence: list[Evidence],
    *,
    language: str,
    question: str = "",
    run_name: str,
    tags: list[str],
) -> tuple[Turn, Usage]:
    """Ask one verifier for a verdict on ``claim`` over ``evidence``."""
    answer = await ask(
        ctx,
        "evaluator",
        Rating,
        conversation(
            table(language).SINGLE,
            question=fence(question) or "(none)",
            claim=fence(claim),
            evidence=format_evidence(evidence),
        ),
        run_name=run_name,
        tags=tags,
    )
    if answer.value is None:
        return Turn(speaker=FIRST_PASS, round=0, failed=answer.error), answer.usage
    verdict = answer.value.verdict
    probabilities, confidence = read_confidence(ctx, answer.logprobs, verdict, None)
    text, cited, dropped = ground_citations(answer.value.explanation, shown_evidence(evidence))
    turn = Turn(
        speaker=FIRST_PASS,
        round=0,
        verdict=verdict,
        confidence=confidence,
        probabilities=probabilities,
        text=text,
        citations=cited,
        dropped_citations=dropped,
    )
    return turn, answer.usage
