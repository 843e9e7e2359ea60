"""The matcher: which claim states the same fact as another. Embeddings propose, the model confirms.

Used to merge the experts' claims into the golden set and to match a response's claims to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from factcourt.context.pyramid import PyramidContext
from factcourt.nodes.helpers import bounded, concurrency, fence
from factcourt.prompts import conversation
from factcourt.prompts.pyramid import table
from factcourt.providers.embeddings import EmbeddingSettings, similarities
from factcourt.providers.models import ask
from factcourt.state.pyramid import SameFact
from factcourt.state.records import Usage


def same_text(a: str, b: str) -> bool:
    """Identical up to case, spacing and the final full stop: the same fact without asking."""

    def norm(text: str) -> str:
        return " ".join(text.lower().split()).rstrip(".。")

    return norm(a) == norm(b)


def proposals(row: np.ndarray, threshold: float, most: int, among: Sequence[int] | None = None) -> list[int]:
    """Indices (of ``among``, default all) whose similarity in ``row`` reaches ``threshold``, best first."""
    indices = range(len(row)) if among is None else among
    ranked = sorted((i for i in indices if row[i] >= threshold), key=lambda i: -row[i])
    return ranked[:most]


async def same_fact(
    ctx: PyramidContext, language: str, claim: str, candidates: list[str]
) -> tuple[int | None, Usage, str | None]:
    """The position of the candidate stating the same fact as ``claim`` (None: none), the usage, an error."""
    for position, candidate in enumerate(candidates):
        if same_text(claim, candidate):
            return position, Usage(), None
    reply = await ask(
        ctx,
        "matcher",
        SameFact,
        conversation(
            table(language).SAME_FACT,
            claim=fence(claim),
            candidates="\n".join(f"{i + 1}. {fence(c)}" for i, c in enumerate(candidates)),
        ),
        run_name="same fact",
        tags=["matcher"],
    )
    if reply.value is None:
        return None, reply.usage, f"matching {claim[:80]!r} failed: {reply.error}"
    number = reply.value.match
    return (number - 1 if 1 <= number <= len(candidates) else None), reply.usage, None


def embedding(ctx: PyramidContext) -> EmbeddingSettings:
    """The embedder the pyramid's settings name, as the provider is told."""
    return EmbeddingSettings(ctx.embedder, ctx.embedding_model, ctx.embedding_base_url)


async def match_claims(
    ctx: PyramidContext, language: str, claims: list[str], golden: list[str]
) -> tuple[list[int | None], Usage, list[str]]:
    """For each claim, the index of the golden claim stating the same fact (None: none).

    Returns the matches, the usage and one note per failed confirmation (its claim unmatched).
    """
    table = await similarities(claims, golden, embedding(ctx))

    async def one(i: int) -> tuple[int | None, Usage, str | None]:
        proposed = proposals(table[i], ctx.similarity_threshold, ctx.same_fact_candidates)
        if not proposed:
            return None, Usage(), None
        position, usage, error = await same_fact(ctx, language, claims[i], [golden[j] for j in proposed])
        return (None if position is None else proposed[position]), usage, error

    done = await bounded(concurrency(ctx), [partial(one, i) for i in range(len(claims))])
    usage = sum((u for _, u, _ in done), Usage())
    return [m for m, _, _ in done], usage, [e for _, _, e in done if e]
