"""The claim court's first pass: the verdict read from the label's first token, before any reasoning.

``read_label`` takes one reading (``plain`` is the first alone, so the default's gain over
``plain`` is what calibration and the extra readings add); ``decide_by_labels`` takes readings
until the calibrated confidence reaches ``vote_below``. The calibration is the one fitted for this
run's label reader under this very label prompt (``calibration_of``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from scipy.special import expit

from factcourt.context.claims import LABEL_READINGS, ClaimsContext
from factcourt.metrics.calibration import logit
from factcourt.nodes.agents.verifier import FIRST_PASS
from factcourt.nodes.helpers import EVIDENCE_SHOWN, fence, format_evidence
from factcourt.prompts import conversation
from factcourt.prompts.agents import table
from factcourt.providers.calibration import Calibration, evidence_kind, leaning, model_key, prompt_key, stored
from factcourt.providers.logprobs import label_distribution
from factcourt.providers.models import Answer, ask
from factcourt.state.records import Evidence, Label, ThreeLabel, Turn, Usage, Verdict

LABELS: tuple[Verdict, ...] = ("supported", "refuted")
SILENT: Verdict = "not_enough_evidence"
# Probabilities are kept to 3 decimals: the server's arithmetic differs in the last digits with
# what its prompt cache held, and a verdict must not (the cold/warm test holds it to that).
DIGITS = 3


def label_prompt_key(label_set: str = "two") -> str:
    """A digest of the English label prompt of ``label_set``: a fit holds only for its words."""
    pair = table("en").LABEL3 if label_set == "three" else table("en").LABEL
    return prompt_key(pair.system + pair.user)


def calibration_of(ctx: ClaimsContext) -> Calibration | None:
    """The calibration of this run's label reader, or None (off, or none fitted for it)."""
    if ctx.calibration == "off":
        return None
    return stored(model_key(ctx, "evaluator"), label_prompt_key(ctx.label_set), ctx.label_set)


def reachable_confidence(ctx: ClaimsContext, kind: str | None) -> float | None:
    """The highest calibrated confidence a reading over ``kind`` of evidence can give (None: raw)."""
    calibration = calibration_of(ctx)
    if calibration is None:
        return None
    return max(calibration.apply(0.999, kind), 1.0 - calibration.apply(0.001, kind))


@dataclass
class Reading:
    """One label-only reading: the label, P(supported) when the endpoint gives logprobs, or why none.

    ``p_true`` is P(supported) against P(refuted); ``p_silent``, under ``label_set='three'``, the
    probability that the evidence does not address the claim (None under 'two').
    """

    verdict: Verdict | None
    p_true: float | None
    error: str | None
    usage: Usage
    p_silent: float | None = None


async def read_label(
    ctx: ClaimsContext,
    claim: str,
    evidence: list[Evidence],
    *,
    language: str,
    question: str = "",
    reading: int = 0,
    run_name: str,
    tags: list[str],
) -> Reading:
    """One label-only reading (``LABEL_READINGS[reading]``) of ``claim`` over ``evidence``."""
    order, labels = LABEL_READINGS[reading]
    shown = evidence[-EVIDENCE_SHOWN:]
    three = ctx.label_set == "three"
    words = table(language)
    answer: Answer[Label | ThreeLabel] = await ask(
        ctx,
        "evaluator",
        ThreeLabel if three else Label,
        conversation(
            words.LABEL3 if three else words.LABEL,
            evidence=format_evidence(shown if order == "given" else shown[::-1]),
            question=fence(question) or "(none)",
            claim=fence(claim),
            labels=(words.LABELS3 if three else words.LABELS)[labels],
        ),
        run_name=run_name,
        tags=tags,
        fresh=True,  # the same verdict and confidence whatever the server's cache held
    )
    if answer.value is None:
        return Reading(None, None, answer.error, answer.usage)
    logprobs = answer.logprobs if ctx.confidence_source == "logprobs" else None
    found = label_distribution(logprobs, "verdict", (*LABELS, SILENT) if three else LABELS)
    if not found:
        return Reading(answer.value.verdict, None, None, answer.usage)
    addressed = found["supported"] + found["refuted"]
    p_true = round(found["supported"] / addressed, DIGITS) if addressed > 0 else 0.5
    p_silent = round(found[SILENT], DIGITS) if three else None
    verdict = max(found, key=found.__getitem__)  # the likelier label, as the raw reading says
    return Reading(verdict, p_true, None, answer.usage, p_silent)


async def decide_by_labels(
    ctx: ClaimsContext,
    claim: str,
    evidence: list[Evidence],
    *,
    language: str,
    question: str = "",
    run_name: str,
    tags: list[str],
    own_page: bool = False,
) -> tuple[Turn, Usage]:
    """The first pass: label readings until the calibrated confidence reaches ``vote_below``.

    ``own_page``: searched evidence holds a page the claim names, whose reading has a slope of its
    own (the reading of the claim's own page is informative where other pages are noise).

    The readings' mean log-odds is calibrated (Platt scaling is linear in log-odds, so this is
    the mean of the calibrated log-odds), and the verdict is the likelier label. A reading
    without logprobs gives its label and no confidence, and is the only one taken.
    """
    # files: the server's event loop must not block
    calibration = await asyncio.to_thread(calibration_of, ctx)
    kind = evidence_kind(ctx.search)
    if kind == "searched" and own_page:
        kind = "own_page"
    usage, odds, silent = Usage(), [], []
    for index in range(ctx.label_readings):
        reading = await read_label(
            ctx,
            claim,
            evidence,
            language=language,
            question=question,
            reading=index,
            run_name=run_name,
            tags=tags,
        )
        usage += reading.usage
        if reading.verdict is None:
            return Turn(speaker=FIRST_PASS, round=0, failed=reading.error, calls=index + 1), usage
        if reading.p_true is None:
            return Turn(speaker=FIRST_PASS, round=0, verdict=reading.verdict), usage
        odds.append(logit(reading.p_true))
        if reading.p_silent is not None:
            silent.append(reading.p_silent)
        raw = round(float(expit(sum(odds) / len(odds))), DIGITS)
        p_true = round(calibration.apply(raw, kind), DIGITS) if calibration else raw
        if max(p_true, 1.0 - p_true) >= ctx.vote_below:
            break
    # the side of the boundary, not of a rounded 0.5: a flat slope shows 0.5 either way
    verdict: Verdict = "supported" if leaning(raw, calibration) else "refuted"
    confidence = max(p_true, round(1.0 - p_true, DIGITS))
    probabilities = {"supported": p_true, "refuted": round(1.0 - p_true, DIGITS)}
    raw_probabilities = {"supported": raw, "refuted": round(1.0 - raw, DIGITS)}
    if silent:  # P(supported) and P(refuted) are of the claims the evidence addresses
        p_silent = round(sum(silent) / len(silent), DIGITS)
        probabilities[SILENT] = raw_probabilities[SILENT] = p_silent
        if p_silent >= ctx.not_enough_above:  # never refuted by evidence that does not address it
            verdict, confidence = SILENT, p_silent
    turn = Turn(
        speaker=FIRST_PASS,
        round=0,
        verdict=verdict,
        confidence=confidence,
        probabilities=probabilities,
        raw_probabilities=raw_probabilities,
        readings=[round(float(expit(o)), DIGITS) for o in odds],
        calls=len(odds),
    )
    return turn, usage
