"""Calibration of a method's probability that a claim is true: reliability table, ECE, Brier.

A confidence means something when claims given P(true) = p are true about a fraction p of the
time. Predictions without a probability are counted as missing, never scored.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit


def reliability(p_true: Sequence[float | None], gold: Sequence[bool], bins: int = 5) -> dict[str, Any]:
    """Equal-width bins of P(true): per bin the mean probability and the fraction true.

    ``ece`` is the bin-size-weighted mean of |mean_p - frac_true| (None with no probability);
    ``brier`` the mean squared error of P(true) against the 0/1 truth.
    """
    pairs = [(p, g) for p, g in zip(p_true, gold, strict=True) if p is not None]
    rows = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        inside = [(p, g) for p, g in pairs if low <= p < high or (b == bins - 1 and p == 1.0)]
        if inside:
            rows.append(
                {
                    "low": round(low, 6),
                    "high": round(high, 6),
                    "n": len(inside),
                    "mean_p": sum(p for p, _ in inside) / len(inside),
                    "frac_true": sum(1 for _, g in inside if g) / len(inside),
                }
            )
    n = len(pairs)
    ece = sum(r["n"] / n * abs(r["mean_p"] - r["frac_true"]) for r in rows) if n else None
    brier = sum((p - (1.0 if g else 0.0)) ** 2 for p, g in pairs) / n if n else None
    return {"n": n, "missing": len(gold) - n, "rows": rows, "ece": ece, "brier": brier}


# a reading of exactly 0 or 1 (no logprobs, or a rounded certainty) stays finite in logit space
_EDGE = 1e-4


def logit(p: float) -> float:
    """log(p / (1 - p)), with p kept inside [1e-4, 1 - 1e-4]."""
    p = min(max(p, _EDGE), 1.0 - _EDGE)
    return math.log(p / (1.0 - p))


def platt(p: float, a: float, b: float) -> float:
    """Platt scaling: sigmoid(a * logit(p) + b)."""
    return float(expit(a * logit(p) + b))


def fit_platt(raw: Sequence[float], gold: Sequence[bool]) -> tuple[float, float]:
    """The (a, b) of ``platt`` that minimise the log-loss of ``raw`` against ``gold``.

    Platt's smoothed targets ((n+ + 1) / (n+ + 2), 1 / (n- + 2)) keep a separable set from
    pushing ``a`` to infinity. Both classes are needed.
    """
    positives = sum(1 for g in gold if g)
    if positives in (0, len(gold)):
        raise ValueError("Platt scaling needs TRUE and FALSE cases")
    x = np.array([logit(p) for p in raw])
    hi, lo = (positives + 1) / (positives + 2), 1 / (len(gold) - positives + 2)
    t = np.array([hi if g else lo for g in gold])

    def loss(params: np.ndarray) -> float:
        z = params[0] * x + params[1]
        return float(np.sum(np.logaddexp(0.0, z) - t * z))

    found = minimize(loss, np.array([1.0, 0.0]), method="L-BFGS-B")
    return float(found.x[0]), float(found.x[1])


def fit_slope(raw: Sequence[float], gold: Sequence[bool], boundary: float) -> float:
    """The a >= 0 of sigmoid(a * (logit(p) - boundary)) that minimises the log-loss against ``gold``.

    The boundary (where the verdict turns) stays where a fit on more data put it; only how sure
    to be on either side is fitted, so a small or uninformative group of readings can lower the
    confidence to 0.5 but never move a verdict. Platt's smoothed targets, as in ``fit_platt``.
    """
    positives = sum(1 for g in gold if g)
    if positives in (0, len(gold)):
        raise ValueError("a calibration slope needs TRUE and FALSE cases")
    x = np.array([logit(p) for p in raw]) - boundary
    hi, lo = (positives + 1) / (positives + 2), 1 / (len(gold) - positives + 2)
    t = np.array([hi if g else lo for g in gold])

    def loss(params: np.ndarray) -> float:
        z = params[0] * x
        return float(np.sum(np.logaddexp(0.0, z) - t * z))

    found = minimize(loss, np.array([1.0]), method="L-BFGS-B", bounds=[(0.0, None)])
    return float(found.x[0])


def fit_logistic(rows: Sequence[Sequence[float]], gold: Sequence[bool]) -> tuple[float, ...]:
    """Weights w (the last one a bias) of sigmoid(w . (x, 1)) minimising the log-loss, Platt's targets.

    ``fit_platt`` with more features than the reading's log-odds (the evidence's length, say).
    """
    positives = sum(1 for g in gold if g)
    if positives in (0, len(gold)):
        raise ValueError("a logistic fit needs TRUE and FALSE cases")
    x = np.hstack([np.asarray(rows, dtype=float), np.ones((len(rows), 1))])
    hi, lo = (positives + 1) / (positives + 2), 1 / (len(gold) - positives + 2)
    t = np.array([hi if g else lo for g in gold])

    def loss(w: np.ndarray) -> float:
        z = x @ w
        return float(np.sum(np.logaddexp(0.0, z) - t * z))

    start = np.zeros(x.shape[1])
    start[0] = 1.0
    return tuple(float(v) for v in minimize(loss, start, method="L-BFGS-B").x)
