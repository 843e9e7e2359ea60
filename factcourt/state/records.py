"""Records every system shares: evidence, claims, turns, usage, and agent outputs several systems ask for."""

from __future__ import annotations

import copy
import functools
import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, create_model

Verdict = Literal["supported", "refuted", "not_enough_evidence", "conflicting_evidence"]


VERDICTS: tuple[Verdict, ...] = (
    "supported",
    "refuted",
    "not_enough_evidence",
    "conflicting_evidence",
)


class Usage(BaseModel):
    """Model and search calls with the tokens the servers reported and the time they took.

    ``cached_tokens`` are prompt tokens the server's prompt cache served (not evaluated again);
    ``ms`` is the wall time of the calls, ``prompt_ms``/``predicted_ms`` the server's own time
    evaluating the prompt and generating (llama.cpp reports them; other endpoints leave 0).
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    ms: int = 0
    prompt_ms: int = 0
    predicted_ms: int = 0
    search_calls: int = 0
    unparsable: int = Field(default=0, description="answers that failed validation (malformed or cut)")
    failed: int = Field(
        default=0, description="calls that got no answer (no connection, an HTTP error, a time-out)"
    )
    by_role: dict[str, dict[str, int]] = Field(default_factory=dict)

    def __add__(self, other: Usage) -> Usage:
        """Sum two usages, role by role."""
        by_role = {role: dict(v) for role, v in self.by_role.items()}
        for role, counts in other.by_role.items():
            mine = by_role.setdefault(role, {})
            for key, value in counts.items():
                mine[key] = mine.get(key, 0) + value
        counts = {name: getattr(self, name) + getattr(other, name) for name in _COUNTS}
        return Usage(**counts, by_role=by_role)

    @classmethod
    def model_call(cls, role: str, input_tokens: int, output_tokens: int, **spent: int) -> Usage:
        """Usage of one model call made by ``role``; ``spent``: cached_tokens, ms, prompt_ms, predicted_ms."""
        counts = {"calls": 1, "input_tokens": input_tokens, "output_tokens": output_tokens, **spent}
        return cls(**counts, by_role={role: dict(counts)})

    @classmethod
    def search_call(cls) -> Usage:
        """Usage of one search call."""
        return cls(search_calls=1, by_role={"search": {"search_calls": 1}})


_COUNTS = tuple(name for name in Usage.model_fields if name != "by_role")


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
    unresolved: str = Field(
        default="", description='the reference the Clerk could not resolve ("He"), if any'
    )
    context: str = Field(
        default="",
        description="for a claim with an unresolved reference: the sentence before its own, which "
        "the search and the verdict see with it",
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


class ClerkSplit(BaseModel):
    """The Clerk's split of one text, whole: a check of the same text takes it instead of asking again."""

    response: str = Field(description="the text split (the claims' spans point into it)")
    claims: list[Claim] = Field(default_factory=list)
    dropped: list[DroppedSentence] = Field(default_factory=list)

    @property
    def texts(self) -> list[str]:
        """The claims' texts."""
        return [c.text for c in self.claims]

    @property
    def whole(self) -> bool:
        """No part of the text failed: a check of it may take this split instead of splitting again."""
        return not any(d.reason == "clerk_failed" for d in self.dropped)


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


class AgentAnswer(BaseModel):
    """Base of the models agents answer with: their JSON schema is built once.

    langchain asks for the schema of a structured-output model on every call (to label the
    trace), and pydantic builds it anew each time: an eighth of the framework's time per call.
    """

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Pydantic's schema, memoised per class and arguments; callers get their own copy."""
        return copy.deepcopy(_json_schema(cls, args, tuple(sorted(kwargs.items()))))


