"""The judge: per round, dispute scores, consensus, the winning side and feedback."""

from __future__ import annotations

from typing import Any, Literal, Protocol, cast

from langgraph.runtime import Runtime

from factcourt.context.hallucination import HallucinationContext
from factcourt.nodes.hallucination.protocol import (
    EMPTY,
    WEIGHTS,
    agreed_conclusion,
    clip,
    interaction_quality,
    same_role_analyses,
    stop_reason,
    team_said,
    teams_of_round,
    weighted_dispute,
)
from factcourt.nodes.hallucination.team_turn import item_fields
from factcourt.nodes.helpers import confidence_from_logprobs, emit, fence, read_confidence
from factcourt.prompts import conversation
from factcourt.prompts.hallucination import table
from factcourt.providers.embeddings import paired_similarities
from factcourt.providers.models import ask
from factcourt.state.hallucination import (
    AgentView,
    HallucinationState,
    JudgeAnswer,
    Judgement,
    JudgeQualityAnswer,
    TeamRound,
)
from factcourt.state.records import AgentAnswer, without_trailing

TEAM_CHARS = 600  # a team's explained conclusion as the judge sees it
RULING_CHARS = 150  # the judge's own earlier rulings, summarised (the paper's alpha)
# per hallucination_scores: the judge's answer (its prompt: the table's JUDGES under the same key)
JUDGES: dict[str, type[AgentAnswer]] = {"dispute": JudgeAnswer, "quality": JudgeQualityAnswer}


class Ruling(Protocol):
    """What every judge answer holds: JudgeAnswer, its quality twin and their shortened copies."""

    reasoning: str
    consensus: bool
    winner: Literal["pro", "con", "uncertain"]


def _team(result: TeamRound | None, views: list[AgentView]) -> str:
    if result is None or result.conclusion is None:
        return "(the team gave no conclusion)"
    premise = " The question rests on a false premise." if result.false_premise else ""
    return f"{result.conclusion}: {fence(team_said(result, views, TEAM_CHARS))}{premise}"


def _ruling(j: Judgement) -> str:
    return (
        f"R{j.round}: winner {j.winner}, {j.scored} {j.dispute:.2f}: {fence(clip(j.reasoning, RULING_CHARS))}"
    )


async def round_quality(ctx: HallucinationContext, state: HallucinationState, round_: int) -> float | None:
    """Q_t of ``round_`` (hallucination_jt='paper'), its q_sem from embeddings of the paired analyses."""
    pairs = same_role_analyses(state.get("views", []), state.get("teams", []), round_)
    cosines = await paired_similarities(list(pairs.values()))  # this system embeds locally
    return interaction_quality(
        pairs,
        dict(zip(pairs, cosines, strict=True)),
        round_,
        ctx.hallucination_weights,
        ctx.hallucination_beta,
    )


def judge_schema(ctx: HallucinationContext, round_: int) -> type[AgentAnswer]:
    """The judge's answer (dispute or quality scores), ending where what is read ends.

    The feedback is for the teams' next round, so the last round's judge writes none; its written
    confidence is not read where the winner's probability comes from logprobs.
    """
    schema = JUDGES[ctx.hallucination_scores]
    if round_ < ctx.hallucination_rounds:
        return schema
    unread = {"feedback", "confidence"} if confidence_from_logprobs(ctx, "judge") else {"feedback"}
    return without_trailing(schema, frozenset(unread))


async def judge(state: HallucinationState, runtime: Runtime[HallucinationContext]) -> dict[str, Any]:
    """Score the round; a judge that fails ends the debate with the last good state."""
    ctx, round_ = runtime.context, state["round"]
    teams = teams_of_round(state.get("teams", []), round_)
    earlier = state.get("judgements", [])
    views = state.get("views", [])
    quality = await round_quality(ctx, state, round_) if ctx.hallucination_jt == "paper" else None
    shown = "" if quality is None else table(state["language"]).CROSS_REFERENCE.format(quality=quality)
    answer = await ask(
        ctx,
        "judge",
        judge_schema(ctx, round_),
        conversation(
            table(state["language"]).JUDGES[ctx.hallucination_scores],
            **item_fields(state["question"], state["answer"], state.get("knowledge", [])),
            pro=_team(teams["pro"], views),
            con=_team(teams["con"], views),
            cross_reference=shown,
            judge_history=" | ".join(_ruling(j) for j in earlier) or EMPTY,
            round=round_,
            max_rounds=ctx.hallucination_rounds,
        ),
        run_name=f"judge round {round_}",
        tags=["system:hallucination", "role:judge"],
        metadata={"round": round_},
    )
    if answer.value is None:
        return {"usage": answer.usage, "judge_error": f"the judge failed in round {round_}: {answer.error}"}
    v = cast(Ruling, answer.value)  # models made from JudgeAnswer at run time: mypy sees AgentAnswer
    probabilities, confidence = read_confidence(
        ctx,
        answer.logprobs,
        v.winner,
        getattr(v, "confidence", None),
        field="winner",
        labels=("pro", "con", "uncertain"),
    )
    scored = ctx.hallucination_scores
    scores = {dimension: getattr(v, f"{dimension}_{scored}") for dimension in WEIGHTS}
    ruling = Judgement(
        round=round_,
        **scores,
        scored=scored,
        # Eq. 15's c_t: 1 where the judge gave no confidence
        dispute=weighted_dispute(scores, ctx.judge_weights)
        * (confidence if ctx.hallucination_jt != "dispute" and confidence is not None else 1.0),
        consensus=v.consensus,
        winner=v.winner,
        confidence=confidence,
        winner_probabilities=probabilities if ctx.confidence_source == "logprobs" else None,
        feedback=getattr(v, "feedback", ""),
        reasoning=v.reasoning,
        quality=quality,
    )
    reason = stop_reason(ruling, round_, ctx, agreed_conclusion(teams["pro"], teams["con"]))
    emit("judged", claim_id="answer", round=round_, winner=v.winner, dispute=ruling.dispute, stop=reason)
    update = {"judgements": [ruling], "usage": answer.usage, "stop_reason": reason}
    if reason == "next_round":
        update["round"] = round_ + 1
    return update
