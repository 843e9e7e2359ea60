"""The claim court's first pass by the trained reader, and when it must say "not enough evidence".

The trained reader (``providers/reader``) reads the claim against each chunk of its evidence and
gives P(supported), P(refuted) and P(not addressed); the chunk that speaks most clearly decides.
``abstain_reason`` is the rule both readers answer to: a verdict is shown only where the evidence
addresses the claim and the calibrated confidence clears the bar chosen on the dev parts; anything
else is ``not_enough_evidence``, and the reason is the turn's text (the result's
``unchecked_reason``).
"""

from __future__ import annotations

import asyncio
import re

from factcourt.context.claims import ClaimsContext
from factcourt.metrics.calibration import platt
from factcourt.nodes.agents.verifier import FIRST_PASS
from factcourt.providers import reader
from factcourt.providers.calibration import evidence_kind
from factcourt.state.records import Evidence, Turn, Verdict

SILENT: Verdict = "not_enough_evidence"
DIGITS = 3
# a chunk "speaks" for a side at this probability: one for each side is a disagreement
SPEAKS = 0.5
_NAME = re.compile(r"\b(?:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*|\d[\d,.]*)")
_OPENERS = frozenset("The A An In On At It He She They This That His Her Its Their".split())


def missing_names(claim: str, evidence: list[Evidence]) -> list[str]:
    """The claim's names and numbers that no piece of evidence mentions (case-insensitive)."""
    seen = " ".join(f"{e.title} {e.text}" for e in evidence).lower()
    names = [m.group(0).rstrip(".,") for m in _NAME.finditer(claim)]
    names = [n for n in names if n not in _OPENERS]
    return [n for n in dict.fromkeys(names) if n.lower() not in seen]


def _listed(names: list[str]) -> str:
    shown = [f'"{n}"' for n in names[:3]]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def abstain_reason(
    ctx: ClaimsContext,
    claim: str,
    evidence: list[Evidence],
    *,
    p_true: float,
    p_silent: float | None,
    disagree: bool = False,
) -> str | None:
    """Why the evidence decides nothing about ``claim``, or None when a verdict may be shown.

    ``p_true`` is the calibrated P(supported) against P(refuted); ``p_silent`` the reader's
    P(not addressed) (None for a reading that has no third output). The confidence bar holds over
    searched evidence only: over evidence the user gave, the reading decides (the dev parts
    showed no gain from a bar there).
    """
    if not evidence:
        return "no evidence was found for it" if ctx.retrieval_enabled else "no evidence was given for it"
    missing = missing_names(claim, evidence)
    if p_silent is not None and p_silent >= ctx.not_enough_above:
        where = "the passages found" if evidence_kind(ctx.search) == "searched" else "the evidence"
        if missing:
            return f"{where} do not mention {_listed(missing)} (P(not addressed) {p_silent:.2f})"
        return f"{where} do not address it (P(not addressed) {p_silent:.2f})"
    if disagree:
        return "the passages found disagree: one supports it, another contradicts it"
    confidence = max(p_true, 1.0 - p_true)
    if evidence_kind(ctx.search) == "searched" and confidence < ctx.verdict_bar:
        gap = f"; they do not mention {_listed(missing)}" if missing else ""
        bar = f"below the bar of {ctx.verdict_bar:.2f}"
        return f"the reading was uncertain (P(true) {p_true:.2f}, {bar}){gap}"
    return None


def reads_trained(ctx: ClaimsContext) -> bool:
    """Whether the trained reader reads this run's first pass (``reader='auto'``: on the embedded model)."""
    if ctx.reader != "auto":
        return ctx.reader == "trained"
    from factcourt.providers.models import choose

    return choose(ctx, "evaluator").endpoint == "embedded"


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
    readings = await asyncio.to_thread(reader.read_chunks, claim, [e.text for e in evidence])
    best = reader.deciding(readings)
    if best is None:
        reason = abstain_reason(ctx, claim, evidence, p_true=0.5, p_silent=None)
        return Turn(speaker=FIRST_PASS, round=0, verdict=SILENT, text=reason or "", calls=0)
    raw = best.probabilities
    addressed = raw["supported"] + raw["refuted"]
    p_true_raw = raw["supported"] / addressed if addressed > 0 else 0.5
    kind = evidence_kind(ctx.search)
    p_true = round(calibrated(p_true_raw, kind, reader.slopes()), DIGITS)
    p_silent = round(raw["not_addressed"], DIGITS)
    disagree = any(r.probabilities["supported"] >= SPEAKS for r in readings) and any(
        r.probabilities["refuted"] >= SPEAKS for r in readings
    )
    reason = abstain_reason(ctx, claim, evidence, p_true=p_true, p_silent=p_silent, disagree=disagree)
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
