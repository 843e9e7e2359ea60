"""Typed shared state of the graphs and the structured outputs the agents answer with.

Graph states are ``TypedDict``s whose list fields that parallel or repeated nodes append to
carry an ``operator.add`` reducer. Records that cross node boundaries are Pydantic models so
they validate, serialise to JSON and render in LangGraph Studio.
"""

from __future__ import annotations

import copy
import functools
import math
import operator
from typing import Annotated, Any, Literal

from langgraph.channels import DeltaChannel
from pydantic import BaseModel, BeforeValidator, Field, model_validator
from typing_extensions import TypedDict

Verdict = Literal["supported", "refuted", "not_enough_evidence", "conflicting_evidence"]
VERDICTS: tuple[Verdict, ...] = (
    "supported",
    "refuted",
    "not_enough_evidence",
    "conflicting_evidence",
)


# --------------------------------------------------------------------------- records


class Usage(BaseModel):
    """Model and search calls with the tokens the servers reported."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    search_calls: int = 0
    unparsable: int = Field(default=0, description="answers that failed validation and were asked again")
    by_role: dict[str, dict[str, int]] = Field(default_factory=dict)

    def __add__(self, other: Usage) -> Usage:
        """Sum two usages, role by role."""
        by_role = {role: dict(v) for role, v in self.by_role.items()}
        for role, counts in other.by_role.items():
            mine = by_role.setdefault(role, {})
            for key, value in counts.items():
                mine[key] = mine.get(key, 0) + value
        return Usage(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            search_calls=self.search_calls + other.search_calls,
            unparsable=self.unparsable + other.unparsable,
            by_role=by_role,
        )

    @classmethod
    def model_call(cls, role: str, input_tokens: int, output_tokens: int) -> Usage:
        """Usage of one model call made by ``role``."""
        counts = {"calls": 1, "input_tokens": input_tokens, "output_tokens": output_tokens}
        return cls(**counts, by_role={role: dict(counts)})

    @classmethod
    def search_call(cls) -> Usage:
        """Usage of one search call."""
        return cls(search_calls=1, by_role={"search": {"search_calls": 1}})


def add_usage(left: Usage | None, right: Usage | None) -> Usage:
    """Reducer for usage fields (tolerates a missing side)."""
    return (left or Usage()) + (right or Usage())


class Evidence(BaseModel):
    """One retrieved or given piece of evidence."""

    text: str
    url: str = Field(default="", description="URL, or document id for local corpora")
    title: str = ""
    source: str = Field(default="", description="backend that produced it: tavily, local, ...")
    query: str = Field(default="", description="the query that found it")


class Claim(BaseModel):
    """An atomic, self-contained, check-worthy claim."""

    id: str
    text: str
    sentence: str = Field(default="", description="the response sentence it came from")
    span: tuple[int, int] | None = Field(
        default=None, description="character offsets of that sentence in the response"
    )


class DroppedSentence(BaseModel):
    """A sentence the Clerk judged not check-worthy, with its reason."""

    sentence: str
    reason: Literal[
        "opinion",
        "instruction",
        "advice",
        "not_verifiable",
        "other",
        "clerk_failed",
        "over_limit",
        "unresolved_reference",
    ]
    error: str | None = Field(default=None, description="why the Clerk failed on it (clerk_failed)")


class Turn(BaseModel):
    """One agent's contribution to a debate."""

    speaker: str
    round: int
    verdict: Verdict | None = None
    confidence: float | None = None
    text: str = Field(default="", description="explanation or argument")
    citations: list[int] = Field(default_factory=list, description="evidence numbers cited")
    retrieved_before: bool = Field(default=False, description="evidence was fetched for it")
    failed: str | None = Field(default=None, description="why the turn produced no answer")
    probabilities: dict[str, float] | None = Field(
        default=None, description="verdict distribution read from the answer's token log-probabilities"
    )
    raw_probabilities: dict[str, float] | None = Field(
        default=None, description="the verdict distribution before calibration (first pass)"
    )
    readings: list[float] = Field(
        default_factory=list, description="raw P(supported) of each label reading (first pass)"
    )
    calls: int = Field(default=1, description="model calls the turn took (an unsure first answer adds one)")
    dropped_citations: int = Field(default=0, description="citations of evidence that was never shown")
    rejected_change: Verdict | None = Field(
        default=None,
        description="a verdict the speaker moved to without new evidence or a flaw of its own; not counted",
    )


