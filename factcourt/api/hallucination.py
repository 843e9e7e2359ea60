"""IMPD-MACD's API: ``detect`` whether an answer to a question hallucinates."""

from __future__ import annotations

import asyncio
from typing import Any

from factcourt.api import ProgressHook, checked, context_with_given, run_graph, stop_servers_on_exit
from factcourt.context.base import BaseContext
from factcourt.context.hallucination import HallucinationContext
from factcourt.errors import InputError
from factcourt.inputs import strip_controls
from factcourt.runs import run_config
from factcourt.state.hallucination import DetectResult, DetectSettings, HallucinationReport
from factcourt.state.records import Evidence, Usage


def detect_result(state: dict[str, Any], ctx: HallucinationContext) -> DetectResult:
    """The final state of a ``hallucination`` run as its result."""
    report = state.get("report") or HallucinationReport(error="the debate produced no report")
    return DetectResult(
        question=state.get("question", ""),
        answer=state.get("answer", ""),
        **dict(report),
        knowledge=state.get("knowledge", []),
        stance_knowledge=state.get("stance_knowledge", {}),
        sub_questions=state.get("sub_questions", []),
        queries=state.get("queries", []),
        transcript=state.get("views", []),
        teams=state.get("teams", []),
        judgements=state.get("judgements", []),
        usage=state.get("usage") or Usage(),
        settings=DetectSettings(
            search=ctx.search,
            model=ctx.model,
            layout=ctx.hallucination_layout,
            judge=ctx.hallucination_judge,
            scores=ctx.hallucination_scores,
            jt=ctx.hallucination_jt,
            retrieval=ctx.hallucination_retrieval,
            agents=list(ctx.hallucination_agents),
            epsilon=ctx.epsilon,
            max_rounds=ctx.hallucination_rounds,
        ),
    )


def detect_payload(
    question: str, answer: str, knowledge: list[Evidence] | None, ctx: HallucinationContext
) -> dict[str, Any]:
    """Validate a question-answer pair and build the graph's input (bad input raises InputError)."""
    from factcourt.nodes.hallucination.gather import item_problem

    question, answer = strip_controls(question), strip_controls(answer)
    if problem := item_problem(question, answer):
        raise InputError(problem)
    if ctx.search == "given" and not any(e.text.strip() for e in knowledge or []):
        raise InputError("search 'given' needs knowledge: pass it, or choose another search")
    payload: dict[str, Any] = {"question": question, "answer": answer}
    if knowledge is not None:
        payload["given_knowledge"] = list(knowledge)
    return payload


@checked
async def adetect(
    question: str,
    answer: str,
    knowledge: list[Evidence] | None = None,
    settings: dict[str, Any] | BaseContext | None = None,
    *,
    progress: ProgressHook | None = None,
    **overrides: Any,
) -> DetectResult:
    """Decide whether ``answer`` to ``question`` hallucinates (async); see :func:`detect`."""
    from factcourt.graphs.hallucination import graph

    ctx = context_with_given(HallucinationContext, knowledge, settings, overrides)
    payload = detect_payload(question, answer, knowledge, ctx)
    state = await run_graph(graph, payload, ctx, run_config(ctx), progress)
    return detect_result(state, ctx)


@checked
def detect(
    question: str,
    answer: str,
    knowledge: list[Evidence] | None = None,
    settings: dict[str, Any] | BaseContext | None = None,
    **overrides: Any,
) -> DetectResult:
    """Decide whether ``answer`` hallucinates: label 1 = no hallucination, 0 = hallucination.

    The result's JSON is what ``factcourt detect --json`` prints: the label, the hallucination types
    found (each with a probability, the answer span and the evidence), the debate and its cost.
    Given ``knowledge`` and no search named, the agents use that knowledge only.

    Example:
        >>> factcourt.detect("Who wrote Hamlet?", "Christopher Marlowe.", search="local")["label"]
    """
    stop_servers_on_exit()
    return asyncio.run(adetect(question, answer, knowledge, settings, **overrides))


def detect_row_problem(values: dict[str, str]) -> str | None:
    """Why a ``detect --batch`` row cannot be judged, as :func:`adetect` would refuse it."""
    from factcourt.nodes.hallucination.gather import item_problem

    return item_problem(values["question"], values["answer"])


async def detect_row(values: dict[str, str], ctx: BaseContext) -> DetectResult:
    """A ``detect --batch`` row's result."""
    return await adetect(values["question"], values["answer"], None, ctx)


# the published API of system "hallucination": factcourt.detect, named after its command
__all__ = [
    "adetect",
    "detect",
]
