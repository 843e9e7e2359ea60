"""Score the response: claims in order, counts per verdict, precision, total usage."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.metrics.response import response_scores
from factcourt.state.claims import FactcheckState


async def score(state: FactcheckState, runtime: Runtime[ClaimsContext]) -> dict[str, Any]:
    """Compute the response scores from the claim results."""
    results = state.get("results", [])
    return {"scores": response_scores(r.verdict for r in results)}