class RoundSummary(BaseModel):
    """The moderator's summary of a round."""

    round: int
    summary: str
    new_insights: bool
    gaps: str = ""
    stop: bool
    verdict: Verdict
    justification: str


class ClaimResult(BaseModel):
    """The outcome of checking one claim."""

    claim: Claim
    verdict: Verdict | None = None
    justification: str = ""
    votes: dict[str, Verdict] = Field(default_factory=dict)
    confidence: float | None = None
    p_true: float | None = Field(
        default=None,
        description="probability that the claim is true, from logprobs (calibrated where a fit is stored)",
    )
    p_true_raw: float | None = Field(default=None, description="p_true before calibration")
    route: Literal["first_pass", "debate"] | None = Field(
        default=None, description="decided by the first pass, or debated"
    )
    first_pass: Turn | None = Field(default=None, description="the one-call verdict before any debate")
    first_round_verdict: Verdict | None = Field(default=None, description="the jury's round-1 majority")
    rounds: int = 0
    turns: list[Turn] = Field(default_factory=list)
    summaries: list[RoundSummary] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    error: str | None = None
    uncovered_language: str | None = Field(
        default=None,
        description="the claim's language when the local corpus holds none of it: no evidence could be found",
    )


class Edit(BaseModel):
    """One change the corrector made to the response."""

    original: str
    replacement: str
    span: tuple[int, int] | None = None
    claim_id: str
    evidence: list[str] = Field(default_factory=list, description="URLs it rests on")


class CorrectionFailure(BaseModel):
    """A sentence the corrector could not rewrite (it stays as it was)."""

    claim_id: str
    error: str | None


class Correction(BaseModel):
    """The corrector's output: the revised response, its edits and the rewrites that failed."""

    text: str
    edits: list[Edit] = Field(default_factory=list)
    failed: list[CorrectionFailure] = Field(default_factory=list)


# ------------------------------------------------------------ structured agent outputs


class AgentAnswer(BaseModel):
    """Base of the models agents answer with: their JSON schema is built once.

    langchain asks for the schema of a structured-output model on every call (to label the
    trace), and pydantic builds it anew each time: an eighth of the framework's time per call.
    """

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Pydantic's schema, memoised per class and arguments; callers get their own copy."""
        return copy.deepcopy(_json_schema(cls, args, tuple(sorted(kwargs.items()))))


# Room for the reasoning written before a verdict. At 200 characters 55 of 60 first-pass
# explanations on HaluEval were cut before reaching their conclusion, leaving the verdict a
# guess; unbounded, the embedded model's reasoning there ran to 606 characters at most.
REASONING_CHARS = 700


def text(description: str, max_chars: int, **kwargs: Any) -> Any:
    """A free-text answer field whose length the schema bounds.

    The embedded server's LLGuidance grammar (long-form answers) enforces ``maxLength`` while
    decoding, so a small model cannot ramble past ``max_tokens``; its json_schema output
    (verdicts) and other endpoints may not. The bound is not validated afterwards, so an
    endpoint that ignores it is never rejected for a long answer.
    """
    return Field(description=description, json_schema_extra={"maxLength": max_chars}, **kwargs)


def _as_probability(value: Any) -> Any:
    """Read 95 or "95%" as 0.95: small models often answer confidence in percent."""
    if isinstance(value, str):
        value = value.strip().rstrip("%")
        try:
            value = float(value)
        except ValueError:
            return value
    if isinstance(value, int | float) and 1.0 < value <= 100.0:
        return value / 100.0
    return value


Probability = Annotated[float, BeforeValidator(_as_probability)]


def _as_clamped_probability(value: Any) -> Any:
    """A probability clamped to [0, 1], for the hallucination judge's numbers.

    The constrained output let the 1.5B judge write -1.0 for every dispute score (HaluEval): that
    says "no dispute", and failing the judge on it ended the debate a round early.
    """
    value = _as_probability(value)
    if isinstance(value, int | float) and not math.isnan(value):
        return min(1.0, max(0.0, value))
    return value  # NaN and text fail validation


ClampedProbability = Annotated[float, BeforeValidator(_as_clamped_probability)]


