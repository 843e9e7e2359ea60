"""Graph ``hallucination`` (IMPD-MACD): gather -> rounds of Pro/Con team turns and a judge -> refiner.

Each round sends every agent of both teams its own branch (``Send``) with exactly the history
it may see; the Comprehensive agents conclude for their teams; the judge scores the dispute.
The routers return labels naming why the debate goes on or stops (``consensus``,
``dispute_below_epsilon``, ``max_rounds``, ``judge_failed``). LangGraph draws one edge per pair
of nodes, so Studio labels the judge -> refiner edge with the first of the four; the report's
``stop_reason`` says which one ended the run.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Literal, cast

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from factcourt.context.hallucination import HallucinationContext
from factcourt.nodes.hallucination.gather import gather
from factcourt.nodes.hallucination.judge import judge
from factcourt.nodes.hallucination.protocol import team_knowledge, visible_history
from factcourt.nodes.hallucination.refiner import refiner
from factcourt.nodes.hallucination.team_turn import agent_turn, comprehensive
from factcourt.state.hallucination import (
    HALU_PERSPECTIVES,
    HALU_TEAMS,
    AgentTask,
    HallucinationInput,
    HallucinationState,
    HaluRole,
)


def speakers(ctx: HallucinationContext) -> list[HaluRole | Literal["team"]]:
    """The agents that speak in parallel each round, per team ('team': one call for the team)."""
    if ctx.hallucination_layout == "team":
        return ["team"]
    return [role for role in HALU_PERSPECTIVES if role in ctx.hallucination_agents]


def debate_round(state: HallucinationState, ctx: HallucinationContext) -> list[Send]:
    """One branch per agent of both teams, each with only what it may see."""
    return [
        Send(
            "agent_turn",
            AgentTask(
                team=team,
                role=role,
                round=state["round"],
                question=state["question"],
                answer=state["answer"],
                knowledge=team_knowledge(state, team),
                language=state["language"],
                **visible_history(state, team, role),
            ),
        )
        for team in HALU_TEAMS
        for role in speakers(ctx)
    ]


def after_gather(
    state: HallucinationState, runtime: Runtime[HallucinationContext]
) -> Literal["debate", "failed"] | list[Send]:
    """Bad input or a search backend that is down fails the item; else round 1."""
    if state.get("error"):
        return "failed"
    return debate_round(state, runtime.context)


def after_agents(
    state: HallucinationState, runtime: Runtime[HallucinationContext]
) -> Literal["agents", "team_call"]:
    """The Comprehensive agents conclude, unless each team already concluded in its one call."""
    return "team_call" if runtime.context.hallucination_layout == "team" else "agents"


StopLabel = Literal["consensus", "dispute_below_epsilon", "max_rounds", "judge_failed", "next_round"]


def after_judge(state: HallucinationState, runtime: Runtime[HallucinationContext]) -> StopLabel | list[Send]:
    """Stop at consensus, at a dispute at or below epsilon, at the round limit, or on a failed judge."""
    if state.get("judge_error"):
        return "judge_failed"
    reason = state["stop_reason"]
    if reason == "next_round":
        return debate_round(state, runtime.context)
    return cast(StopLabel, reason)  # the state keeps a str: the judge wrote one of these


AFTER_JUDGE: dict[Hashable, str] = {
    "next_round": "agent_turn",
    "consensus": "refiner",
    "dispute_below_epsilon": "refiner",
    "max_rounds": "refiner",
    "judge_failed": "refiner",
}


def build() -> StateGraph[HallucinationState, HallucinationContext, HallucinationInput, HallucinationState]:
    """Wire the hallucination debate."""
    builder = StateGraph(
        HallucinationState, context_schema=HallucinationContext, input_schema=HallucinationInput
    )
    builder.add_node("gather", gather)
    builder.add_node("agent_turn", agent_turn, input_schema=AgentTask)
    builder.add_node("comprehensive", comprehensive)
    builder.add_node("judge", judge)
    builder.add_node("refiner", refiner)
    builder.add_edge(START, "gather")
    builder.add_conditional_edges("gather", after_gather, {"debate": "agent_turn", "failed": "refiner"})
    builder.add_conditional_edges(
        "agent_turn", after_agents, {"agents": "comprehensive", "team_call": "judge"}
    )
    builder.add_edge("comprehensive", "judge")
    builder.add_conditional_edges("judge", after_judge, AFTER_JUDGE)
    builder.add_edge("refiner", END)
    return builder


graph = build().compile(name="hallucination")
