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
    CorrectionFailure,
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
    refuted = [r for r in state.get("results", []) if r.verdict == "refuted" and r.claim.span]
    by_span = _by_region(refuted)
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
    usage, edits, failed = Usage(), [], []
    for span, answer in zip(spans, answers, strict=True):
        usage += answer.usage
        results = by_span[span]
        if answer.value is None:  # the sentence stays as it was, and the result says why
            failed.append(
                CorrectionFailure(claim_id=",".join(r.claim.id for r in results), error=answer.error)
            )
            continue
        edits.append(
            Edit(
                original=response[span[0] : span[1]],
                replacement=answer.value.replacement.strip(),
                span=span,
                claim_id=",".join(r.claim.id for r in results),
                evidence=sorted({e.url for r in results for e in r.evidence if e.url}),
            )
        )
    correction = Correction(text=apply_edits(response, edits), edits=edits, failed=failed)
    return {"correction": correction, "usage": usage}


def _by_region(refuted: list[ClaimResult]) -> dict[tuple[int, int], list[ClaimResult]]:
    """Refuted claims grouped by the text they stand in, overlapping spans merged into one.

    Two claims of one sentence may be quoted with and without its last stop: two rewrites of
    overlapping spans would cut the text after them.
    """
    regions: list[tuple[list[int], list[ClaimResult]]] = []
    for result in sorted(refuted, key=lambda r: tuple(r.claim.span)):
        start, end = result.claim.span
        if regions and start < regions[-1][0][1]:
            regions[-1][0][1] = max(regions[-1][0][1], end)
            regions[-1][1].append(result)
        else:
            regions.append(([start, end], [result]))
    return {(span[0], span[1]): results for span, results in regions}