@functools.cache
def _json_schema(cls: type[BaseModel], args: tuple, kwargs: tuple) -> dict[str, Any]:
    return BaseModel.model_json_schema.__func__(cls, *args, **dict(kwargs))  # type: ignore[attr-defined]


class ClerkClaim(BaseModel):
    """A claim as the Clerk writes it."""

    sentence: str = text("the sentence of the response it comes from, verbatim", 600)
    claim: str = text("one atomic fact, self-contained: pronouns resolved", 300)


class ClerkDrop(BaseModel):
    """A sentence the Clerk leaves out."""

    sentence: str = text("the sentence, verbatim", 600)
    reason: Literal["opinion", "instruction", "advice", "not_verifiable", "other"]


class ClerkOutput(AgentAnswer):
    """The Clerk's answer for one chunk of the response."""

    claims: list[ClerkClaim] = Field(default_factory=list)
    dropped: list[ClerkDrop] = Field(default_factory=list)


class ResolvedClaims(AgentAnswer):
    """The Clerk's self-contained rewrites of claims, in the order given."""

    claims: list[str] = Field(description="each claim rewritten with every reference replaced by its name")


class JurorAnswer(AgentAnswer):
    """An evaluator's answer in a jury turn."""

    # the reasoning comes first: grammar-constrained local models write fields in order, and a
    # verdict written before its reason is a guess
    explanation: str = text("why, citing evidence numbers like [E1]", REASONING_CHARS)
    verdict: Verdict
    confidence: Probability = Field(
        ge=0.0, le=1.0, description="probability, 0 to 1, that your own verdict is correct"
    )
    search_query: str = text("a new web search query that would help, or empty", 120, default="")


class DebaterAnswer(AgentAnswer):
    """A debater's argument in an adversarial turn."""

    argument: str = text("the argument, citing evidence as [E1] (content, URL)", 400)
    citations: list[int] = Field(default_factory=list, description="numbers of cited evidence")
    confidence: Probability = Field(
        ge=0.0, le=1.0, description="probability, 0 to 1, that your side is right"
    )
    search_query: str = text("a new web search query that would help, or empty", 120, default="")


class ModeratorAnswer(AgentAnswer):
    """The moderator's end-of-round decision."""

    summary: str = text("the new insights of this round", 300)
    new_insights: bool = Field(description="did this round add anything not said before?")
    gaps: str = text("evidence still missing", 200, default="")
    stop: bool = Field(description="true when the debate has converged")
    justification: str = text("why, citing the debate and the evidence", 300)
    verdict: Verdict


class SearchQuery(AgentAnswer):
    """A new search query for a claim."""

    query: str = text("the query", 120)


class Rating(AgentAnswer):
    """A single verifier's verdict (the ``single`` and ``safe`` baselines)."""

    explanation: str = text("why, citing evidence numbers like [E1]", REASONING_CHARS)
    verdict: Verdict


class Label(AgentAnswer):
    """The verdict alone, no reasoning first: its probability is read from the label's first token."""

    verdict: Literal["supported", "refuted"]


class FireStep(AgentAnswer):
    """One step of the FIRE baseline: answer now, or search again."""

    reasoning: str = text("what the evidence so far shows", REASONING_CHARS)
    action: Literal["answer", "search"]
    search_query: str = text("the next query, when searching", 120, default="")
    verdict: Verdict = Field(description="the best verdict now")
    confidence: Probability = Field(ge=0.0, le=1.0, description="probability the verdict is correct")


class CorrectorAnswer(AgentAnswer):
    """The words of a sentence the evidence contradicts, and what replaces them.

    The corrected sentence is the original with ``wrong`` replaced by ``right``: asked for the
    whole sentence, the 1.5B model handed it back unchanged for 14 of 30 refuted claims.
    """

    wrong: str = text("the false words, copied exactly from the sentence", 400)
    right: str = text("what replaces them, as the evidence states it; empty to remove the sentence", 400)


class SftJustification(AgentAnswer):
    """A justification leading from the debate to the given verdict."""

    justification: str = text("the justification", 600)


# ---------------------------------------------------------------------- graph states


