"""Open one claim's case: validate it and seed the knowledge base with given evidence."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.inputs import long_question
from factcourt.nodes.agents.clerk import MAX_RESPONSE_CHARS, response_problem
from factcourt.nodes.agents.verifier import FIRST_PASS
from factcourt.nodes.claims.abstain import no_evidence_reason
from factcourt.nodes.claims.label_reading import SILENT
from factcourt.nodes.helpers import emit, language_for
from factcourt.providers.search import LANGUAGE_NOT_COVERED, uncovered_language
from factcourt.state.claims import ClaimState
from factcourt.state.records import Claim, Evidence, Turn

MAX_CLAIM_CHARS = 2000


def claim_problem(text: str) -> str | None:
    """Why a claim text cannot be checked, or None."""
    if not text.strip():
        return "the claim is empty"
    if len(text) > MAX_CLAIM_CHARS:
        return f"the claim has {len(text)} characters; the limit is {MAX_CLAIM_CHARS}"
    return None


def response_input_problem(payload: dict[str, Any]) -> str | None:
    """Why a served ``factcheck`` run's input (its schema checked) cannot be checked, or None.

    Claims given with it are text to check as well: together they are held to the response's limit.
    """
    given = sum(len(c.get("text", "")) + len(c.get("context", "")) for c in payload.get("claims") or [])
    if given > MAX_RESPONSE_CHARS:
        return (
            f"the claims given have {given:,} characters; the limit is {MAX_RESPONSE_CHARS:,}: "
            "split them and check the parts"
        )
    return response_problem(payload.get("response", "")) or long_question(payload.get("question", ""))


def claim_input_problem(payload: dict[str, Any]) -> str | None:
    """Why a served ``verify`` run's input (its schema checked) cannot be checked, or None."""
    claim = payload.get("claim")
    text = claim.get("text", "") if isinstance(claim, dict) else getattr(claim, "text", "")
    return claim_problem(text or "") or long_question(payload.get("question", ""))


async def unjudged_reason(ctx: ClaimsContext, claim: Claim, given: list[Evidence]) -> str | None:
    """Why a claim is not judged at all, before any call: nothing can be found to judge it over.

    Without evidence given and without a search, a model judges from what it knows, as with
    ``search='none'``, which asks for that; the offline corpus holds no text in some languages
    (its passages would only share the claim's names).
    """
    if given:
        return None
    if not ctx.retrieval_enabled:
        return no_evidence_reason(ctx)
    # loading the corpus reads files: in a thread, so the server's event loop stays free
    if language := await asyncio.to_thread(uncovered_language, ctx, claim.text):
        return f"{LANGUAGE_NOT_COVERED}: it holds no '{language}' text"
    return None


async def open_case(state: ClaimState, runtime: Runtime[ClaimsContext]) -> dict[str, Any]:
    """Start the debate at round 1 with the given evidence in the knowledge base.

    A claim with nothing to judge it over is decided here: not enough evidence, and why.
    """
    # the LangGraph server hands a JSON input over as dicts: the state's models are made here
    claim = Claim.model_validate(state["claim"])
    given = [Evidence.model_validate(e) for e in state.get("given_evidence") or []]
    emit("claim_started", claim_id=claim.id, claim=claim.text)
    update: dict[str, Any] = {
        "claim": claim,
        "given_evidence": given,
        "round": 1,
        "turn_in_round": 0,
        "awaiting_evidence": False,
        "retrieved_for_turn": False,
        "unsure_calls": 0,
        "decided": False,
        "stop": False,
        "language": state.get("language") or language_for(runtime.context.language, claim.text),
    }
    if problem := claim_problem(claim.text):
        update["error"] = problem
    elif why := await unjudged_reason(runtime.context, claim, given):
        update["decided"] = True
        update["first_pass"] = Turn(speaker=FIRST_PASS, round=0, verdict=SILENT, text=why, calls=0)
    update["evidence"] = [e.model_copy(update={"source": e.source or "given"}) for e in given]
    return update