@functools.cache
def without_trailing(schema: type[AgentAnswer], fields: frozenset[str]) -> type[AgentAnswer]:
    """``schema`` without ``fields``, which must be its last ones: the answer ends where what is read ends.

    A model writes the fields in order, so everything before the left-out fields is written token
    for token as under ``schema`` (the same prompt, the same decoding); only the tokens nothing would
    read are saved. The answer keeps ``schema``'s name, which scripted test models answer by.
    """
    checks = schema.__pydantic_decorators__
    if checks.model_validators or checks.field_validators:
        raise ValueError(f"{schema.__name__} has validators, which a shortened copy would not keep")
    names = list(schema.model_fields)
    kept = names[: len(names) - len(fields)]
    if set(names[len(kept) :]) != fields:
        raise ValueError(f"{sorted(fields)} are not the last fields of {schema.__name__} ({names})")
    # values typed Any: mypy matches a dict of tuples against create_model's own keyword arguments
    copied: dict[str, Any] = {
        name: (schema.model_fields[name].annotation, schema.model_fields[name]) for name in kept
    }
    return create_model(schema.__name__, __base__=AgentAnswer, __doc__=schema.__doc__, **copied)


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


def _json_schema(
    cls: type[BaseModel], args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...]
) -> dict[str, Any]:
    # the classmethod read on the class is bound, with a __func__: its stub types a plain callable
    schema: dict[str, Any] = BaseModel.model_json_schema.__func__(cls, *args, **dict(kwargs))  # type: ignore[attr-defined]
    return schema


class ClerkClaim(BaseModel):
    """A claim as the Clerk writes it.

    Its sentence is named by its number in the numbered response, not copied: the copies were
    most of what the Clerk wrote, and cut a long text's answer at ``max_tokens``.
    """

    sentence: int = Field(description="the number of the sentence it comes from")
    claim: str = text("one atomic fact, self-contained: pronouns resolved", 300)


ClerkDropReason = Literal["opinion", "instruction", "advice", "not_verifiable", "other"]


class ClerkDrop(BaseModel):
    """A sentence the Clerk leaves out, by its number."""

    sentence: int = Field(description="the number of the sentence")
    reason: ClerkDropReason


class ClerkOutput(AgentAnswer):
    """The Clerk's answer for one chunk of the response."""

    claims: list[ClerkClaim] = Field(default_factory=list)
    dropped: list[ClerkDrop] = Field(default_factory=list)


class ResolvedClaims(AgentAnswer):
    """The Clerk's self-contained rewrites of claims, in the order given."""

    claims: list[str] = Field(description="each claim rewritten with every reference replaced by its name")


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


class ThreeLabel(AgentAnswer):
    """The verdict alone, or that the evidence does not address the claim (``label_set='three'``)."""

    verdict: Literal["supported", "refuted", "not_enough_evidence"]


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


class Result(BaseModel):
    """A system's result as the API returns it; its JSON (``model_dump(mode="json")``) is what users get.

    ``kind`` names the command that made it (``check``, ``verify``, ``detect``, ``audit``, ...): the
    HTML report and batch runs find the system through it. Every field has a default, so the JSON
    of an older run (a field it lacks) still reads back.
    """

    kind: str

    def failure(self) -> str | None:
        """Why the result is no full success, in one sentence; None when it is."""
        return None

    def tally(self) -> tuple[int, list[str]]:
        """What a finished ``--batch`` row counts in the summary: its items and their verdicts."""
        return 0, []

    @classmethod
    def has_shape(cls, data: dict[str, Any]) -> bool:
        """Whether JSON written before results named their kind is one of these, by its fields."""
        return False

    # Read by key, a result is its JSON: the API returned plain dicts before results were typed,
    # and callers that read them so keep working. Only the field asked for is dumped.
    def __getitem__(self, key: str) -> Any:
        """The JSON's value at ``key`` (KeyError when it has none)."""
        found = self.model_dump(mode="json", include={key})
        if key not in found:
            raise KeyError(key)
        return found[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The JSON's value at ``key``, else ``default``."""
        return self.model_dump(mode="json", include={key}).get(key, default)

    def __contains__(self, key: object) -> bool:
        """Whether the JSON has ``key``."""
        return isinstance(key, str) and key in self.model_dump(mode="json", include={key})
