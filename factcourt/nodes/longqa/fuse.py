"""Fuse 1-3 candidate sub-question groups with the original into one long-form question."""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.longqa import LongQAContext
from factcourt.nodes.helpers import emit, fence
from factcourt.nodes.longqa.sub_questions import restates
from factcourt.prompts import conversation
from factcourt.prompts.longqa import table
from factcourt.providers.models import ask
from factcourt.state.longqa import FusedQuestion, LongQAState, LongQuestion

MOST_CANDIDATES = 3
REPEATS = 3  # the same sentence this often: the model looped
NO_SELECTION = "the model named no valid candidate: the sub-questions fused in are not known"


def chosen(selected: list[int], candidates: int) -> list[int]:
    """The valid candidate numbers, each once, at most three; none when none is valid.

    Never a guess: the exported sub-questions must be ones the question was fused from.
    """
    return list(dict.fromkeys(n for n in selected if 1 <= n <= candidates))[:MOST_CANDIDATES]


def not_fused(question: str, seed: str) -> str | None:
    """Why a written question is no long-form question: empty, the seed again, or a loop.

    A small model may hand the seed back, or repeat one sentence until its length bound; either
    would count as built and inflate the length ratio.
    """
    sentences = [s.strip() for s in re.split(r"[。？！?!.\n]+", question) if s.strip()]
    if not sentences:
        return "the new question is empty"
    if restates(question, seed):
        return "the new question is the seed question again"
    if max(sentences.count(s) for s in sentences) >= REPEATS:
        return "the new question repeats one sentence over and over"
    return None


async def fuse(state: LongQAState, runtime: Runtime[LongQAContext]) -> dict[str, Any]:
    """Ask the model to choose candidates and write the long-form question."""
    ctx, seed = runtime.context, state["seed"]
    candidates = [[state["sub_questions"][i] for i in group] for group in state["clusters"]]
    answer = await ask(
        ctx,
        "gatherer",
        FusedQuestion,
        conversation(
            table(state["language"]).FUSE,
            question=fence(seed.question),
            candidates="\n".join(
                f"{n}. " + " / ".join(fence(q) for q in group) for n, group in enumerate(candidates, 1)
            ),
        ),
        run_name="longqa: fuse",
        tags=["system:longqa"],
    )
    if answer.value is None:
        why = f"the long-form question could not be written: {answer.error}"
        return {"usage": answer.usage, "error": why}
    unfit = not_fused(answer.value.question, seed.question)
    if unfit:
        return {"usage": answer.usage, "not_built": unfit}
    built = LongQuestion(
        question=answer.value.question.strip(),
        topic=state["topic"],
        candidates=candidates,
        selected=chosen(answer.value.selected, len(candidates)),
        reason=answer.value.reason,
    )
    emit("built", seed_id=seed.id, length=len(built.question))
    return {"built": built, "usage": answer.usage, "notes": [] if built.selected else [NO_SELECTION]}
