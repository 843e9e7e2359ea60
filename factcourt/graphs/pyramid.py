"""Graph ``pyramid`` (MAD-Fact §5): experts answer -> the Clerk splits each answer -> golden set in layers.

Each expert answers in its own branch (``Send``; an answer given with the input is not asked
again), a join lets the Clerk's branches start once, and the merge builds the golden set: the
embedder proposes equivalent claims, the matcher model confirms them, and each golden claim
goes to layer G - f + 1 with weight G + 2 - layer (5 - k for G = 3).
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from factcourt.context.pyramid import PyramidContext
from factcourt.nodes.pyramid.answer import answers_in, expert_answer
from factcourt.nodes.pyramid.claims import expert_claims
from factcourt.nodes.pyramid.merge import merge
from factcourt.nodes.pyramid.open import open_pyramid
from factcourt.state.pyramid import ExpertTask, PyramidInput, PyramidState


def ask_experts(state: PyramidState, runtime: Runtime[PyramidContext]) -> list[Send]:
    """One branch per expert, with its answer when the input gave one."""
    given = state.get("answers", {})
    return [
        Send(
            "expert_answer",
            ExpertTask(
                expert=expert,
                question=state["question"],
                language=state["language"],
                answer=given.get(expert, ""),
            ),
        )
        for expert in runtime.context.experts
    ]


def split_answers(state: PyramidState) -> Literal["no_answer"] | list[Send]:
    """One Clerk branch per expert that answered; with none, straight to an empty pyramid."""
    answered = [a for a in state.get("expert_answers", []) if not a.error]
    if not answered:
        return "no_answer"
    return [
        Send(
            "expert_claims",
            ExpertTask(expert=a.model, question=state["question"], language=state["language"], answer=a.text),
        )
        for a in answered
    ]


def build() -> StateGraph[PyramidState, PyramidContext, PyramidInput, PyramidState]:
    """Wire the pyramid."""
    builder = StateGraph(PyramidState, context_schema=PyramidContext, input_schema=PyramidInput)
    builder.add_node("open_pyramid", open_pyramid)
    builder.add_node("expert_answer", expert_answer, input_schema=ExpertTask)
    builder.add_node("answers_in", answers_in)
    builder.add_node("expert_claims", expert_claims, input_schema=ExpertTask)
    builder.add_node("merge", merge)
    builder.add_edge(START, "open_pyramid")
    builder.add_conditional_edges("open_pyramid", ask_experts, ["expert_answer"])
    builder.add_edge("expert_answer", "answers_in")
    builder.add_conditional_edges(
        "answers_in", split_answers, {"no_answer": "merge", "expert_claims": "expert_claims"}
    )
    builder.add_edge("expert_claims", "merge")
    builder.add_edge("merge", END)
    return builder


graph = build().compile(name="pyramid")
