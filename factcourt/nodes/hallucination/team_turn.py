"""The teams' turns: each agent speaks in its own branch (``Send``), then each team concludes.

``agent_turn`` is one Logic, Context-Consistency or Factual agent (or, in the 'team' layout, a
whole team in one call); ``comprehensive`` runs each team's Comprehensive agent over its
teammates' analyses. Every agent's prompt is the same builder; only role, team and what it may
see (``protocol.visible_history``) differ.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from factcourt.context.hallucination import HallucinationContext
from factcourt.nodes.hallucination.protocol import OPPONENT_CHARS, clip, team_knowledge, visible_history, vote
from factcourt.nodes.helpers import emit, fence, format_evidence, ground_citations, shown_evidence
from factcourt.prompts import conversation
from factcourt.prompts.hallucination import table
from factcourt.providers.models import ask
from factcourt.state.hallucination import (
    HALU_PERSPECTIVES,
    HALU_TEAMS,
    HISTORY_CHARS,
    AgentTask,
    AgentView,
    ComprehensiveAnswer,
    HallucinationState,
    HaluTeam,
    PerspectiveAnswer,
    TeamAnswer,
    TeamRound,
)
from factcourt.state.records import Evidence


def item_fields(question: str, answer: str, knowledge: list[Evidence]) -> dict[str, str]:
    """The item as every prompt of the debate shows it (fenced: it is data)."""
    return {"question": fence(question), "answer": fence(answer), "knowledge": format_evidence(knowledge)}


def speaker_fields(language: str, team: HaluTeam, round_: int, seen: Mapping[str, object]) -> dict[str, Any]:
    """Who speaks and what it may see."""
    return {
        **seen,
        "round": round_,
        "team_name": team.capitalize(),
        "stance": table(language).STANCES[team],
        "history_chars": HISTORY_CHARS,
    }


def _grounded(text: str, knowledge: list[Evidence]) -> str:
    return ground_citations(text, shown_evidence(knowledge))[0]


async def agent_turn(state: AgentTask, runtime: Runtime[HallucinationContext]) -> dict[str, Any]:
    """One agent's analysis (or a whole team's, in one call); a failure is recorded, not raised."""
    ctx = runtime.context
    team, role, round_, language = state["team"], state["role"], state["round"], state["language"]
    words = table(language)
    seen = {k: state[k] for k in ("own_history", "opponent", "feedback")}
    fields = {
        **item_fields(state["question"], state["answer"], state["knowledge"]),
        **speaker_fields(language, team, round_, seen),
    }
    tags = ["system:hallucination", f"team:{team}", f"role:{role}"]
    meta = {"team": team, "role": role, "round": round_}
    if role == "team":
        focus = {f"focus_{r}": words.FOCUS[team, r] for r in HALU_PERSPECTIVES}
        answer = await ask(
            ctx,
            "debater",
            TeamAnswer,
            conversation(words.TEAM, **fields, **focus),
            run_name=f"{team} team round {round_}",
            tags=tags,
            metadata=meta,
        )
        value = answer.value
        views = [
            AgentView(
                team=team,
                role=r,
                round=round_,
                analysis=_grounded(getattr(value, r), state["knowledge"]) if value else "",
                conclusion=value.conclusion if value else None,
                failed=answer.error,
            )
            for r in HALU_PERSPECTIVES
        ]
        result = TeamRound(
            team=team,
            round=round_,
            conclusion=value.conclusion if value else None,
            analysis=" ".join(v.analysis for v in views),
            summary=clip(value.summary, HISTORY_CHARS) if value else "",
            false_premise=value.false_premise if value else False,
            by="team_call",
            failed=answer.error,
        )
        emit("turn_done", claim_id="answer", speaker=f"{team} team", round=round_, verdict=result.conclusion)
        return {"views": views, "teams": [result], "usage": answer.usage}
    spoken = await ask(
        ctx,
        "debater",
        PerspectiveAnswer,
        conversation(
            words.AGENT,
            **fields,
            role_name=words.ROLE_NAMES[role],
            focus=words.FOCUS[team, role],
        ),
        run_name=f"{team} {role} round {round_}",
        tags=tags,
        metadata=meta,
    )
    view = AgentView(
        team=team,
        role=role,
        round=round_,
        analysis=_grounded(spoken.value.analysis, state["knowledge"]) if spoken.value else "",
        conclusion=spoken.value.conclusion if spoken.value else None,
        failed=spoken.error,
    )
    emit("turn_done", claim_id="answer", speaker=f"{team} {role}", round=round_, verdict=view.conclusion)
    return {"views": [view], "usage": spoken.usage}


def _without_comprehensive(
    team: HaluTeam, round_: int, views: list[AgentView], failed: str | None = None
) -> TeamRound:
    """The team's result when no Comprehensive agent speaks: its agents' vote and their words."""
    label = vote(views, [])
    said = "; ".join(f"{v.role}: {v.conclusion}: {clip(v.analysis, 150)}" for v in views if v.failed is None)
    return TeamRound(
        team=team,
        round=round_,
        conclusion=None if label is None else ("no_hallucination" if label == 1 else "hallucination"),
        analysis=said,
        summary=clip(f"Round {round_}: {said}", HISTORY_CHARS),
        by="vote",
        failed=failed,
    )


async def _conclude(
    ctx: HallucinationContext, state: HallucinationState, team: HaluTeam
) -> tuple[TeamRound, Any]:
    round_, language, knowledge = state["round"], state["language"], team_knowledge(state, team)
    views = [v for v in state.get("views", []) if v.team == team and v.round == round_]
    if "comprehensive" not in ctx.hallucination_agents:
        return _without_comprehensive(team, round_, views), None
    analyses = "\n".join(
        f"{table(language).ROLE_NAMES[v.role]}: {v.conclusion}: " + fence(clip(v.analysis, OPPONENT_CHARS))
        for v in views
        if v.failed is None
    )
    answer = await ask(
        ctx,
        "debater",
        ComprehensiveAnswer,
        conversation(
            table(language).COMPREHENSIVE,
            **item_fields(state["question"], state["answer"], knowledge),
            **speaker_fields(language, team, round_, visible_history(state, team, "comprehensive")),
            analyses=analyses or "(no teammate answered)",
            focus=table(language).FOCUS[team, "comprehensive"],
        ),
        run_name=f"{team} comprehensive round {round_}",
        tags=["system:hallucination", f"team:{team}", "role:comprehensive"],
        metadata={"team": team, "role": "comprehensive", "round": round_},
    )
    value = answer.value
    if value is None:  # recorded; the team's agents' vote stands in for its conclusion
        return _without_comprehensive(team, round_, views, failed=answer.error), answer.usage
    result = TeamRound(
        team=team,
        round=round_,
        conclusion=value.conclusion,
        analysis=_grounded(value.analysis, knowledge),
        summary=clip(value.summary, HISTORY_CHARS),
        false_premise=value.false_premise,
    )
    return result, answer.usage


async def comprehensive(state: HallucinationState, runtime: Runtime[HallucinationContext]) -> dict[str, Any]:
    """Each team's Comprehensive agent (both at once): the team's conclusion and summary."""
    done = await asyncio.gather(*(_conclude(runtime.context, state, team) for team in HALU_TEAMS))
    update: dict[str, Any] = {"teams": [result for result, _ in done]}
    usages = [u for _, u in done if u is not None]
    if usages:
        update["usage"] = sum(usages[1:], usages[0])
    for result in update["teams"]:
        emit(
            "turn_done",
            claim_id="answer",
            speaker=f"{result.team} comprehensive",
            round=result.round,
            verdict=result.conclusion,
        )
    return update
