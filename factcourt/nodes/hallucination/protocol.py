"""The rules of the hallucination debate as pure functions: who sees what, when it stops, the label.

The graph's routers and the nodes both read these, so each rule is written down once and unit
tests check it without a model.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, TypedDict

from factcourt.context.hallucination import HallucinationContext
from factcourt.nodes.helpers import EVIDENCE_SHOWN, clip, clip_to_budget, fence
from factcourt.state.hallucination import (
    HALU_PERSPECTIVES,
    HALU_TEAMS,
    HISTORY_CHARS,
    AgentView,
    HaluConclusion,
    HaluTeam,
    Judgement,
    TeamRound,
)
from factcourt.state.records import Evidence

# The judge's four dimensions, balanced (the paper's best weights: lowest variance); a run's own
# are HallucinationContext.hallucination_weights
WEIGHTS = {"logic": 0.25, "fact": 0.25, "coherence": 0.25, "overall": 0.25}
OPPONENT_CHARS = 500  # one opposing agent's analysis as shown
FEEDBACK_CHARS = 300
EMPTY = "(none yet)"
STANCE_PIECES = 2  # hallucination_retrieval='stance': a team's own search results it is shown

Stop = Literal["consensus", "dispute_below_epsilon", "max_rounds", "next_round"]


class SeenHistory(TypedDict):
    """What an agent may see of the debate so far (:func:`visible_history`)."""

    own_history: str
    opponent: str
    feedback: str


class Concluded(Protocol):
    """What a vote counts: an agent's view, a team's round, or a baseline agent's check."""

    @property
    def conclusion(self) -> HaluConclusion | None:
        """The label it concluded, None when it gave none."""


def opponent(team: HaluTeam) -> HaluTeam:
    """The other team."""
    return "con" if team == "pro" else "pro"


def weighted_dispute(scores: Mapping[str, float], weights: Mapping[str, float] = WEIGHTS) -> float:
    """J_t: the weighted mean of the judge's dispute scores (weights normalised to sum 1)."""
    total = sum(weights.values())
    return round(sum(weights[k] * scores[k] for k in weights) / total, 4)


_TOKEN = re.compile(r"\w+", re.UNICODE)


def same_role_analyses(
    views: list[AgentView], teams: list[TeamRound], round_: int
) -> dict[str, tuple[str, str]]:
    """Each agent's analysis beside its same-role opponent's, (A_i, Opp(A_i)), in ``round_``.

    agent -> (pro's analysis, con's), for the roles both teams answered in; the Comprehensive
    agents' are the teams' explained conclusions (not a vote standing in for a failed one).
    """
    said: dict[str, dict[str, str]] = {}
    for v in views:
        if v.round == round_ and v.failed is None and v.analysis:
            said.setdefault(v.role, {})[v.team] = v.analysis
    for t in teams:
        if t.round == round_ and t.failed is None and t.by != "vote" and t.analysis:
            said.setdefault("comprehensive", {})[t.team] = t.analysis
    return {agent: (by_team["pro"], by_team["con"]) for agent, by_team in said.items() if len(by_team) == 2}


def information(own: str, opposing: str) -> float:
    """q_info (IMPD-MACD Eqs. 26-27): the entropy of the pair's tokens over its maximum, log2 |S|.

    The units S are the words of the two analyses (the paper's "basic tokens"; its "core
    arguments" and "key phrases" would take a model). Every unit of S occurs, so the smoothing
    gamma of Eq. 28 is left out. 0 when the pair has fewer than two distinct words.
    """
    counts = Counter(_TOKEN.findall(f"{own} {opposing}".lower()))
    if len(counts) < 2:
        return 0.0
    total = sum(counts.values())
    entropy = -sum(c / total * math.log2(c / total) for c in counts.values())
    return entropy / math.log2(len(counts))


def interaction_quality(
    pairs: Mapping[str, tuple[str, str]],
    cosines: Mapping[str, float],
    round_: int,
    weights: Mapping[str, float],
    beta: float,
) -> float | None:
    """Q_t = sum_i w_i q_t^i (IMPD-MACD Eq. 13, App. C.2), over the agents in ``pairs``.

    q_t^i ~ q_sem * q_info * q_time (Eq. 30's approximation), each in [0, 1]: q_sem = (cos + 1) / 2
    of the two analyses' embeddings (the paper's softmax of a single cosine would always be 1),
    q_info as ``information``, q_time = e^(-beta * (t - 1)) (Eq. 29, t in rounds). The weights of
    the agents present are normalised to sum 1, so an ablated agent does not lower Q_t. None
    without a pair.
    """
    total = sum(weights[agent] for agent in pairs)
    if not pairs or total <= 0:
        return None
    timely = math.exp(-beta * (round_ - 1))
    quality = sum(
        weights[agent] * (cosines[agent] + 1) / 2 * information(pro, con) * timely
        for agent, (pro, con) in pairs.items()
    )
    return round(quality / total, 4)