class ClaimInput(TypedDict, total=False):
    """What the single-claim graph (``verify``) takes."""

    claim: Claim
    """The claim to check."""
    question: str
    """The question the claim answers, as context (optional)."""
    given_evidence: list[Evidence]
    """Evidence supplied with the input (golden setting)."""
    language: Literal["en", "zh"]
    """Language of the prompts; detected from the claim when missing."""


class ClaimOutput(TypedDict):
    """What the single-claim graph hands back: one result, appended by the parent."""

    results: Annotated[list[ClaimResult], operator.add]
    """Checked claims."""


class ClaimState(ClaimInput, ClaimOutput, total=False):
    """Working state of one claim's debate."""

    evidence: Annotated[list[Evidence], operator.add]
    """The claim's shared knowledge base."""
    queries: Annotated[list[str], operator.add]
    """Queries already made for this claim (never repeated)."""
    turns: Annotated[list[Turn], operator.add]
    """The message pool: every turn so far."""
    summaries: Annotated[list[RoundSummary], operator.add]
    """The moderator's round summaries (adversarial protocol)."""
    round: int
    """Round of the next turn, from 1."""
    turn_in_round: int
    """Index of the next speaker within the round."""
    awaiting_evidence: bool
    """The last speaker was unsure: retrieve, then let it answer again."""
    retrieved_for_turn: bool
    """Evidence was fetched for the speaker about to answer."""
    suggested_query: str
    """The query the unsure speaker proposed."""
    unsure_calls: int
    """Calls spent on an unsure first answer, charged to the speaker's next turn."""
    first_pass: Turn
    """The one-call verdict that decides confident claims before any debate."""
    decided: bool
    """The first pass was sure enough: no debate."""
    stop: bool
    """The moderator closed the debate."""
    usage: Annotated[Usage, add_usage]
    """Calls and tokens spent on this claim."""
    error: str
    """Why this claim could not be checked."""


class FactcheckInput(TypedDict, total=False):
    """What the long-form graph (``factcheck``) takes."""

    response: str
    """The long-form text to check."""
    question: str
    """The question it answers (optional, helps the Clerk resolve references)."""


class FactcheckState(FactcheckInput, total=False):
    """Working state of a long-form check."""

    language: Literal["en", "zh"]
    """Language of the response, detected."""
    claims: list[Claim]
    """The Clerk's atomic claims."""
    dropped: list[DroppedSentence]
    """Sentences left out, with the reason."""
    results: Annotated[list[ClaimResult], operator.add]
    """One result per claim, appended by the parallel claim branches."""
    scores: dict[str, float | int | None]
    """Response-level counts and precision."""
    usage: Annotated[Usage, add_usage]
    """Calls and tokens outside the claim branches (Clerk, corrector)."""
    correction: Correction | None
    """The corrector's revised response, when it ran."""


def checkpointed_types() -> list[tuple[str, str]]:
    """The models of this module a checkpoint may hold, for the checkpointer's allow-list.

    Registered, they deserialize without langgraph's "unregistered type" warning, and a
    checkpoint naming any other class is refused.
    """
    return [
        (__name__, name)
        for name, value in globals().items()
        if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == __name__
    ]


# ------------------------------------------- hallucination detection (IMPD-MACD, `hallucination`)

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
    """The judge's scoring of one round (dispute 0 = the teams agree, 1 = opposite)."""

    round: int
    logic: float
    fact: float
    coherence: float
    overall: float
    dispute: float = Field(description="weighted dispute J_t of the four scores")
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
    p_no_hallucination: float | None = Field(
        default=None,
        description="the deciding judge's confidence turned towards label 1; None when the teams or a"
        " vote decided",
    )
    findings: list[HallucinationFinding] = Field(default_factory=list)
    explanation: str = ""
    notes: list[str] = Field(default_factory=list, description="failed agents, judge or refiner")
    error: str | None = Field(default=None, description="why the item could not be judged")


class SubQuestions(AgentAnswer):
    """The information-gathering agent's decomposition of the question."""

    sub_questions: list[str] = Field(
        description="at most 3 simpler questions whose answers settle the question",
        json_schema_extra={"maxItems": 3},
    )
    keywords: list[str] = Field(
        description="at most 5 search keywords: names, titles, places", json_schema_extra={"maxItems": 5}
    )


class KnowledgeStatement(BaseModel):
    """One concise knowledge statement and the fragments it rests on."""

    statement: str = text("one fact relevant to the question, in one sentence", 300)
    sources: list[int] = Field(default_factory=list, description="fragment numbers, e.g. [1, 3]")


