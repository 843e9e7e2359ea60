"""The factcheck graph's first stage: the Clerk splits the response into claims (``nodes.agents.clerk``)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.errors import InputError
from factcourt.nodes.agents.clerk import response_problem, split_claims
from factcourt.nodes.helpers import emit, language_for
from factcourt.state.claims import FactcheckState
from factcourt.state.records import Claim, DroppedSentence


async def decompose(state: FactcheckState, runtime: Runtime[ClaimsContext]) -> dict[str, Any]:
    """Ask the Clerk chunk by chunk; keep every claim's source span and every drop's reason.

    Claims given with the input (this response's split, made before) are taken as they are, up
    to ``max_claims`` as the Clerk's are: the rest are dropped as ``over_limit``.
    """
    ctx, response = runtime.context, state.get("response", "")
    if problem := response_problem(response):
        raise InputError(problem)
    language = language_for(ctx.language, response)
    if (given := state.get("claims")) is not None:
        claims = [Claim.model_validate(c) for c in given]  # a served run's input comes as dicts
        over = [DroppedSentence(sentence=c.text, reason="over_limit") for c in claims[ctx.max_claims :]]
        dropped = [*(DroppedSentence.model_validate(d) for d in state.get("dropped") or []), *over]
        emit("claims", count=len(claims) - len(over), dropped=len(dropped))
        # the channel's value is replaced, not added to: the claims past the limit leave it
        return {"claims": claims[: ctx.max_claims], "dropped": dropped, "language": language}
    claims, dropped, usage = await split_claims(
        ctx, response, state.get("question", ""), language, max_claims=ctx.max_claims
    )
    emit("claims", count=len(claims), dropped=len(dropped))
    return {"claims": claims, "dropped": dropped, "language": language, "usage": usage}
