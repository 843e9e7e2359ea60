"""The corrector: rewrite the response minimally where claims were refuted."""

from __future__ import annotations

import asyncio

from langgraph.runtime import Runtime

from factcourt.context import Context
from factcourt.nodes._shared import fence, format_evidence
from factcourt.prompts import conversation
from factcourt.providers.models import ask
from factcourt.state import (
    ClaimResult,
    Correction,
    CorrectorAnswer,
    Edit,
    FactcheckState,
    Usage,
)


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Replace each edit's span, last first so earlier offsets stay valid; the rest is untouched."""
    for edit in sorted((e for e in edits if e.span), key=lambda e: e.span[0], reverse=True):
        start, end = edit.span
        replacement = edit.replacement
        if not replacement:  # a removed sentence takes one adjoining space with it
            end += 1 if text[end : end + 1] == " " else 0
        text = text[:start] + replacement + text[end:]
    return text


async def correct(state: FactcheckState, runtime: Runtime[Context]) -> dict:
    """One corrector call per sentence holding refuted claims."""
    ctx, response = runtime.context, state["response"]
    by_span: dict[tuple[int, int], list[ClaimResult]] = {}
    for result in state.get("results", []):
        if result.verdict == "refuted" and result.claim.span:
            by_span.setdefault(tuple(result.claim.span), []).append(result)
    if not by_span:
        return {"correction": Correction(text=response)}
    language = state.get("language", "en")

    async def fix(span: tuple[int, int], results: list[ClaimResult]):
        sentence = response[span[0] : span[1]]
        evidence = [e for r in results for e in r.evidence]
        return await ask(
            ctx,
            "corrector",
            CorrectorAnswer,
            conversation(
                language,
                "CORRECTOR",
                sentence=fence(sentence),
                claim=fence("; ".join(r.claim.text for r in results)),
                justification=fence(" ".join(r.justification for r in results)[:600]),
                evidence=format_evidence(evidence),
            ),
            run_name="corrector",
            tags=["corrector"],
        )

    spans = sorted(by_span)
    answers = await asyncio.gather(*(fix(s, by_span[s]) for s in spans))
    usage, edits = Usage(), []
    for span, answer in zip(spans, answers, strict=True):
        usage += answer.usage
        if answer.value is None:
            continue  # a failed rewrite leaves the sentence as it was
        results = by_span[span]
        edits.append(
            Edit(
                original=response[span[0] : span[1]],
                replacement=answer.value.replacement.strip(),
                span=span,
                claim_id=",".join(r.claim.id for r in results),
                evidence=sorted({e.url for r in results for e in r.evidence if e.url}),
            )
        )
    return {"correction": Correction(text=apply_edits(response, edits), edits=edits), "usage": usage}