class KnowledgeStatements(AgentAnswer):
    """The information-gathering agent's deduplicated knowledge."""

    statements: list[KnowledgeStatement] = Field(
        description="at most 6 statements, no repeats", json_schema_extra={"maxItems": 6}
    )


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


class HallucinationCheck(AgentAnswer):
    """One agent's step-by-step check of an answer (the CoT and MAD baselines)."""

    reasoning: str = text(
        "step by step: what is asked, what the answer claims, what the knowledge shows", REASONING_CHARS
    )
    conclusion: HaluConclusion


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
    role: str
    round: int
    question: str
    answer: str
    knowledge: list[Evidence]
    language: str
    own_history: str
    opponent: str
    feedback: str


# ------------------------------------------- importance pyramid (MAD-Fact §5, `pyramid`) and leaderboard

# A long-form answer's length, bounded in the schema so a grammar-constrained model closes its
# JSON before answer_max_tokens (about 550 English tokens; Chinese needs about one per 1.4 characters)
ANSWER_CHARS = 2400


class LongAnswer(AgentAnswer):
    """An expert's or a target model's long-form answer to a question."""

    answer: str = text("the answer: detailed and factual, in plain prose", ANSWER_CHARS)


class SameFact(AgentAnswer):
    """Which numbered candidate states the same fact as a claim, if any."""

    reasoning: str = text("what the claim states, and which candidate states exactly that", 300)
    match: int = Field(ge=0, description="number of the candidate stating the same fact; 0 when none does")


class ModelAnswer(BaseModel):
    """One model's answer to one question, or why there is none."""

    model: str
    text: str = ""
    error: str | None = Field(default=None, description="why the model gave no answer")
    usage: Usage = Field(default_factory=Usage)
    seconds: float = 0.0


class ExpertClaims(BaseModel):
    """The Clerk's atomic claims of one expert's answer."""

    expert: str
    claims: list[str] = Field(default_factory=list)
    error: str | None = Field(default=None, description="why the Clerk gave no claims")


class GoldenClaim(BaseModel):
    """One fact of the golden set: the experts that stated it fix its layer and weight."""

    id: str
    text: str
    experts: list[str] = Field(description="the experts whose answers state it (f = their number)")
    members: list[str] = Field(default_factory=list, description="the expert claims merged into it")
    layer: int = Field(description="1 = the top: stated by every expert")
    weight: float


class Pyramid(BaseModel):
    """A question's importance pyramid: the golden claims of its experts' answers, in layers."""

    question: str
    language: str = "en"
    experts: list[str] = Field(description="the experts asked")
    answered: list[str] = Field(
        default_factory=list, description="the experts whose answers gave claims: G is their number"
    )
    failed: dict[str, str] = Field(default_factory=dict, description="expert -> why it gave no claims")
    claims: list[GoldenClaim] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="failed merge confirmations")
    usage: Usage = Field(default_factory=Usage)

    @property
    def levels(self) -> int:
        """G: the experts that contributed."""
        return len(self.answered)

    def weights(self) -> dict[str, float]:
        """Weight of each golden claim by id."""
        return {c.id: c.weight for c in self.claims}


class PyramidInput(TypedDict, total=False):
    """What the pyramid graph (``pyramid``) takes."""

    question: str
    """The question the experts answer."""
    answers: dict[str, str]
    """Answers already written, by expert (a leaderboard passes the ones it stored): not asked again."""
    language: Literal["en", "zh"]
    """Language of the prompts; detected from the question when missing."""


class ExpertTask(TypedDict):
    """What one expert's branch is sent."""

    expert: str
    question: str
    language: str
    answer: str
    """The expert's answer when it was given, else empty."""


class PyramidState(PyramidInput, total=False):
    """Working state of a pyramid."""

    expert_answers: Annotated[list[ModelAnswer], operator.add]
    """Each expert's answer (parallel branches append)."""
    expert_claims: Annotated[list[ExpertClaims], operator.add]
    """The Clerk's claims of each answer."""
    pyramid: Pyramid
    """The golden set in layers."""
    usage: Annotated[Usage, add_usage]
    """Calls and tokens spent (answers, Clerk, merge)."""


