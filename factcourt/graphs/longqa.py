"""Graph ``longqa`` (MAD-Fact's LongHalluQA construction) for one seed question.

gather knowledge -> verify each fact in its own branch (``Send``) -> one sub-question per kept
fact -> topic clusters -> fuse 1-3 candidates with the original into a long-form question.
The routers return labels naming why a seed stops early, so Studio draws every branch.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from factcourt.context.longqa import LongQAContext
from factcourt.nodes.longqa.cluster import cluster
from factcourt.nodes.longqa.fuse import fuse
from factcourt.nodes.longqa.gather import gather_knowledge
from factcourt.nodes.longqa.sub_questions import write_sub_questions
from factcourt.nodes.longqa.verify import verify_fact
from factcourt.state.longqa import FactTask, LongQAInput, LongQAState


def after_gather(state: LongQAState) -> Literal["failed"] | list[Send]:
    """One verification branch per gathered fact; a bad seed or a search that is down stops here."""
    if state.get("error") or not state.get("gathered"):
        return "failed"
    return [
        Send("verify_fact", FactTask(triple=triple, language=state["language"]))
        for triple in state["gathered"]
    ]


def after_sub_questions(
    state: LongQAState,
) -> Literal["no_verified_knowledge", "failed", "not_built", "written"]:
    """No fact survived the verifier, the call failed, every question was the seed, or on."""
    if state.get("error"):
        return "failed"
    if state.get("not_built"):
        return "not_built"
    return "written" if state.get("sub_questions") else "no_verified_knowledge"


def build() -> StateGraph[LongQAState, LongQAContext, LongQAInput, LongQAState]:
    """Wire the builder."""
    builder = StateGraph(LongQAState, context_schema=LongQAContext, input_schema=LongQAInput)
    builder.add_node("gather_knowledge", gather_knowledge)
    builder.add_node("verify_fact", verify_fact, input_schema=FactTask)
    builder.add_node("write_sub_questions", write_sub_questions)
    builder.add_node("cluster", cluster)
    builder.add_node("fuse", fuse)
    builder.add_edge(START, "gather_knowledge")
    builder.add_conditional_edges(
        "gather_knowledge", after_gather, {"failed": END, "verify_fact": "verify_fact"}
    )
    builder.add_edge("verify_fact", "write_sub_questions")
    builder.add_conditional_edges(
        "write_sub_questions",
        after_sub_questions,
        {"no_verified_knowledge": END, "failed": END, "not_built": END, "written": "cluster"},
    )
    builder.add_edge("cluster", "fuse")
    builder.add_edge("fuse", END)
    return builder


graph = build().compile(name="longqa")
