"""The Prober: a harder case for the scenario, from its graded cases (Fig 15)."""

from __future__ import annotations

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
    new_record,
    records_of,
)
from factcourt.nodes.helpers import clip, fence
from factcourt.prompts import conversation
from factcourt.prompts.audit import EN
from factcourt.state.audit import AuditCase, AuditState, CaseRecord, case_of, grade_of

BAD_EXAMPLES = 2  # the authors' code: 2 random bad cases among the examples, when there are


def select_examples(graded: list[CaseRecord], k: int, rng: random.Random) -> list[CaseRecord]:
    """The authors' select(): the examples the Prober sees, by descending grade.

    Sorted by grade, cases whose claim opens with the same 3 words as a kept one are left out;
    with at least ``k`` cases of which 2 or more are bad, 2 random bad ones and random others,
    else the ``k`` lowest.
    """
    kept, openings = [], set()
    for record in sorted(graded, key=grade_of):
        opening = tuple(case_of(record).source_claim.lower().split()[:3])
        if opening not in openings:
            openings.add(opening)
            kept.append(record)
    bad = [r for r in kept if poor(grade_of(r))]
    if len(kept) >= k >= BAD_EXAMPLES and len(bad) >= BAD_EXAMPLES:
        chosen = rng.sample(bad, BAD_EXAMPLES)
        chosen += rng.sample([r for r in kept if r not in chosen], k - BAD_EXAMPLES)
    else:
        chosen = kept[:k]
    return sorted(chosen, key=grade_of, reverse=True)


def format_example(record: CaseRecord, prompts: str) -> str:
    """One example as the Prober reads it: Fig. 15 as printed shows no answer and no comment."""
    case = case_of(record)
    if prompts == "paper":
        return (
            f"Prompt: {fence(case_question(case))}\nKey Point: {fence(case.key_point)}\n"
            f"Score: {record.grade:g}"
        )
    return (
        f"Prompt: {fence(case_question(case))}\nTest Mode: [{case.test_mode}]\n"
        f"Key Point: {fence(case.key_point)}\nAnswer: {fence(clip(record.response, EXAMPLE_CHARS))}\n"
        f"Comment: {fence(clip(record.comment, EXAMPLE_CHARS))}\nScore: {record.grade:g}"
    )


async def prober(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    """Write one new case; one that does not parse is a dropped entry of the memory pool."""
    ctx = runtime.context
    obj, scenario = current_object(state), state["scenario"]
    records = records_of(state, obj, scenario)
    graded = [r for r in records if r.status == "graded"]
    rng = random.Random(f"{ctx.audit_seed}:{obj}:{scenario}:{len(records)}")
    examples = select_examples(graded, ctx.audit_prober_examples, rng)
    answer = await consult(
        ctx,
        "prober",
        AuditCase,
        conversation(
            EN.PROBER_PAPER if ctx.audit_prompts == "paper" else EN.PROBER,
            object=OBJECTS[obj],
            scenario=scenario,
            examples="\n\n".join(format_example(r, ctx.audit_prompts) for r in examples) or "(none yet)",
        ),
        run_name=f"prober: {scenario}",
        # sampled at temperature 1: a repeated prompt must not be served the cached case again
        sample=len(records) + 1,
    )
    number = len(records) + 1
    if answer.value is None:
        dropped = new_record(obj, scenario, number, "probe", status="dropped", error=f"probe: {answer.error}")
        return {"memory": [dropped], "usage": answer.usage}
    return {"pending": [new_record(obj, scenario, number, "probe", case=answer.value)], "usage": answer.usage}
