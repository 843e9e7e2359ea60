"""Read a label's probability from the token log-probabilities of a JSON answer.

A small model's self-reported confidence is flat (0.9-0.95 whatever it says); the probability
it gave the first token of each label, where the label's value begins, is what it computed.
OpenAI and llama.cpp servers return, per generated token, its log-probability and the top
alternatives; llama.cpp reports them before the grammar constrains the choice.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, TypeVar

L = TypeVar("L", bound=str)


def label_distribution(
    tokens: list[dict[str, Any]] | None, field: str, labels: Sequence[L]
) -> dict[L, float] | None:
    """Probability of each label for the string ``field`` of a JSON answer, or None.

    The alternatives at the token where the field's value starts are matched to the labels
    they begin (``"ref"`` -> refuted); mass on other tokens is left out and the rest is
    normalised. None when there are no logprobs, no such field, or no mass on any label.
    """
    if not tokens:
        return None
    text, starts = "", []
    for token in tokens:
        starts.append(len(text))
        text += token.get("token", "")
    found = re.search(rf'(?<!\\)"{re.escape(field)}"\s*:\s*"', text)
    if found is None:
        return None
    value_start = found.end()
    index = next(
        (i for i, s in enumerate(starts) if s <= value_start < s + len(tokens[i].get("token", ""))), None
    )
    if index is None:
        return None
    token = tokens[index]
    offset = value_start - starts[index]
    prefix = token["token"][:offset]
    alternatives = {a["token"]: a["logprob"] for a in token.get("top_logprobs") or []}
    alternatives.setdefault(token["token"], token.get("logprob", 0.0))
    mass = dict.fromkeys(labels, 0.0)
    for alt, logprob in alternatives.items():
        if not alt.startswith(prefix):
            continue
        begun = alt[offset:].split('"')[0]
        matching = [
            label for label in labels if begun and (label.startswith(begun) or begun.startswith(label))
        ]
        for label in matching:
            mass[label] += math.exp(logprob) / len(matching)
    total = sum(mass.values())
    if total <= 0.0:
        return None
    return {label: p / total for label, p in mass.items()}