WINNER_OF: dict[HaluConclusion, str] = {"no_hallucination": "pro", "hallucination": "con"}


def agreed_conclusion(pro: TeamRound | None, con: TeamRound | None) -> HaluConclusion | None:
    """The conclusion both teams reached this round, or None when they differ or one gave none."""
    if pro is None or con is None or pro.conclusion is None or pro.conclusion != con.conclusion:
        return None
    return pro.conclusion


def stop_reason(
    judgement: Judgement, round_: int, ctx: HallucinationContext, agreed: HaluConclusion | None
) -> Stop:
    """Why the debate stops after ``round_``, or ``next_round``: consensus first, then epsilon.

    Under the 'checked' rule (``hallucination_judge``) an early stop needs the record to bear the
    agreement out: both teams concluded the same (``agreed``) and the judge named that side the
    winner; under 'paper' the judge's word alone stops the debate. The 1.5B judge claimed consensus at
    zero dispute over teams that disagreed, and named "pro" over two teams that both found a
    hallucination; such a round goes on, and at the round limit the judge's winner decides unless
    both teams concluded against it (``final_label``).
    """
    settled = ctx.hallucination_judge == "paper" or (
        agreed is not None and judgement.winner == WINNER_OF[agreed]
    )
    if settled and judgement.consensus:
        return "consensus"
    if settled and judgement.dispute <= ctx.epsilon:
        return "dispute_below_epsilon"
    if round_ >= ctx.hallucination_rounds:
        return "max_rounds"
    return "next_round"


def team_round(teams: list[TeamRound], team: HaluTeam, round_: int) -> TeamRound | None:
    """The team's result of ``round_``, if any."""
    return next((t for t in reversed(teams) if t.team == team and t.round == round_), None)


def team_knowledge(state: Mapping[str, Any], team: HaluTeam) -> list[Evidence]:
    """The knowledge ``team``'s agents see: the shared knowledge, then the team's own search results.

    With results of its own (``hallucination_retrieval='stance'``) the shared knowledge gives up
    the room they take among the pieces a prompt shows (``EVIDENCE_SHOWN``), its last ones first.
    """
    shared: list[Evidence] = state.get("knowledge", [])
    own: list[Evidence] = state.get("stance_knowledge", {}).get(team, [])
    if not own:
        return shared
    return [*shared[: max(0, EVIDENCE_SHOWN - len(own))], *own]


def visible_history(state: Mapping[str, Any], team: HaluTeam, role: str) -> SeenHistory:
    """What an agent of ``team`` in ``role`` may see in the current round (the paper's Eq. 9).

    Its own team's summarised history, the opposing agent of the same role in the previous
    round only (for a whole-team call: the opposing team's agents), and the judge's latest
    feedback. Nothing else: not the opponent's other agents, not older rounds verbatim.
    """
    round_ = state["round"]
    teams: list[TeamRound] = state.get("teams", [])
    own = team_round(teams, team, round_ - 1)
    other = opponent(team)
    if role == "comprehensive":
        said = team_round(teams, other, round_ - 1)
        opposing = (
            f"{said.conclusion or 'no conclusion'}: {clip(said.analysis, OPPONENT_CHARS)}" if said else ""
        )
    else:
        roles = HALU_PERSPECTIVES if role == "team" else (role,)
        views = [
            v
            for v in state.get("views", [])
            if v.team == other and v.role in roles and v.round == round_ - 1 and v.failed is None
        ]
        opposing = "\n".join(f"{v.role}: {v.conclusion}: {clip(v.analysis, OPPONENT_CHARS)}" for v in views)
    judgements: list[Judgement] = state.get("judgements", [])
    return {
        "own_history": fence(clip(own.summary, HISTORY_CHARS)) if own and own.summary else EMPTY,
        "opponent": fence(opposing) or EMPTY,
        "feedback": fence(clip(judgements[-1].feedback, FEEDBACK_CHARS)) if judgements else EMPTY,
    }


