"""The Clerk's atomic claims of one expert's answer (the Clerk of ``factcheck``, reused)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.pyramid import PyramidContext
from factcourt.nodes.agents.clerk import split_claims
from factcourt.nodes.helpers import emit
from factcourt.state.pyramid import ExpertClaims, ExpertTask
from factcourt.state.records import ClerkSplit


async def expert_claims(state: ExpertTask, runtime: Runtime[PyramidContext]) -> dict[str, Any]:
    """Split the expert's answer; an answer the Clerk failed on entirely marks the expert failed."""
    ctx = runtime.context
    claims, dropped, usage = await split_claims(
        ctx, state["answer"], state["question"], state["language"], max_claims=ctx.max_claims
    )
    failures = [d.error for d in dropped if d.reason == "clerk_failed"]
    error = f"the Clerk failed on its answer: {failures[0]}" if failures and not claims else None
    emit("expert_claims", expert=state["expert"], count=len(claims))
    split = ClerkSplit(response=state["answer"], claims=claims, dropped=dropped)
    found = ExpertClaims(expert=state["expert"], split=split, error=error)
    return {"expert_claims": [found], "usage": usage}
