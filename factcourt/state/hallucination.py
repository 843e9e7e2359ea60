"""Typed state of the hallucination debate (graph ``hallucination``, IMPD-MACD)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, create_model
from typing_extensions import TypedDict

from factcourt.state.records import (
    AgentAnswer,
    ClampedProbability,
    Evidence,
    Probability,
    Result,
    Usage,
    add_usage,
    text,
)

HaluTeam = Literal["pro", "con"]


HaluRole = Literal["logic", "consistency", "factual", "comprehensive"]


HaluConclusion = Literal["no_hallucination", "hallucination"]


HaluType = Literal["logical", "factual", "context_inconsistency", "false_premise"]


HALU_TEAMS: tuple[HaluTeam, ...] = ("pro", "con")


HALU_PERSPECTIVES: tuple[HaluRole, ...] = ("logic", "consistency", "factual")


# The team's summarised history (the paper's L): a cap on what each round carries forward.
HISTORY_CHARS = 600


class AgentView(BaseModel):
    """One debater's analysis in one round of the hallucination debate."""

    team: HaluTeam
    role: HaluRole
    round: int
    analysis: str = ""
    conclusion: HaluConclusion | None = None
    failed: str | None = Field(default=None, description="why the agent produced no answer")


class TeamRound(BaseModel):
    """A team's result of one round: the Comprehensive agent's conclusion and summary."""

    team: HaluTeam
    round: int
    conclusion: HaluConclusion | None = None
    analysis: str = Field(default="", description="the team's conclusion, explained")
    summary: str = Field(default="", description="the team's summarised history after this round")
    false_premise: bool = Field(default=False, description="the question rests on a false premise")
    by: Literal["comprehensive", "team_call", "vote"] = Field(
        default="comprehensive",
        description="who wrote it: the Comprehensive agent, the team's single call, or a vote of the agents",
    )
    failed: str | None = Field(default=None, description="why the Comprehensive agent gave no answer")


class Judgement(BaseModel):
    """The judge's scoring of one round: dispute (0 = the teams agree, 1 = opposite) or quality."""

    round: int
    logic: float
    fact: float
    coherence: float
    overall: float
    scored: Literal["dispute", "quality"] = Field(
        default="dispute", description="what the four scores measure (hallucination_scores)"
    )
    dispute: float = Field(description="J_t: the weighted four scores, times c_t where the run asks it")
    consensus: bool
    winner: Literal["pro", "con", "uncertain"]
    confidence: float | None = Field(
        default=None,
        description="the judge's confidence in its winner: the winner's token probability, else the c_t"
        " it states (per confidence_source); None in runs made before it was asked",
    )
    winner_probabilities: dict[str, float] | None = Field(
        default=None, description="pro, con and uncertain as read from the winner's tokens, when they gave it"
    )
    feedback: str = ""
    reasoning: str = ""
    quality: float | None = Field(
        default=None,
        description="Q_t, the round's interaction quality shown to the judge (IMPD-MACD Eq. 13); None "
        "unless hallucination_jt='paper'",
    )


class HallucinationFinding(BaseModel):
    """One hallucination the report names, with its probability, span and evidence."""

    type: HaluType
    probability: float
    span: str = Field(default="", description="the part of the answer (or question) it concerns")
    verbatim: bool = Field(
        default=False, description="the span occurs word for word in the answer or question"
    )
    evidence: str = Field(default="", description="the knowledge that shows it")


class HallucinationReport(BaseModel):
    """The Refiner's report: label 1 = no hallucination, 0 = hallucination."""

    label: Literal[0, 1] | None = None
    verdict: HaluConclusion | None = None
    decided_by: Literal["teams", "judge", "vote"] | None = None
    winner: Literal["pro", "con", "uncertain"] | None = None
    first_round_label: Literal[0, 1] | None = Field(
        default=None, description="the label after round 1: the debate's flips compare it with the label"
    )
    rounds: int = 0
    stop_reason: str = ""
    dispute: float | None = None
    quality: float | None = Field(
        default=None, description="Q_final, the mean Q_t of the judged rounds (Eq. 3); None unless measured"
    )
    p_no_hallucination: float | None = Field(
        default=None,
        description="the deciding judge's confidence turned towards label 1; None when the teams or a"
        " vote decided",
    )
    findings: list[HallucinationFinding] = Field(default_factory=list)
    explanation: str = ""
    notes: list[str] = Field(default_factory=list, description="failed agents, judge or refiner")
    error: str | None = Field(default=None, description="why the item could not be judged")


