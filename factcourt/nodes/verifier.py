"""One verifier call: the best single-call judgement, shared by the first pass and ``single``.

Both must be the same call so that the default's gain over the ``single`` baseline is what the
debate adds, never a weaker baseline.
"""

from __future__ import annotations

from factcourt.context import Context
from factcourt.nodes._shared import fence, format_evidence, ground_citations, read_confidence, shown_evidence
from factcourt.prompts import conversation
from factcourt.providers.models import ask
from factcourt.state import Evidence, Rating, Turn, Usage

FIRST_PASS = "First pass"


async def verify_once(
    ctx: Context,
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
            language,
            "SINGLE",
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
