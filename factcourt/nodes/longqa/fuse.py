"""Fuse 1-3 candidate sub-question groups with the original into one long-form question."""

from __future__ import annotations

from langgraph.runtime import Runtime

from factcourt.context import Context
from factcourt.nodes._shared import emit, fence
from factcourt.prompts import conversation
from factcourt.providers.models import ask
from factcourt.state import FusedQuestion, LongQAState, LongQuestion

MOST_CANDIDATES = 3


def chosen(selected: list[int], candidates: int) -> list[int]:
    """The valid candidate numbers, each once, at most three; the first when none is valid."""
    valid = list(dict.fromkeys(n for n in selected if 1 <= n <= candidates))
    return valid[:MOST_CANDIDATES] or [1]


async def fuse(state: LongQAState, runtime: Runtime[Context]) -> dict:
    """Ask the model to choose candidates and write the long-form question."""
    ctx, seed = runtime.context, state["seed"]
    candidates = [[state["sub_questions"][i] for i in group] for group in state["clusters"]]
    answer = await ask(
        ctx,
        "gatherer",
        FusedQuestion,
        conversation(
            state["language"],
            "LONGQA_FUSE",
            question=fence(seed.question),
            candidates="\n".join(
                f"{n}. " + " / ".join(fence(q) for q in group) for n, group in enumerate(candidates, 1)
            ),
        ),
        run_name="longqa: fuse",
        tags=["system:longqa"],
    )
    if answer.value is None or not answer.value.question.strip():
        why = answer.error or "the new question is empty"
        return {"usage": answer.usage, "error": f"the long-form question could not be written: {why}"}
    built = LongQuestion(
        question=answer.value.question.strip(),
        topic=state["topic"],
        candidates=candidates,
        selected=chosen(answer.value.selected, len(candidates)),
        reason=answer.value.reason,
    )
    emit("built", seed_id=seed.id, length=len(built.question))
    return {"built": built, "usage": answer.usage}
