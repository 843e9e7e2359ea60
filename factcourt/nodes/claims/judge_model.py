"""MAD-Fact's Judge agent (``jury_judge='model'``): a model reads the jury's last opinions and rules."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.nodes.claims.rules import final_turns
from factcourt.nodes.helpers import emit, fence, format_pool
from factcourt.prompts import conversation
from factcourt.prompts.claims import table
from factcourt.providers.models import ask
from factcourt.state.claims import ClaimState
from factcourt.state.records import Rating, Turn

JUDGE = "Judge"


async def judge_model(state: ClaimState, runtime: Runtime[ClaimsContext]) -> dict[str, Any]:
    """Ask the 'judge' role for the verdict over each juror's last turn (MAD-Fact Eq. 12).

    A failed ruling is kept with its reason; ``judge_vote`` then counts the votes instead.
    """
    ctx, claim = runtime.context, state["claim"]
    last = list(final_turns(state.get("turns", [])).values())
    answer = await ask(
        ctx,
        "judge",
        Rating,
        conversation(
            table(state["language"]).JURY_JUDGE, claim=fence(claim.text), opinions=format_pool(last)
        ),
        run_name="judge",
        tags=[f"protocol:{ctx.protocol}", f"claim:{claim.id}"],
        metadata={"claim_id": claim.id},
    )
    round_ = max((t.round for t in last), default=0)
    value = answer.value
    ruling = Turn(
        speaker=JUDGE,
        round=round_,
        verdict=value.verdict if value else None,
        text=value.explanation if value else "",
        failed=answer.error,
    )
    emit("judge_ruling", claim_id=claim.id, verdict=ruling.verdict, failed=ruling.failed)
    return {"ruling": ruling, "usage": answer.usage}