# --------------------------------------------- LongHalluQA-style question builder (`longqa`)

FactOutcome = Literal["kept", "low_confidence", "contested", "refuted", "unverified", "failed"]


class Seed(BaseModel):
    """A short seed question (HalluQA style) that the builder turns into a long-form question."""

    id: str
    question: str
    source: str = Field(default="", description="the seed's own source statement")
    answers: list[str] = Field(default_factory=list, description="its best answers")
    kind: str = Field(default="", description="the seed set's category, e.g. Misleading or Knowledge")
    category: str = Field(default="", description="the seed set's class, e.g. 历史 or 文学")


class KnowledgeTriple(BaseModel):
    """(original question, related knowledge, category), with the verifier's judgement of it."""

    id: str = Field(description="seed id and fact number, e.g. 12-k3")
    question: str
    knowledge: Evidence
    sources: list[Evidence] = Field(default_factory=list, description="the fragments it was written from")
    category: str = ""
    verdict: Verdict | None = None
    confidence: float | None = Field(default=None, description="the verdict's probability, from logprobs")
    outcome: FactOutcome | None = None
    reason: str = Field(default="", description="why it was kept or dropped")


class LongQuestion(BaseModel):
    """A long-form question fused from a seed and 1-3 candidate sub-questions."""

    question: str
    topic: str
    candidates: list[list[str]] = Field(description="the candidate sub-question groups (topic clusters)")
    selected: list[int] = Field(description="numbers (from 1) of the candidates fused in")
    reason: str = ""


class FactQuestion(BaseModel):
    """A sub-question and the number of the fact that answers it."""

    fact: int = Field(description="the number of the fact that answers the question")
    question: str = text("the question", 200)


class FactSubQuestions(AgentAnswer):
    """One sub-question per verified fact, each naming its fact, and the seed's topic."""

    # numbered, so that a fact the model skips does not shift the provenance of the rest;
    # bounded, so that a model that loops ends in a short answer, not one cut at max_tokens
    questions: list[FactQuestion] = Field(
        description="one question per fact, each with the number of its fact",
        json_schema_extra={"maxItems": 12},
    )
    topic: str = Field(description="the topic of the seed question, one of the names listed")


class FusedQuestion(AgentAnswer):
    """The chosen candidates and the long-form question that integrates them with the original."""

    selected: list[int] = Field(
        description="numbers of the 1 to 3 candidates chosen", json_schema_extra={"maxItems": 3}
    )
    reason: str = text("why these candidates: accuracy, coherence, logical fit", 300)
    question: str = text("the new long-form question", 600)


class LongQAInput(TypedDict, total=False):
    """What the builder graph (``longqa``) takes: one seed."""

    seed: Seed
    """The seed question."""
    language: Literal["en", "zh"]
    """Language of the prompts; detected from the seed when missing."""


class LongQAState(LongQAInput, total=False):
    """Working state of building one long-form question."""

    queries: list[str]
    """Queries searched."""
    gathered: list[KnowledgeTriple]
    """Knowledge triples before verification."""
    triples: Annotated[list[KnowledgeTriple], operator.add]
    """Knowledge triples with the verifier's outcome (parallel branches append)."""
    sub_questions: dict[str, str]
    """One sub-question per kept fact, by triple id."""
    topic: str
    """The seed's topic, one of the context's ``longqa_topics`` (or 'other')."""
    clusters: list[list[str]]
    """Topic clusters of the sub-questions: the candidates for fusion."""
    built: LongQuestion
    """The long-form question."""
    notes: Annotated[list[str], operator.add]
    """What the run should tell the reader: an uncovered language, a failed step."""
    usage: Annotated[Usage, add_usage]
    """Calls and tokens spent."""
    not_built: str
    """Why the model's writing gave no long-form question (only the seed again, a loop): final,
    unlike ``error``, so a rerun does not ask again."""
    error: str
    """Why no question was built (bad seed, search down, failed call): the seed is tried again."""


class FactTask(TypedDict):
    """What one fact's verification branch is sent."""

    triple: KnowledgeTriple
    language: str


# ---------------------------------------------------------------- FACT-AUDIT (`audit`)

TestMode = Literal["claim", "evidence", "wisdom of crowds"]
AuditVerdict = Literal["Factual", "Non-Factual", "Not Enough Information"]