class DetectSettings(BaseModel):
    """The settings a detection ran with, as its result names them."""

    search: str | None = None
    model: str | None = None
    layout: str | None = None
    judge: str | None = None
    scores: str | None = None
    jt: str | None = None
    retrieval: str | None = None
    agents: list[str] = Field(default_factory=list)
    epsilon: float | None = None
    max_rounds: int | None = None


class DetectResult(Result, HallucinationReport):
    """``detect``'s result: the item, the Refiner's report, the knowledge, the debate and its cost."""

    kind: Literal["detect"] = "detect"  # the published kind: the command's name
    question: str = ""
    answer: str = ""
    knowledge: list[Evidence] = Field(default_factory=list)
    stance_knowledge: dict[str, list[Evidence]] = Field(default_factory=dict)
    sub_questions: list[str] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    transcript: list[AgentView] = Field(default_factory=list, description="every agent's analysis")
    teams: list[TeamRound] = Field(default_factory=list)
    judgements: list[Judgement] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    settings: DetectSettings = Field(default_factory=DetectSettings)

    @classmethod
    def has_shape(cls, data: dict[str, Any]) -> bool:
        """The answer judged and the Refiner's findings."""
        return "answer" in data and "findings" in data

    def failure(self) -> str | None:
        """Why the answer has no label."""
        return f"the answer could not be judged: {self.error}" if self.error else None

    def tally(self) -> tuple[int, list[str]]:
        """Its label, as a verdict."""
        return 0, ["no_hallucination" if self.label == 1 else "hallucination"]


class PerspectiveAnswer(AgentAnswer):
    """A Logic, Context-Consistency or Factual agent's analysis."""

    analysis: str = text("your key points, citing knowledge as [E1]", 500)
    conclusion: HaluConclusion


def _false_premise() -> Any:
    return Field(description="true when the question itself rests on a false premise")


def _team_summary() -> Any:
    return text("the team's debate so far, condensed (earlier summary plus this round)", HISTORY_CHARS)


class ComprehensiveAnswer(AgentAnswer):
    """A team's Comprehensive agent: the team's conclusion and its summarised history."""

    analysis: str = text("the team's conclusion explained: the issues found, with evidence", 500)
    false_premise: bool = _false_premise()
    summary: str = _team_summary()
    conclusion: HaluConclusion


class TeamAnswer(AgentAnswer):
    """A whole team in one call: the three perspectives as fields, then the conclusion."""

    logic: str = text("Logic: the reasoning from question to answer", 300)
    consistency: str = text("Context consistency: does it answer the question, without contradiction", 300)
    factual: str = text("Factual: each fact checked against the knowledge, citing [E1]", 300)
    false_premise: bool = _false_premise()
    summary: str = _team_summary()
    conclusion: HaluConclusion


class JudgeAnswer(AgentAnswer):
    """The judge's scoring of a round of the hallucination debate."""

    reasoning: str = text(
        "what the knowledge shows about the answer's main claim and which team's conclusion it supports,"
        " citing [E1]",
        500,
    )
    logic_dispute: ClampedProbability = Field(
        ge=0.0, le=1.0, description="0 = the teams agree on the reasoning, 1 = opposite"
    )
    fact_dispute: ClampedProbability = Field(
        ge=0.0, le=1.0, description="0 = they agree on the facts, 1 = opposite"
    )
    coherence_dispute: ClampedProbability = Field(
        ge=0.0,
        le=1.0,
        description="0 = they agree on whether it answers the question coherently, 1 = opposite",
    )
    overall_dispute: ClampedProbability = Field(
        ge=0.0, le=1.0, description="0 = they agree overall, 1 = opposite"
    )
    consensus: bool = Field(description="true when the teams now agree on whether the answer hallucinates")
    winner: Literal["pro", "con", "uncertain"] = Field(
        description="pro: the answer has no hallucination; con: it hallucinates; uncertain: not decided"
    )
    confidence: ClampedProbability = Field(
        ge=0.0, le=1.0, description="probability, 0 to 1, that the winner you named is right"
    )
    feedback: str = text("what each team must address next round", 300)


