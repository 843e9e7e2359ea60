"""Open a pyramid: the question must be there; its language sets the prompts' language."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.pyramid import PyramidContext
from factcourt.errors import InputError
from factcourt.inputs import long_question
from factcourt.nodes.helpers import language_for
from factcourt.state.pyramid import PyramidState


def question_problem(question: str) -> str | None:
    """Why a question cannot be answered by experts, or None."""
    return "the question is empty" if not question or not question.strip() else long_question(question)


def input_problem(payload: dict[str, Any]) -> str | None:
    """Why a served run's input (its schema checked) cannot be built on, or None."""
    return question_problem(payload.get("question", ""))


async def open_pyramid(state: PyramidState, runtime: Runtime[PyramidContext]) -> dict[str, Any]:
    """Check the question and fix the language of every prompt that follows (the question's)."""
    question = state.get("question", "")
    if problem := question_problem(question):
        raise InputError(problem)
    unknown = sorted(set(state.get("answers", {})) - set(runtime.context.experts))
    if unknown:
        raise InputError(f"answers given for models that are not experts of this run: {unknown}")
    return {"language": state.get("language") or language_for(runtime.context.language, question)}
