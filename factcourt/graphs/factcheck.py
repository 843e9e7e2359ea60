"""Long-form graph ``factcheck`` (MAD-Fact): Clerk -> one ``verify`` branch per claim -> score.

Each claim runs the single-claim graph as a subgraph, fanned out with ``Send`` so claims are
checked concurrently (``max_concurrency`` in the run config bounds them); a claim that fails is
marked failed in its result and never stops the others.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from factcourt.context.claims import ClaimsContext
from factcourt.graphs.verify import build as build_verify
from factcourt.nodes.claims.corrector import correct
from factcourt.nodes.claims.decompose import decompose
from factcourt.nodes.claims.score import score
from factcourt.state.claims import FactcheckInput, FactcheckState


def fan_out(state: FactcheckState) -> list[Send] | Literal["score"]:
    """One ``check_claim`` branch per claim; straight to scoring when there is none."""
    claims = state.get("claims", [])
    if not claims:
        return "score"
    return [
        Send(
            "check_claim",
            {"claim": claim, "question": state.get("question", ""), "language": state.get("language", "en")},
        )
        for claim in claims
    ]


def after_score(state: FactcheckState, runtime: Runtime[ClaimsContext]) -> Literal["corrector", "__end__"]:
    """The corrector runs only when asked and when a claim was refuted."""
    refuted = any(r.verdict == "refuted" for r in state.get("results", []))
    return "corrector" if runtime.context.correct and refuted else END  # type: ignore[return-value]  # langgraph types END as str


def build() -> StateGraph[FactcheckState, ClaimsContext, FactcheckInput, FactcheckState]:
    """Wire the long-form check."""
    builder = StateGraph(FactcheckState, context_schema=ClaimsContext, input_schema=FactcheckInput)
    builder.add_node("decompose", decompose)
    builder.add_node("check_claim", build_verify().compile(name="check_claim"))
    builder.add_node("score", score)
    builder.add_node("corrector", correct)
    builder.add_edge(START, "decompose")
    builder.add_conditional_edges("decompose", fan_out, ["check_claim", "score"])
    builder.add_edge("check_claim", "score")
    builder.add_conditional_edges("score", after_score)
    builder.add_edge("corrector", END)
    return builder


graph = build().compile(name="factcheck")
