"""Typed state of the importance pyramid (graph ``pyramid``, MAD-Fact §5) and the leaderboard."""

from __future__ import annotations

import operator
from typing import Annotated, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from factcourt.state.records import AgentAnswer, ClerkSplit, Usage, add_usage, text

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
    split: ClerkSplit
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
    splits: dict[str, ClerkSplit] = Field(
        default_factory=dict,
        description="expert -> the Clerk's whole split of its answer (a check of that answer reuses it)",
    )
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
