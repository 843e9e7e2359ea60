"""Typed state of the claim court (graphs ``factcheck``, ``verify``): results, corrections, debate turns."""

from __future__ import annotations

import operator
from collections import Counter
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from factcourt.state.records import (
    REASONING_CHARS,
    AgentAnswer,
    Claim,
    DroppedSentence,
    Evidence,
    Probability,
    Result,
    Turn,
    Usage,
    Verdict,
    add_usage,
    text,
)


class RoundSummary(BaseModel):
    """The moderator's summary of a round."""

    round: int
    summary: str
    new_insights: bool
    gaps: str = ""
    proceeding: str = Field(
        default="", description="why the debate should go on (DebateCV's 'Justification for Proceeding')"
    )
    stop: bool
    verdict: Verdict | None = Field(
        description="the verdict the round supports; None while the debate proceeds under the paper's prompts"
    )
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
    ruling: Turn | None = Field(default=None, description="the Judge agent's ruling (jury_judge='model')")
    rounds: int = 0
    turns: list[Turn] = Field(default_factory=list)
    summaries: list[RoundSummary] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    error: str | None = None
    unchecked_reason: str | None = Field(
        default=None,
        description="why the evidence decides nothing: the reason of a not_enough_evidence verdict",
    )
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


class ModeratorRoundPaper(AgentAnswer):
    """The moderator's end-of-round answer under DebateCV's own prompt (App. B.2), field for field."""

    primary_insight: str = text('"Primary Insight": the main new insights of this round', 300)
    evidence_gaps: str = text('"Evidence Gaps": missing evidence or arguments', 200, default="")
    justification_for_proceeding: str = text(
        '"Justification for Proceeding": why further debate is needed; blank when it ends', 300, default=""
    )
    proceeding_necessity: Literal["Yes", "No"] = Field(description='"Proceeding Necessity"')
    justification_for_verdict: str = text(
        '"Justification for Verdict"; blank while the debate proceeds', REASONING_CHARS, default=""
    )
    verdict: Verdict | None = Field(default=None, description='"Verdict"; null while the debate proceeds')


class ModeratorFinalPaper(AgentAnswer):
    """The moderator's verdict under DebateCV's final prompt (App. B.2)."""

    justification_for_verdict: str = text(
        '"Justification for Verdict": step by step, from the debate', REASONING_CHARS
    )
    verdict: Verdict = Field(description='"Verdict"')


class CorrectorAnswer(AgentAnswer):
    """The words of a sentence the evidence contradicts, and what replaces them.

    The corrected sentence is the original with ``wrong`` replaced by ``right``: asked for the
    whole sentence, the 1.5B model handed it back unchanged for 14 of 30 refuted claims.
    """

    wrong: str = text("the false words, copied exactly from the sentence", 400)
    right: str = text("what replaces them, as the evidence states it; empty to remove the sentence", 400)


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
    ruling: Turn
    """The Judge agent's verdict over the jury's last turns (``jury_judge='model'``)."""
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
    claims: list[Claim]
    """The Clerk's atomic claims; given with the input (the Clerk's split of this very response made
    before, such as a leaderboard's pyramid), the Clerk is not asked again."""
    dropped: list[DroppedSentence]
    """Sentences left out, with the reason (given with ``claims``)."""


class FactcheckState(FactcheckInput, total=False):
    """Working state of a long-form check."""

    language: Literal["en", "zh"]
    """Language of the response, detected."""
    results: Annotated[list[ClaimResult], operator.add]
    """One result per claim, appended by the parallel claim branches."""
    scores: dict[str, float | int | None]
    """Response-level counts and precision."""
    usage: Annotated[Usage, add_usage]
    """Calls and tokens outside the claim branches (Clerk, corrector)."""
    correction: Correction | None
    """The corrector's revised response, when it ran."""


class ClaimReport(BaseModel):
    """One checked claim as a user gets it: the claim's own fields, then its verdict and debate."""

    id: str = ""
    text: str = ""
    sentence: str = ""
    span: tuple[int, int] | None = None
    unresolved: str = ""
    context: str = ""
    verdict: Verdict | None = None
    justification: str = ""
    votes: dict[str, Verdict] = Field(default_factory=dict)
    confidence: float | None = None
    p_true: float | None = None
    p_true_raw: float | None = None
    route: Literal["first_pass", "debate"] | None = None
    first_pass: Turn | None = None
    first_round_verdict: Verdict | None = None
    ruling: Turn | None = None
    rounds: int = 0
    transcript: list[Turn] = Field(default_factory=list, description="the debate's turns")
    summaries: list[RoundSummary] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    error: str | None = None
    unchecked_reason: str | None = None
    language_not_covered: str | None = None

    @classmethod
    def of(cls, result: ClaimResult) -> Self:
        """The report of a claim result of the graphs."""
        claim = result.claim
        return cls(
            **claim.model_dump(include={"id", "text", "sentence", "span", "unresolved", "context"}),
            **result.model_dump(exclude={"claim", "turns", "uncovered_language"}),
            transcript=result.turns,
            language_not_covered=result.uncovered_language,
        )

    @property
    def mark(self) -> str:
        """Its verdict, or ``failed`` (never a verdict a failed claim lacks)."""
        return "failed" if self.error or not self.verdict else self.verdict


