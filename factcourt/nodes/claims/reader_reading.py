"""The claim court's first pass by the trained reader (``reader='trained'``).

The trained reader (``providers/reader``) reads the claim against each chunk of its evidence and
gives P(supported), P(refuted) and P(not addressed); the chunk that speaks most clearly decides,
and ``abstain_reason`` says when that is no verdict.
"""

from __future__ import annotations

import asyncio

from factcourt.context.claims import ClaimsContext
from factcourt.metrics.calibration import platt
from factcourt.nodes.agents.verifier import FIRST_PASS
from factcourt.nodes.claims.abstain import abstain_reason, offline_wikipedia, own_page
from factcourt.providers import reader
from factcourt.providers.calibration import evidence_kind
from factcourt.state.records import Evidence, Turn, Verdict

SILENT: Verdict = "not_enough_evidence"
DIGITS = 3
# a chunk "speaks" for a side at this probability: one for each side is a disagreement
SPEAKS = 0.5


def reads_trained(ctx: ClaimsContext) -> bool:
    """Whether the trained reader reads this run's first pass.

    Always with ``reader='trained'``; with 'auto', over the offline Wikipedia search, where on the
    dev parts of FELM-WK and FacToolQA its supports off a claim's own page were right 8 times in
    10 and the 1.5B's readings were noise (calibration slope 0): the 1.5B could show no verdict.
    """
    return ctx.reader == "trained" or (ctx.reader == "auto" and offline_wikipedia(ctx))


def calibrated(p_true: float, kind: str | None, slopes: dict[str, float]) -> float:
    """P(true) with its log-odds scaled by the slope fitted on the dev parts for ``kind`` of evidence.

    A slope around 0 (``fit_slope``) keeps every verdict and says only how sure to be.
    """
    return platt(p_true, slopes.get(kind or "", 1.0), 0.0)


async def decide_by_reader(ctx: ClaimsContext, claim: str, evidence: list[Evidence]) -> Turn:
    """The trained reader's verdict on ``claim`` over every piece of ``evidence``.

    No model server and no call: the reading runs on this process's CPU, in a thread so that the
    server's event loop does not block.
    """
    texts, sources = [e.text for e in evidence], [e.title or e.url for e in evidence]
    readings = await asyncio.to_thread(reader.read_chunks, claim, texts, None, sources)
    best = reader.deciding(readings)
    if best is None:
        reason = abstain_reason(ctx, claim, evidence, p_true=0.5, p_silent=None)
        reason = reason or "the trained reader reads evidence, and none was searched (search 'none')"
        return Turn(speaker=FIRST_PASS, round=0, verdict=SILENT, text=reason, calls=0)
    raw = best.probabilities
    addressed = raw["supported"] + raw["refuted"]
    p_true_raw = raw["supported"] / addressed if addressed > 0 else 0.5
    kind = evidence_kind(ctx.search)
    if kind == "searched" and own_page(claim, evidence, best.pieces):
        kind = "own_page"  # the reading of the claim's own page earns its own confidence
    p_true = round(calibrated(p_true_raw, kind, reader.slopes()), DIGITS)
    p_silent = round(raw["not_addressed"], DIGITS)
    disagree = any(r.probabilities["supported"] >= SPEAKS for r in readings) and any(
        r.probabilities["refuted"] >= SPEAKS for r in readings
    )
    reason = abstain_reason(
        ctx, claim, evidence, p_true=p_true, p_silent=p_silent, disagree=disagree, trained=True
    )
    verdict: Verdict = SILENT if reason else "supported" if p_true >= 0.5 else "refuted"
    confidence = round(max(p_true, 1.0 - p_true), DIGITS)
    return Turn(
        speaker=FIRST_PASS,
        round=0,
        verdict=verdict,
        confidence=confidence,
        text=reason or "",
        citations=[i + 1 for i in best.pieces],
        probabilities={"supported": p_true, "refuted": round(1 - p_true, DIGITS), SILENT: p_silent},
        raw_probabilities={
            "supported": round(raw["supported"], DIGITS),
            "refuted": round(raw["refuted"], DIGITS),
            SILENT: p_silent,
        },
        readings=[round(r.probabilities["supported"], DIGITS) for r in readings],
        calls=0,
    )
