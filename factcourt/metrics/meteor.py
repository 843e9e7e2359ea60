"""METEOR between evidence texts (nltk), and AVeriTeC's Hungarian-matched evidence score.

nltk's METEOR looks synonyms up in WordNet, whose data is a separate download that an offline
machine lacks; with an empty WordNet it scores exact and stemmed matches, which is what is
computed here (a slight underestimate of full METEOR on paraphrases).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_WORD = re.compile(r"\w+", re.UNICODE)


class _NoWordNet:
    """A WordNet with no synonyms."""

    def synsets(self, *args: object, **kwargs: object) -> list[object]:
        return []


def meteor(reference: str, hypothesis: str) -> float:
    """METEOR of ``hypothesis`` against ``reference`` (lower-cased word tokens)."""
    from nltk.translate.meteor_score import meteor_score

    ref, hyp = _WORD.findall(reference.lower()), _WORD.findall(hypothesis.lower())
    if not ref or not hyp:
        return 0.0
    return float(meteor_score([ref], hyp, wordnet=_NoWordNet()))


def hungarian_meteor(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """AVeriTeC's evidence score.

    The best one-to-one pairing of gold and predicted pieces by METEOR, summed and divided by
    the number of gold pieces.
    """
    if not gold or not predicted:
        return 0.0
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    scores = np.array([[meteor(g, p) for p in predicted] for g in gold])
    rows, cols = linear_sum_assignment(scores, maximize=True)
    return float(scores[rows, cols].sum() / len(gold))


def evidence_match(gold: Sequence[str], predicted: Sequence[str], threshold: float = 0.25) -> bool:
    """Whether the predicted evidence matches the gold evidence at METEOR >= ``threshold``."""
    return hungarian_meteor(gold, predicted) >= threshold
