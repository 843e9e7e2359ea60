"""The Inquirer: seed test cases for a scenario (Fig 10)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.audit import AuditContext
from factcourt.nodes.audit.common import OBJECTS, consult, current_object, new_record, records_of, taxonomy_of
from factcourt.nodes.helpers import emit
from factcourt.prompts import conversation
from factcourt.prompts.audit import EN
from factcourt.state.audit import AuditCases, AuditState


async def inquirer(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    """Take the next scenario of the queue and write its seed cases.

    Seeds that do not parse after the retries are one dropped entry of the memory pool, so the
    report counts them and the Prober fills the scenario's budget of graded cases.
    """
    ctx = runtime.context
    obj, (scenario, *queue) = current_object(state), state["queue"]
    emit("audit_scenario", object=obj, scenario=scenario)
    answer = await consult(
        ctx,
        "inquirer",
        AuditCases,
        conversation(
            EN.INQUIRER,
            object=OBJECTS[obj],
            taxonomy=", ".join(s.name for s in taxonomy_of(state, obj)),
            scenario=scenario,
            count=ctx.audit_seeds,
        ),
        run_name=f"inquirer: {scenario}",
    )
    update = {"scenario": scenario, "queue": queue, "usage": answer.usage, "pending": []}
    first = len(records_of(state, obj, scenario)) + 1
    cases = answer.value.cases[: ctx.audit_seeds] if answer.value else []
    if not cases:
        error = answer.error or "the Inquirer wrote no case"
        dropped = new_record(obj, scenario, first, "seed", status="dropped", error=f"seed cases: {error}")
        return {**update, "memory": [dropped]}
    return {
        **update,
        "pending": [new_record(obj, scenario, first + i, "seed", case=c) for i, c in enumerate(cases)],
    }
