"""Typed state of the LongHalluQA-style question builder (graph ``longqa``)."""

from __future__ import annotations

import operator
from typing import Annotated, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from factcourt.state.records import AgentAnswer, Evidence, Usage, Verdict, add_usage, text

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
