"""A model's long-form answer to a question: the experts of a pyramid and the targets of a leaderboard."""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.pyramid import PyramidContext
from factcourt.nodes.helpers import emit, fence
from factcourt.prompts import conversation
from factcourt.prompts.pyramid import table
from factcourt.providers.models import ask, models
from factcourt.state.pyramid import ExpertTask, LongAnswer, ModelAnswer, PyramidState


async def answer_question(ctx: PyramidContext, model: str, question: str, language: str) -> ModelAnswer:
    """Ask ``model`` (with its own settings from ``model_settings``) to answer ``question`` at length."""
    start = time.monotonic()
    reply = await ask(
        ctx.for_model(model),
        "answer",
        LongAnswer,
        conversation(table(language).ANSWER, question=fence(question)),
        run_name=f"answer ({model})",
        tags=["answer"],
        metadata={"model": model},
    )
    text = reply.value.answer.strip() if reply.value is not None else ""
    error = reply.error if reply.value is None else None if text else "the model's answer is empty"
    return ModelAnswer(
        model=model, text=text, error=error, usage=reply.usage, seconds=round(time.monotonic() - start, 3)
    )


# per event loop: an asyncio.Lock serves only the loop it was first used in
_embedded_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


def _embedded_turn(ctx: PyramidContext, model: str) -> contextlib.AbstractAsyncContextManager[None]:
    """Embedded experts answer one at a time, other experts in parallel.

    A process keeps one embedded server: a second local model's start would stop the first's
    server mid-answer (the branches run at once when the checker is not embedded).
    """
    if models(ctx.for_model(model))["answer"].endpoint != "embedded":
        return contextlib.nullcontext()
    return _embedded_turns.setdefault(asyncio.get_running_loop(), asyncio.Lock())


async def expert_answer(state: ExpertTask, runtime: Runtime[PyramidContext]) -> dict[str, Any]:
    """One expert's answer: the one given with the input, else asked now."""
    if state["answer"].strip():
        answer = ModelAnswer(model=state["expert"], text=state["answer"].strip())
    else:
        async with _embedded_turn(runtime.context, state["expert"]):
            answer = await answer_question(
                runtime.context, state["expert"], state["question"], state["language"]
            )
    emit("expert_answer", expert=state["expert"], error=answer.error)
    return {"expert_answers": [answer], "usage": answer.usage}


async def answers_in(state: PyramidState, runtime: Runtime[PyramidContext]) -> dict[str, Any]:
    """Every expert has answered or failed: the Clerk's turn (a join, so its branches start once)."""
    answers = state.get("expert_answers", [])
    emit("expert_answers", answered=sum(1 for a in answers if not a.error), experts=len(answers))
    return {}
