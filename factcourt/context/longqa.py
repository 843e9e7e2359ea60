"""Settings of the LongHalluQA builder (graph ``longqa``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from factcourt.context.base import BaseContext, describe
from factcourt.errors import ConfigError

# Fig. 3 of MAD-Fact lists LongHalluQA's 7 topics; the text names only the first three
LONGQA_TOPICS = (
    "chinese_culture",
    "natural_science",
    "social_science",
    "history",
    "geography",
    "literature_and_art",
    "daily_life",
)


@dataclass(kw_only=True)
class LongQAContext(BaseContext):
    """Settings of one LongHalluQA build: which facts are kept and how seeds are grouped."""

    command: ClassVar[str] = "build-longqa"
    model_roles: ClassVar[tuple[str, ...]] = ("gatherer", "evaluator")

    longqa_theta: float = describe(
        "LongHalluQA builder: a gathered fact is kept when the verifier finds it supported with "
        "this confidence (its verdict's probability, from logprobs) or more; lower, contested "
        "or refuted facts are dropped. The paper gives no value.",
        0.7,
        ge=0,
        le=1,
    )
    longqa_topics: list[str] = describe(
        "LongHalluQA builder: the topics a seed is filed under (the paper has 7 and names "
        "Chinese culture, natural and social sciences); any other answer counts as 'other'.",
        factory=lambda: list(LONGQA_TOPICS),
    )
    longqa_max_facts: int = describe(
        "LongHalluQA builder: most facts verified per seed (one verifier call each).", 6, ge=1
    )
    longqa_cluster_distance: float = describe(
        "LongHalluQA builder: sub-questions whose cosine distance (character bigrams) is at most "
        "this share a topic cluster; 0 = every sub-question is its own candidate. 0.85 grouped "
        "short Chinese questions on one subject, and no two subjects, in the test fixture.",
        0.85,
        ge=0,
        le=1,
    )

    def validate(self) -> None:
        """The shared checks, then the builder's thresholds and topics."""
        super().validate()
        if not self.longqa_topics:
            raise ConfigError("longqa_topics needs at least one topic")