def vote(
    views: Sequence[Concluded], teams: list[TeamRound], weights: Mapping[str, float] | None = None
) -> Literal[0, 1] | None:
    """The vote of every conclusion: 1 when 'no_hallucination' weighs more, a tie is 0.

    Each conclusion counts its agent's weight (a team's, its Comprehensive agent's); one each
    without ``weights``.
    """
    counts: defaultdict[str, float] = defaultdict(float)
    voters: list[Concluded] = [*views, *teams]
    for x in voters:
        if x.conclusion:
            agent = "comprehensive" if isinstance(x, TeamRound) else getattr(x, "role", "")
            counts[x.conclusion] += weights.get(agent, 1.0) if weights else 1.0
    if not counts:
        return None
    return 1 if counts["no_hallucination"] > counts["hallucination"] else 0


def final_label(
    judgements: list[Judgement],
    views: list[AgentView],
    teams: list[TeamRound],
    rule: Literal["checked", "paper"] = "checked",
    weights: Mapping[str, float] | None = None,
) -> tuple[Literal[0, 1] | None, Literal["teams", "judge", "vote"] | None]:
    """The label: the last ruling's winner (pro -> 1, con -> 0), else the last round's vote.

    Under the 'checked' rule a ruling against what both teams' Comprehensive agents concluded in
    the round it judged gives way to that conclusion: the 1.5B judge named Con over two teams
    that both cleared a right answer (dispute 0.00, HaluEval). A team whose conclusion is a
    stand-in vote does not count.
    """
    if judgements and judgements[-1].winner != "uncertain":
        ruled = judgements[-1]
        pro, con = (team_round(teams, t, ruled.round) for t in HALU_TEAMS)
        spoke = all(t is not None and t.failed is None and t.by != "vote" for t in (pro, con))
        agreed = agreed_conclusion(pro, con) if spoke and rule == "checked" else None
        if agreed is not None and WINNER_OF[agreed] != ruled.winner:
            return (1 if agreed == "no_hallucination" else 0), "teams"
        return (1 if ruled.winner == "pro" else 0), "judge"
    last = max([v.round for v in views] + [t.round for t in teams], default=0)
    label = vote([v for v in views if v.round == last], [t for t in teams if t.round == last], weights)
    return label, ("vote" if label is not None else None)


def p_no_hallucination(judgement: Judgement | None, decided_by: str | None) -> float | None:
    """The deciding judge's confidence in its winner as a probability of label 1 (no hallucination).

    From the winner's tokens it is P(pro) against P(con), so "uncertain" leans neither way. None
    when the teams or a vote decided: an overruled judge's number would contradict the label.
    """
    if (
        decided_by != "judge"
        or judgement is None
        or judgement.confidence is None
        or judgement.winner == "uncertain"
    ):
        return None
    tokens = judgement.winner_probabilities or {}
    pro, con = tokens.get("pro", 0.0), tokens.get("con", 0.0)
    if pro + con > 0:
        return pro / (pro + con)
    return judgement.confidence if judgement.winner == "pro" else 1 - judgement.confidence


def team_said(result: TeamRound, views: list[AgentView], limit: int) -> str:
    """A team's explained conclusion in ``limit`` characters.

    A one-call team's perspectives share the room, so the factual check (written last) is not the
    part cut away.
    """
    own = [v for v in views if v.team == result.team and v.round == result.round]
    if result.by != "team_call" or not own:
        return clip(result.analysis, limit)
    labels = sum(len(f"{v.role}: ") for v in own) + len("; ") * (len(own) - 1)
    said = clip_to_budget([v.analysis for v in own], limit - labels)
    return "; ".join(f"{v.role}: {text}" for v, text in zip(own, said, strict=True))


def first_round_label(
    judgements: list[Judgement],
    views: list[AgentView],
    teams: list[TeamRound],
    rule: Literal["checked", "paper"] = "checked",
    weights: Mapping[str, float] | None = None,
) -> Literal[0, 1] | None:
    """The label the debate had after round 1, by the same rule as the final one."""
    first = lambda items: [x for x in items if x.round == 1]  # noqa: E731
    return final_label(first(judgements), first(views), first(teams), rule, weights)[0]


def teams_of_round(teams: list[TeamRound], round_: int) -> dict[HaluTeam, TeamRound | None]:
    """Both teams' results of a round."""
    return {team: team_round(teams, team, round_) for team in HALU_TEAMS}
