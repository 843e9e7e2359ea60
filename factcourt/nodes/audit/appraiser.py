"""The Appraiser: the taxonomy is comprehensive, or here is a new scenario (Fig 8)."""

from __future__ import annotations

import json
import random
from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.audit import AuditContext
from factcourt.metrics.audit import poor
from factcourt.nodes.audit.common import (
    EXAMPLE_CHARS,
    OBJECTS,
    case_question,
    consult,
    current_object,
    records_of,
    refused,
    taxonomy_of,
)
from factcourt.nodes.helpers import clip, emit, fence
from factcourt.prompts import conversation
from factcourt.prompts.audit import EN
from factcourt.state.audit import Appraisal, AppraiserTurn, AuditState, Scenario, case_of, grade_of


def graded_taxonomy(state: AuditState, obj: str) -> str:
    """``{object: {scenario: mean grade}}`` as the authors' code shows it (null: none graded)."""
    means = {}
    for scenario in taxonomy_of(state, obj):
        grades = [grade_of(r) for r in records_of(state, obj, scenario.name) if r.status == "graded"]
        means[scenario.name] = round(sum(grades) / len(grades), 2) if grades else None
    return json.dumps({OBJECTS[obj]: means}, ensure_ascii=False)


def bad_cases(state: AuditState, obj: str, per_scenario: int, rng: random.Random) -> str:
    """Up to ``per_scenario`` random bad cases (grade below epsilon) of each scenario."""
    blocks = []
    for scenario in taxonomy_of(state, obj):
        bad = [r for r in records_of(state, obj, scenario.name) if r.status == "graded" and poor(grade_of(r))]
        if not bad:
            continue
        samples = "\n".join(
            f"Prompt: {fence(case_question(case_of(r)))}\n"
            f"Response: {fence(clip(r.response, EXAMPLE_CHARS))}\n"
            f"Score: {r.grade:g}"
            for r in rng.sample(bad, min(per_scenario, len(bad)))
        )
        blocks.append(f"Task Name: {scenario.name}\nSamples:\n{samples}")
    return "\n\n".join(blocks) or "(none)"


def scenario_name(text: str) -> str:
    """A proposed name in the taxonomy's snake_case."""
    return "_".join(text.strip().lower().replace("-", " - ").split()).replace("_-_", "-")


async def appraiser(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    """Propose a scenario, or stop; a turn that does not parse counts as one not accepted."""
    ctx = runtime.context
    obj = current_object(state)
    rng = random.Random(f"{ctx.audit_seed}:{obj}:appraiser:{len(state.get('appraisals', []))}")
    answer = await consult(
        ctx,
        "appraiser",
        Appraisal,
        conversation(
            EN.APPRAISER,
            object=OBJECTS[obj],
            taxonomy=graded_taxonomy(state, obj),
            bad_cases=bad_cases(state, obj, ctx.audit_bad_cases, rng),
        ),
        run_name=f"appraiser: {obj}",
        # sampled at temperature 1: a rejected proposal must not come back from the cache
        sample=len(state.get("appraisals", [])) + 1,
    )
    update: dict[str, Any] = {"usage": answer.usage, "proposal": None}
    if answer.value is None:
        turn = AppraiserTurn(object=obj, outcome="failed", reason=answer.error or "")
        return {**update, "appraisals": [turn], **refused(state, ctx, obj)}
    if answer.value.stop:
        emit("audit_appraisal", object=obj, outcome="stop")
        turn = AppraiserTurn(object=obj, outcome="stop", explanation=answer.value.explanation)
        said = 1 + sum(a.object == obj and a.outcome == "stop" for a in state.get("appraisals", []))
        if said < ctx.audit_stops:  # asked again, with the next sample
            return {**update, "appraisals": [turn]}
        return {**update, "appraisals": [turn], "stops": {**state.get("stops", {}), obj: "appraiser_stop"}}
    proposal = Scenario(
        object=obj,
        name=scenario_name(answer.value.task_name),
        added=True,
        explanation=answer.value.explanation,
    )
    return {**update, "proposal": proposal}
