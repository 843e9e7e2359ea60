"""Retrieve: a query not made before for this claim, its results added to the knowledge base."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.errors import BackendError
from factcourt.nodes.claims.rules import retrieve_before_turn
from factcourt.nodes.helpers import claim_query, emit, fence
from factcourt.prompts import conversation
from factcourt.prompts.claims import table
from factcourt.providers.models import ask
from factcourt.providers.search import search
from factcourt.state.claims import ClaimState
from factcourt.state.records import SearchQuery, Usage


def _norm(query: str) -> str:
    return " ".join(query.lower().split())


async def retrieve(state: ClaimState, runtime: Runtime[ClaimsContext]) -> dict[str, Any]:
    """Search with the unsure speaker's query, else the claim itself, else a fresh model query."""
    ctx, claim = runtime.context, state["claim"]
    made = {_norm(q) for q in state.get("queries", [])}
    usage = Usage()
    own = claim_query(claim.text, state.get("question", ""), claim.context)
    query = next(
        (q for q in (state.get("suggested_query", ""), own) if q.strip() and _norm(q) not in made),
        None,
    )
    if query is None:
        answer = await ask(
            ctx,
            "query",
            SearchQuery,
            conversation(
                table("en").QUERY,
                claim=fence(claim.text),
                queries="; ".join(state.get("queries", [])) or "none",
            ),
            run_name="query_writer",
            tags=[f"claim:{claim.id}"],
        )
        usage += answer.usage
        if answer.value and answer.value.query.strip() and _norm(answer.value.query) not in made:
            query = answer.value.query.strip()
    # the search is the next speaker's when it was unsure or the rule has it search first; the
    # claim's search before anyone speaks (evidence first) leaves the first speaker its when-unsure one
    for_turn = state.get("awaiting_evidence", False) or retrieve_before_turn(ctx, state)
    done = {"awaiting_evidence": False, "retrieved_for_turn": for_turn, "suggested_query": ""}
    if query is None:  # nothing new to ask: the speaker answers on what is there
        return {**done, "usage": usage}
    try:
        found, real_call = await asyncio.to_thread(search, ctx, query)
    except BackendError as exc:
        return {**done, "usage": usage, "error": str(exc)}
    known = {(e.url, e.text) for e in state.get("evidence", [])}
    new = [e for e in found if (e.url, e.text) not in known]
    emit("retrieved", claim_id=claim.id, query=query, found=len(new))
    return {
        **done,
        "evidence": new,
        "queries": [query],
        "usage": usage + (Usage.search_call() if real_call else Usage()),
    }