# IMPD-MACD App. C.3's s1-s4 (hallucination_scores='quality'), in the place of the dispute scores
QUALITY_SCORES = {
    "logic_quality": "reasoning rigour of the debate: 0 = poor, 1 = excellent",
    "fact_quality": "accuracy of the information the teams used: 0 = poor, 1 = excellent",
    "coherence_quality": "contextual consistency of the teams' analyses: 0 = poor, 1 = excellent",
    "overall_quality": "overall quality of the debate: 0 = poor, 1 = excellent",
}


def _quality_judge() -> type[AgentAnswer]:
    """``JudgeAnswer`` with the four quality scores where it has the dispute scores, in that order."""
    fields: dict[str, Any] = {}
    for name, field in JudgeAnswer.model_fields.items():
        quality = name.replace("_dispute", "_quality")
        if quality in QUALITY_SCORES:
            fields[quality] = (ClampedProbability, Field(ge=0.0, le=1.0, description=QUALITY_SCORES[quality]))
        else:
            fields[name] = (field.annotation, field)
    return create_model(
        "JudgeQualityAnswer",
        __base__=AgentAnswer,
        __doc__="The judge's scoring of a round as IMPD-MACD has it: the quality of the debate.",
        **fields,
    )


JudgeQualityAnswer = _quality_judge()


class RefinerFinding(BaseModel):
    """One hallucination as the Refiner writes it."""

    type: HaluType
    probability: Probability = Field(ge=0.0, le=1.0, description="probability, 0 to 1, that it is real")
    span: str = text("the words of the answer (or question) concerned, verbatim", 200)
    evidence: str = text("the knowledge that shows it, citing [E1]", 300)


class RefinerAnswer(AgentAnswer):
    """The Refiner's report of the debate."""

    explanation: str = text("the verdict explained: relevance of answer to question, issues, evidence", 500)
    findings: list[RefinerFinding] = Field(
        default_factory=list, description="each hallucination found; empty when there is none"
    )


class HallucinationInput(TypedDict, total=False):
    """What the hallucination graph (``hallucination``) takes."""

    question: str
    """The question."""
    answer: str
    """The answer to check for hallucination."""
    given_knowledge: list[Evidence]
    """Knowledge that came with the input (used with search 'given')."""
    language: Literal["en", "zh"]
    """Language of the prompts; detected from the question and answer when missing."""


class HallucinationState(HallucinationInput, total=False):
    """Working state of a hallucination debate."""

    knowledge: list[Evidence]
    """K_ext: the concise knowledge statements every agent sees."""
    stance_knowledge: dict[str, list[Evidence]]
    """Each team's own search results (hallucination_retrieval='stance'), shown to that team only."""
    fragments: list[Evidence]
    """What the searches returned, before refinement."""
    sub_questions: list[str]
    """The gathering agent's sub-questions."""
    queries: list[str]
    """Queries searched."""
    gather_notes: list[str]
    """What the gathering went without: a failed decomposition, statements their sources do not state."""
    round: int
    """The round being debated, from 1."""
    views: Annotated[list[AgentView], operator.add]
    """Every agent's analysis, all rounds (parallel branches append)."""
    teams: Annotated[list[TeamRound], operator.add]
    """Each team's conclusion and summary per round."""
    judgements: Annotated[list[Judgement], operator.add]
    """The judge's scores per round."""
    judge_error: str
    """Why the judge failed (the debate ended with the last good state)."""
    stop_reason: str
    """Why the debate ended: consensus, dispute_below_epsilon, max_rounds, judge_failed."""
    report: HallucinationReport
    """The Refiner's report."""
    usage: Annotated[Usage, add_usage]
    """Calls and tokens spent."""
    error: str
    """Why the item could not be judged (empty input, search down)."""


class AgentTask(TypedDict):
    """What one debater's branch is sent: the item and exactly the history it may see."""

    team: HaluTeam
    role: HaluRole | Literal["team"]
    round: int
    question: str
    answer: str
    knowledge: list[Evidence]
    language: str
    own_history: str
    opponent: str
    feedback: str