class AuditCase(AgentAnswer):
    """A test case: a source claim, its auxiliary information and the key point it examines."""

    test_mode: TestMode
    source_claim: str = text("the claim to fact-check", 400)
    auxiliary_info: list[str] = Field(
        default_factory=list,
        description="empty for claim; evidence pieces, or replies of a conversation thread",
        json_schema_extra={"maxItems": 8},
    )
    key_point: str = text("what the case examines, at most 15 words", 150)


class AuditCases(AgentAnswer):
    """A batch of test cases (the Inquirer's seeds, or the Quality Inspector's revision)."""

    cases: list[AuditCase]


class Appraisal(AgentAnswer):
    """The Appraiser's answer: the taxonomy is comprehensive (stop), or a new scenario."""

    explanation: str = text("how the issue was found, or why the taxonomy is comprehensive", 400)
    stop: bool = Field(description="true ([[Stop]]) when the taxonomy is comprehensive")
    task_name: str = text("the new scenario's name, snake_case", 80, default="")

    @model_validator(mode="after")
    def _proposal_has_a_name(self) -> Appraisal:
        if not self.stop and not self.task_name.strip():
            raise ValueError("a new scenario needs a task_name (or stop: true)")
        return self


class Scenario(BaseModel):
    """A test scenario of an object's taxonomy."""

    object: str
    name: str
    added: bool = Field(default=False, description="added by the Appraiser, not in the initial taxonomy")
    explanation: str = ""


class AppraiserTurn(BaseModel):
    """One Appraiser turn and what became of it."""

    object: str
    outcome: Literal["stop", "accepted", "rejected", "failed"]
    proposal: str = ""
    explanation: str = ""
    reason: str = Field(default="", description="the scenario judge's reason, or why the turn failed")


class CaseRecord(BaseModel):
    """A memory-pool entry: the case, the target's response, the reference, grade and comment."""

    id: str
    object: str
    scenario: str
    origin: Literal["seed", "probe"]
    case: AuditCase | None = None
    wiki_check: bool | None = Field(
        default=None, description="[evidence] cases: the corpus check passed; None when not checked"
    )
    status: Literal["pending", "graded", "target_failed", "dropped"] = "pending"
    reference: str = ""
    reference_label: AuditVerdict | None = None
    response: str = ""
    response_label: AuditVerdict | None = None
    grade: float | None = None
    comment: str = ""
    error: str | None = Field(default=None, description="why the case was dropped or not graded")
    usage: Usage = Field(default_factory=Usage)


def append_records(records: list[CaseRecord], batches: list[list[CaseRecord]]) -> list[CaseRecord]:
    """Reducer of the memory pool (a delta channel: checkpoints hold the new records only)."""
    return [*records, *(record for batch in batches for record in batch)]


class AuditInput(TypedDict, total=False):
    """What the audit graph (``audit``) takes."""

    objects: list[str]
    """Fact-checking objects to audit, in order: complex_claim, fake_news, social_rumor (default all)."""


class AuditState(AuditInput, total=False):
    """Working state of an audit."""

    object_index: int
    """Index in ``objects`` of the object being audited."""
    taxonomy: list[Scenario]
    """Every object's scenarios so far, the added ones marked."""
    queue: list[str]
    """Scenarios of the current object still to audit."""
    scenario: str
    """The scenario being audited."""
    pending: list[CaseRecord]
    """Cases written and not yet evaluated (the Inquirer's seeds, or one probe)."""
    memory: Annotated[list[CaseRecord], DeltaChannel(append_records)]
    """The memory pool: every case with its response, reference, grade and comment."""
    proposal: Scenario | None
    """The Appraiser's proposal the scenario judge is to accept or reject."""
    appraisals: Annotated[list[AppraiserTurn], operator.add]
    """Every Appraiser turn and its outcome."""
    refusals: int
    """Appraiser turns in a row that added no scenario."""
    stops: dict[str, str]
    """Why each object's taxonomy stopped growing: appraiser_stop, rejections, scenario_cap."""
    notes: Annotated[list[str], operator.add]
    """Failures that did not drop a case (a Quality Inspector pass that did not parse, ...)."""
    usage: Annotated[Usage, add_usage]
    """Calls and tokens spent, by role."""
    error: str
    """Why the audit could not run (bad input)."""
