"""One verifier call: the best single-call judgement, shared by the first pass and ``single``.

Both must be the same call so that the default's gain over the ``single`` baseline is what the
debate adds, never a weaker baseline.
"""

from __future__ import annotations

from factcourt.context import Context
from factcourt.nodes._shared import fence, format_evidence, ground_citations, shown_evidence
from factcourt.prompts import conversation
from factcourt.providers.logprobs import label_distribution
from factcourt.providers.models import ask
from factcourt.state import VERDICTS, Evidence, Rating, Turn, Usage, Verdict

FIRST_PASS = "First pass"


def confidence_of(
    ctx: Context, verdict: Verdict | None, probabilities: dict[str, float] | None, reported: float | None
) -> float | None:
    """The verdict's probability from logprobs, else what the model reported (per the context)."""
    if verdict is not None and probabilities and ctx.confidence_source == "logprobs":
        return probabilities[verdict]
    return reported


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
    probabilities = label_distribution(answer.logprobs, "verdict", VERDICTS)
    text, cited, dropped = ground_citations(answer.value.explanation, shown_evidence(evidence))
    verdict = answer.value.verdict
    turn = Turn(
        speaker=FIRST_PASS,
        round=0,
        verdict=verdict,
        confidence=confidence_of(ctx, verdict, probabilities, None),
        probabilities=probabilities,
        text=text,
        citations=cited,
        dropped_citations=dropped,
    )
    return turn, answer.usage
