"""Response-level scores of MAD-Fact: counts, precision, and the importance-weighted metrics."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from factcourt.state import VERDICTS


def response_scores(verdicts: Iterable[str | None]) -> dict[str, float | int | None]:
    """Counts per verdict and precision = supported / judged claims (failed ones excluded).

    Precision is None when no claim was judged: an empty answer is not 0% true.
    """
    verdicts = list(verdicts)
    counts: dict[str, float | int | None] = {v: verdicts.count(v) for v in VERDICTS}
    failed = sum(1 for v in verdicts if v is None)
    judged = len(verdicts) - failed
    counts.update(
        claims=len(verdicts),
        failed=failed,
        judged=judged,
        precision=counts["supported"] / judged if judged else None,
    )
    return counts


def weighted_precision(supported: Sequence[bool], weights: Sequence[float]) -> float | None:
    """Importance-weighted precision: weight of true claims over weight of all claims."""
    total = sum(weights)
    if total <= 0:
        return None
    return sum(w for ok, w in zip(supported, weights, strict=True) if ok) / total


def recall_at_gamma(supported_weight: float, pyramid_weight: float, gamma: float) -> float | None:
    """Recall@gamma of MAD-Fact.

    True, important content found over gamma times the pyramid's weight, capped at 1 (gamma is
    the share of the pyramid a good answer is expected to cover).
    """
    if pyramid_weight <= 0 or gamma <= 0:
        return None
    return min(1.0, supported_weight / (gamma * pyramid_weight))


def f1(precision: float | None, recall: float | None) -> float | None:
    """Harmonic mean; None when either side is undefined, 0 when both are 0."""
    if precision is None or recall is None:
        return None
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def f1_at_k(supported: int, not_supported: int, k: int) -> float | None:
    """SAFE's F1@K: precision over all claims, recall = min(supported / K, 1)."""
    if k <= 0:
        return None
    total = supported + not_supported
    if total == 0:
        return 0.0
    return f1(supported / total, min(supported / k, 1.0))
