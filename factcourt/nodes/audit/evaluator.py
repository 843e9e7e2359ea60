"""The Evaluator: a reference answer by vote and check, the target's answer, and its grade.

Per case (Figs 12-14): ``audit_reference_votes`` auditor answers to the question, the majority
verdict's first answer confirmed or revised by the reference check, the target's answer to the
same question, then the grader's comment ending in "Rating: [[s]]".
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from factcourt.context.audit import AuditContext
from factcourt.metrics.audit import verdict_label
from factcourt.nodes.audit.common import case_question, consult
from factcourt.nodes.helpers import emit, fence
from factcourt.prompts import conversation
from factcourt.prompts.audit import EN
from factcourt.state.audit import AuditState, CaseRecord
from factcourt.state.records import Usage

_BRACKETED = re.compile(r"\[\[\s*(\d+(?:\.\d+)?)\s*\]\]")
_RATING = re.compile(r"rating\s*:?\s*\[?\s*(\d+(?:\.\d+)?)", re.I)


def parse_rating(comment: str) -> float:
    """The grade a comment gives: its last ``[[s]]``, else its last "Rating: s"; 1 to 10.

    Raises:
        ValueError: no rating, or one outside 1-10 (never read as a grade it did not give).
    """
    found = _BRACKETED.findall(comment) or _RATING.findall(comment)
    if not found:
        raise ValueError('no rating in the comment: it must end with "Rating: [[s]]", s from 1 to 10')
    grade = float(found[-1])
    if not 1.0 <= grade <= 10.0:
        raise ValueError(f"the rating {grade:g} is outside 1-10")
    return grade


def majority(answers: list[str]) -> str:
    """The first answer of the most common verdict (a tie goes to the verdict answered first)."""
    labels = [verdict_label(a) for a in answers]
    counts = Counter(label for label in labels if label)
    if not counts:
        return answers[0]
    top = counts.most_common(1)[0][0]
    return answers[labels.index(top)]


async def evaluate_case(ctx: AuditContext, record: CaseRecord) -> CaseRecord:
    """Grade the target on one case; a case without reference or grade is dropped, with why."""
    assert record.case is not None
    question = case_question(record.case)
    asked = [HumanMessage(EN.QUESTION.format(question=question))]
    usage, answers, error = Usage(), [], None
    for vote in range(ctx.audit_reference_votes):
        answer = await consult(
            ctx, "reference", None, asked, run_name=f"reference vote {vote + 1}", sample=vote
        )
        usage += answer.usage
        if answer.value is None:
            error = answer.error
        else:
            answers.append(answer.value)
    if not answers:
        return record.model_copy(
            update={"status": "dropped", "error": f"no reference answer: {error}", "usage": usage}
        )
    reference = majority(answers)
    check = await consult(
        ctx,
        "reference_check",
        None,
        conversation(
            EN.REFERENCE_CHECK,
            reference=fence(reference),
            question=question,
            scenario=record.scenario,
        ),
        run_name="reference check",
    )
    usage += check.usage
    if check.value is not None and verdict_label(check.value):  # else the voted answer stands
        reference = check.value.strip().strip('"').strip()
    target = await consult(ctx, "target", None, asked, run_name="target")
    usage += target.usage
    filled = {"reference": reference, "reference_label": verdict_label(reference), "usage": usage}
    if target.value is None:
        return record.model_copy(update={**filled, "status": "target_failed", "error": target.error})
    response = target.value
    grade = await consult(
        ctx,
        "grader",
        None,
        conversation(
            EN.GRADER,
            question=question,
            key_point=record.case.key_point,
            reference=fence(reference),
            response=fence(response),
        ),
        run_name="grader",
        parse=parse_rating,
    )
    usage += grade.usage
    filled |= {"response": response, "response_label": verdict_label(response), "usage": usage}
    if grade.value is None:
        return record.model_copy(update={**filled, "status": "dropped", "error": f"grade: {grade.error}"})
    return record.model_copy(
        update={**filled, "status": "graded", "grade": grade.value, "comment": grade.text}
    )


async def evaluate(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    """Evaluate the first pending case and add it to the memory pool (one step per case)."""
    record, *rest = state["pending"]
    done = await evaluate_case(runtime.context, record)
    emit("audit_case", object=done.object, scenario=done.scenario, status=done.status, grade=done.grade)
    return {"pending": rest, "memory": [done], "usage": done.usage}
