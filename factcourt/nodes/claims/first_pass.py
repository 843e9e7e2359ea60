"""The first pass: label readings decide the claims they are sure of; the rest are debated."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.nodes.agents.verifier import FIRST_PASS
from factcourt.nodes.claims.abstain import (
    abstain_reason,
    named_pages,
    offline_wikipedia,
    unaddressed_by_search,
)
from factcourt.nodes.claims.label_reading import SILENT, decide_by_labels, reachable_confidence
from factcourt.nodes.claims.reader_reading import decide_by_reader, reads_trained
from factcourt.nodes.claims.rules import first_pass_decides, first_pass_unweighed
from factcourt.nodes.helpers import emit, question_of
from factcourt.state.claims import ClaimState
from factcourt.state.records import Turn, Usage

log = logging.getLogger(__name__)


async def _out_of_reach(ctx: ClaimsContext) -> str | None:
    """Why a searched claim of its own page is not read: no reading could clear the bar, or None.

    The calibration of the reading of a claim's own page (``own_page``, fitted on the dev parts of
    FELM-WK and FacToolQA) bounds the confidence any reading can earn; below ``verdict_bar`` the
    call would decide nothing.
    """
    if not offline_wikipedia(ctx):
        return None
    best = await asyncio.to_thread(reachable_confidence, ctx, "own_page")  # reads a file
    if best is None or best >= ctx.verdict_bar:
        return None
    return f"its page was found, but such readings were noise on our dev sets (at most {best:.2f})"


async def first_pass(state: ClaimState, runtime: Runtime[ClaimsContext]) -> dict[str, Any]:
    """Judge the claim once; it is decided when the verdict's confidence reaches ``first_pass_theta``."""
    ctx, claim = runtime.context, state["claim"]
    evidence = state.get("evidence", [])
    # an unresolved claim ("He was born ...") names its page in the sentence before it
    named = f"{claim.context} {claim.text}".strip()
    if reads_trained(ctx):
        turn, usage = await decide_by_reader(ctx, claim.text, evidence), Usage()
    elif unread := unaddressed_by_search(ctx, named, evidence) or await _out_of_reach(ctx):
        # no call spent on a reading that could not decide
        turn, usage = Turn(speaker=FIRST_PASS, round=0, verdict=SILENT, text=unread, calls=0), Usage()
    else:
        turn, usage = await decide_by_labels(
            ctx,
            claim.text,
            evidence,
            language=state["language"],
            question=question_of(state, state["language"]),
            run_name="first pass",
            tags=[f"protocol:{ctx.protocol}", f"rule:{ctx.rule}", f"claim:{claim.id}", "first_pass"],
            own_page=bool(named_pages(named, evidence)),
        )
        if turn.verdict in ("supported", "refuted") and turn.probabilities and first_pass_decides(ctx, turn):
            # a verdict the model's reading decides answers to the same bar as the trained reader's
            probabilities = turn.probabilities
            why = abstain_reason(
                ctx,
                claim.text,
                evidence,
                p_true=probabilities["supported"],
                p_silent=probabilities.get(SILENT),
            )
            if why:
                turn = turn.model_copy(update={"verdict": SILENT, "text": why})
    decided = first_pass_decides(ctx, turn)
    reason = first_pass_unweighed(ctx, turn)
    if reason:  # every claim of the run is debated: say so rather than look contested
        log.warning(
            "claim %s: %s; first_pass_theta=%s needs the verdict's logprobs: confidence_source=logprobs "
            "(now %s) on an endpoint that returns them",
            claim.id,
            reason,
            ctx.first_pass_theta,
            ctx.confidence_source,
        )
    emit(
        "first_pass",
        claim_id=claim.id,
        verdict=turn.verdict,
        confidence=turn.confidence,
        decided=decided,
        reason=reason,
    )
    # evidence fetched before the first pass belongs to the claim, not to the first juror's turn
    update = {"first_pass": turn, "decided": decided, "usage": usage, "retrieved_for_turn": False}
    if turn.failed and ctx.first_pass == "route":
        # the jury asks the same endpoint: a debate would only fail again, one turn at a time
        update["error"] = f"the first pass failed: {turn.failed}"
    return update
