"""Calibration of a method's probability that a claim is true: reliability table, ECE, Brier.

A confidence means something when claims given P(true) = p are true about a fraction p of the
time. Predictions without a probability are counted as missing, never scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


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
