"""Moving to the next object: its initial taxonomy, and why the last one stopped growing."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.audit import AuditContext
from factcourt.nodes.audit.common import INITIAL_TAXONOMY, OBJECTS, objects_problem
from factcourt.nodes.helpers import emit
from factcourt.state.audit import AuditState, Scenario


async def next_object(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    """Start the next object from its initial taxonomy (or end the audit after the last)."""
    ctx = runtime.context
    objects = state.get("objects") or list(OBJECTS)
    if problem := objects_problem(objects):
        return {"error": problem}
    index = state.get("object_index", -1) + 1
    update: dict[str, Any] = {"objects": objects, "object_index": index}
    if index > 0:  # the Appraiser's stop and the rejections record themselves; the cap does not
        update["stops"] = {objects[index - 1]: "scenario_cap", **state.get("stops", {})}
    if index == len(objects):
        return update
    obj = objects[index]
    initial = INITIAL_TAXONOMY[obj][: ctx.audit_initial_scenarios or None]
    emit("audit_object", object=obj, scenarios=len(initial))
    return {
        **update,
        "taxonomy": [*state.get("taxonomy", []), *(Scenario(object=obj, name=name) for name in initial)],
        "queue": list(initial),
        "refusals": 0,
    }
