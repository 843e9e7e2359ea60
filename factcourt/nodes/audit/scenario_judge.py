"""The scenario judge: does the Appraiser's new scenario belong in the taxonomy? (Fig 9)."""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.audit import AuditContext
from factcourt.nodes.audit.common import OBJECTS, consult, current_object, refused, taxonomy_of
from factcourt.nodes.helpers import emit, fence
from factcourt.prompts import conversation
from factcourt.prompts.audit import EN
from factcourt.state.audit import AppraiserTurn, AuditState

_DECISION = re.compile(r"\[\[\s*(yes|no)\s*\]\]", re.I)


def parse_decision(text: str) -> bool:
    """True for ``[[Yes]]``, False for ``[[No]]`` (the last one given).

    Raises:
        ValueError: neither is given.
    """
    found: list[str] = _DECISION.findall(text)
    if not found:
        raise ValueError("the answer must be [[Yes]], or [[No]] and the reason")
    return found[-1].lower() == "yes"


async def scenario_judge(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    """Accept the proposal (it joins the taxonomy and the queue) or reject it.

    A name already in the taxonomy is rejected without a call; a judge answer that does not
    parse counts as a rejection. After ``audit_rejections`` turns in a row without a new
    scenario, the object's taxonomy stops growing.
    """
    ctx, proposal = runtime.context, state["proposal"]
    assert proposal is not None  # after_appraiser routes here only with a proposal
    obj = current_object(state)
    taxonomy = taxonomy_of(state, obj)
    usage, accepted, reason = None, False, "the scenario is already in the taxonomy"
    if proposal.name not in {s.name for s in taxonomy}:
        answer = await consult(
            ctx,
            "scenario_judge",
            None,
            conversation(
                EN.SCENARIO_JUDGE,
                object=OBJECTS[obj],
                taxonomy=", ".join(s.name for s in taxonomy),
                new_scenario=proposal.name,
                explanation=fence(proposal.explanation),
            ),
            run_name=f"scenario judge: {proposal.name}",
            parse=parse_decision,
        )
        usage, accepted = answer.usage, bool(answer.value)
        reason = (
            (answer.text or "") if answer.value is not None else f"the judge did not answer: {answer.error}"
        )
    emit(
        "audit_appraisal", object=obj, outcome="accepted" if accepted else "rejected", scenario=proposal.name
    )
    turn = AppraiserTurn(
        object=obj,
        outcome="accepted" if accepted else "rejected",
        proposal=proposal.name,
        explanation=proposal.explanation,
        reason=reason,
    )
    update: dict[str, Any] = {"appraisals": [turn], **({"usage": usage} if usage else {})}
    if accepted:
        return {**update, "taxonomy": [*state["taxonomy"], proposal], "queue": [proposal.name], "refusals": 0}
    return {**update, **refused(state, ctx, obj)}