class VerifyResult(Result, ClaimReport):
    """``verify``'s result: one claim's report."""

    kind: Literal["verify"] = "verify"

    @classmethod
    def has_shape(cls, data: dict[str, Any]) -> bool:
        """A claim's report: its debate, verdict and evidence."""
        return "transcript" in data and "verdict" in data and "evidence" in data

    def failure(self) -> str | None:
        """Why the claim has no verdict."""
        return f"the claim could not be checked: {self.error}" if self.error else None


# What a claim without a verdict of supported or refuted is called in a summary, by its mark.
UNCHECKED_WORDS = {
    "not_enough_evidence": "not checked (not enough evidence)",
    "conflicting_evidence": "with conflicting evidence",
    "failed": "failed",
}


class CheckSettings(BaseModel):
    """The settings a ``check`` ran with, as its result names them."""

    protocol: str | None = None
    rule: str | None = None
    search: str | None = None
    model: str | None = None
    jurors: int | None = None
    rounds: int | None = None


class CheckResult(Result):
    """``check``'s result: every claim's report, what the Clerk dropped, the scores and the cost."""

    kind: Literal["check"] = "check"
    question: str = ""
    language: Literal["en", "zh"] | None = None
    settings: CheckSettings = Field(default_factory=CheckSettings)
    claims: list[ClaimReport] = Field(default_factory=list)
    dropped: list[DroppedSentence] = Field(default_factory=list)
    scores: dict[str, float | int | None] = Field(default_factory=dict)
    language_not_covered: int = Field(default=0, description="claims in a language the corpus lacks")
    usage: Usage = Field(default_factory=Usage)
    correction: Correction | None = None
    response: str = Field(default="", description="the text the claims' spans point into")

    @classmethod
    def has_shape(cls, data: dict[str, Any]) -> bool:
        """The text checked and its claims."""
        return "claims" in data and "response" in data

    def failure(self) -> str | None:
        """Why the check is no full success; None when every part was checked.

        A failed Clerk call or a failed claim never passes for an empty or partial success: the
        result still holds everything that was checked, and each failure with its reason.
        """
        failed_parts = [d for d in self.dropped if d.reason == "clerk_failed"]
        failed_claims = [c for c in self.claims if c.verdict is None]
        if not failed_parts and not failed_claims:
            unrewritten = self.correction.failed if self.correction else []
            if unrewritten:  # --correct: a refuted sentence kept as it was is no "no change"
                return (
                    f"{len(unrewritten)} refuted sentence(s) could not be rewritten; first "
                    f"reason: {unrewritten[0].error}"
                )
            return None
        if failed_parts and not self.claims:
            return f"the Clerk could not split the text into claims: {failed_parts[0].error}"
        reasons = [d.error for d in failed_parts] + [c.error for c in failed_claims]
        return (
            f"{len(failed_claims)} of {len(self.claims)} claims and "
            f"{len(failed_parts)} part(s) of the text could not be checked; first reason: {reasons[0]}"
        )

    def summary_line(self) -> str:
        """How many claims the evidence decided, and what became of the rest: the reports' summary.

        Counted from the claims, not the scores: the page draws a run's claims before it has any.
        Only supported and refuted are checked; a claim the evidence decides nothing about is
        told apart from a refuted one, as are conflicting evidence and a failed check.
        """
        marks = Counter(c.mark for c in self.claims)
        line = (
            f"checked {marks['supported'] + marks['refuted']} of {len(self.claims)} claims: "
            f"supported {marks['supported']}, refuted {marks['refuted']}"
        )
        rest = [f"{marks[mark]} {words}" for mark, words in UNCHECKED_WORDS.items() if marks[mark]]
        return f"{line}; {', '.join(rest)}" if rest else line

    def tally(self) -> tuple[int, list[str]]:
        """Its claims and their verdicts."""
        return len(self.claims), [str(c.verdict) for c in self.claims]
