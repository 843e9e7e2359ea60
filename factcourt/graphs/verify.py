"""Single-claim graph ``verify``: evidence -> first pass -> debate if contested -> verdict.

The routers read ``runtime.context`` and return ``Literal`` targets, so ``draw_mermaid()`` and
LangGraph Studio show every rule branch; the behaviour of each rule lives in ``nodes/claims/rules.py``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from factcourt.context.claims import ClaimsContext
from factcourt.nodes.claims.debater_turn import debater_turn
from factcourt.nodes.claims.first_pass import first_pass
from factcourt.nodes.claims.judge_model import judge_model
from factcourt.nodes.claims.judge_vote import judge_vote
from factcourt.nodes.claims.moderator import moderator
from factcourt.nodes.claims.open_case import open_case
from factcourt.nodes.claims.protocols import PROTOCOLS
from factcourt.nodes.claims.retrieve import retrieve
from factcourt.nodes.claims.rules import evidence_first, majority_settled, retrieve_before_turn, unanimous
from factcourt.state.claims import ClaimInput, ClaimOutput, ClaimState

# Routers return labels that name the rule at work; the path maps turn them into nodes, so the
# drawn graph labels each branch (e.g. ``adaptive_unanimous`` -> judge_vote).
TurnStart = Literal["retrieval_first", "direct"]
# path maps are typed as add_conditional_edges takes them (dict is invariant in its key)
TURN_START: dict[Hashable, str] = {
    "retrieval_first": "retrieve",
    "direct": "debater_turn",
    "failed": "judge_vote",
}


def _turn_start(state: ClaimState, runtime: Runtime[ClaimsContext]) -> TurnStart:
    return "retrieval_first" if retrieve_before_turn(runtime.context, state) else "direct"


def after_open(
    state: ClaimState, runtime: Runtime[ClaimsContext]
) -> Literal["failed", "nothing_to_judge_over", "evidence_first", "first_pass", "retrieval_first", "direct"]:
    """Search for the claim first when asked; then the first pass; else the rule's start."""
    ctx = runtime.context
    if state.get("error"):
        return "failed"
    if state.get("decided"):  # no evidence can be had: not judged, and no call spent
        return "nothing_to_judge_over"
    if evidence_first(ctx):
        return "evidence_first"
    return "first_pass" if ctx.first_pass != "off" else _turn_start(state, runtime)


AFTER_OPEN: dict[Hashable, str] = {
    **TURN_START,
    "nothing_to_judge_over": "judge_vote",
    "evidence_first": "retrieve",
    "first_pass": "first_pass",
}


def after_retrieve(
    state: ClaimState, runtime: Runtime[ClaimsContext]
) -> Literal["answer", "first_pass", "failed"]:
    """A search backend that failed after retries fails the claim."""
    if state.get("error"):
        return "failed"
    if runtime.context.first_pass != "off" and "first_pass" not in state:
        return "first_pass"
    return "answer"


def after_first_pass(
    state: ClaimState, runtime: Runtime[ClaimsContext]
) -> Literal["confident", "failed", "retrieval_first", "direct"]:
    """A confident first pass decides the claim; a failed one fails it; a contested one is debated."""
    if state.get("error"):
        return "failed"
    return "confident" if state.get("decided") else _turn_start(state, runtime)


AFTER_TURN: dict[Hashable, str] = {
    **TURN_START,
    "round_failed": "judge_vote",
    "unsure_retrieve": "retrieve",
    "moderate": "moderator",
    "last_round": "judge_vote",
    "adaptive_unanimous": "judge_vote",
    "majority_settled": "judge_vote",
    "judge_model": "judge_model",
}


AfterTurn = Literal[
    "round_failed",
    "unsure_retrieve",
    "retrieval_first",
    "direct",
    "moderate",
    "last_round",
    "adaptive_unanimous",
    "majority_settled",
    "judge_model",
]


def after_turn(state: ClaimState, runtime: Runtime[ClaimsContext]) -> AfterTurn:
    """Unsure speaker -> retrieve; mid-round -> next speaker; end of round -> the rule decides.

    A round in which no turn answered ends the debate: the claim fails with the reason. In the
    last round, speakers who can no longer change the majority are not asked.
    """
    ctx = runtime.context
    if state.get("error"):
        return "round_failed"
    if state.get("awaiting_evidence"):
        return "unsure_retrieve"
    if majority_settled(ctx, state):
        return "majority_settled"
    if state["turn_in_round"] > 0:
        return _turn_start(state, runtime)
    finished = state["round"] - 1
    if PROTOCOLS[ctx.protocol].after_round == "moderate":
        return "moderate"
    ended = finished >= ctx.max_rounds or (
        ctx.rule == "adaptive" and unanimous(state.get("turns", []), finished)
    )
    if ended and ctx.jury_judge == "model":
        return "judge_model"
    if finished >= ctx.max_rounds:
        return "last_round"
    if ended:
        return "adaptive_unanimous"
    return _turn_start(state, runtime)


AFTER_MODERATOR: dict[Hashable, str] = {**TURN_START, "converged": "judge_vote"}


def after_moderator(
    state: ClaimState, runtime: Runtime[ClaimsContext]
) -> Literal["converged", "failed", "retrieval_first", "direct"]:
    """The moderator closed the debate (converged or last round), else the next round."""
    if state.get("error"):
        return "failed"
    return "converged" if state.get("stop") else _turn_start(state, runtime)


def build() -> StateGraph[ClaimState, ClaimsContext, ClaimInput, ClaimOutput]:
    """Wire the single-claim debate."""
    builder = StateGraph(
        ClaimState, context_schema=ClaimsContext, input_schema=ClaimInput, output_schema=ClaimOutput
    )
    builder.add_node("open_case", open_case)
    builder.add_node("retrieve", retrieve)
    builder.add_node("first_pass", first_pass)
    builder.add_node("debater_turn", debater_turn)
    builder.add_node("moderator", moderator)
    builder.add_node("judge_model", judge_model)
    builder.add_node("judge_vote", judge_vote)
    builder.add_edge(START, "open_case")
    builder.add_conditional_edges("open_case", after_open, AFTER_OPEN)
    builder.add_conditional_edges(
        "retrieve",
        after_retrieve,
        {"answer": "debater_turn", "first_pass": "first_pass", "failed": "judge_vote"},
    )
    builder.add_conditional_edges("first_pass", after_first_pass, {**TURN_START, "confident": "judge_vote"})
    builder.add_conditional_edges("debater_turn", after_turn, AFTER_TURN)
    builder.add_conditional_edges("moderator", after_moderator, AFTER_MODERATOR)
    builder.add_edge("judge_model", "judge_vote")
    builder.add_edge("judge_vote", END)
    return builder


graph = build().compile(name="verify")
