"""Response-level scores of MAD-Fact: counts, precision, and the importance-weighted metrics."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from factcourt.state.records import VERDICTS


def response_scores(verdicts: Iterable[str | None]) -> dict[str, float | int | None]:
    """Counts per verdict and precision = supported / judged claims (failed ones excluded).

    Precision is None when no claim was judged, or none was checked (every one lacked
    evidence): an answer nobody could check is not 0% true.
    """
    verdicts = list(verdicts)
    counts: dict[str, float | int | None] = {v: verdicts.count(v) for v in VERDICTS}
    failed = sum(1 for v in verdicts if v is None)
    judged = len(verdicts) - failed
    counts.update(
        claims=len(verdicts),
        failed=failed,
        judged=judged,
        precision=verdicts.count("supported") / judged
        if judged > verdicts.count("not_enough_evidence")
        else None,
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


# ------------------------------------------------ importance pyramid (MAD-Fact §5, Eq. 17-19)


def pyramid_layer(frequency: int, experts: int) -> int:
    """Layer G - f + 1 (1 = top) of a golden claim that ``frequency`` of ``experts`` answers state."""
    if not 1 <= frequency <= experts:
        raise ValueError(f"a golden claim is stated by 1 to {experts} experts, not {frequency}")
    return experts - frequency + 1


def layer_weight(layer: int, experts: int) -> float:
    """Importance of a layer: G + 2 - k, the paper's 5 - k for G = 3 (4, 3, 2).

    The bottom layer keeps weight 2, above the 1 a claim off the pyramid gets by default (the
    paper's rule extended to k = G + 1), and upper layers weigh strictly more.
    """
    return float(experts + 2 - layer)


def gamma_key(name: str, gamma: float) -> str:
    """Score name for a gamma: 'recall@1.0', 'f1@0.8'."""
    return f"{name}@{float(gamma)!r}"


def pyramid_scores(
    claims: Sequence[tuple[bool, float, str | None]],
    golden_weights: Mapping[str, float],
    *,
    gammas: Sequence[float],
    ks: Sequence[int],
) -> dict[str, float | int | None]:
    """MAD-Fact's weighted scores of one response, with SAFE's F1@K beside them.

    Args:
        claims: the response's judged claims as (supported, weight, matched golden id or None).
        golden_weights: the weight of every golden claim of the question's pyramid.
        gammas: the recall targets (Eq. 18).
        ks: SAFE's K values.

    A golden claim matched by several supported claims is credited once in recall; each claim
    counts in precision, and recall credits the golden claim's weight. Without golden claims
    recall is undefined (None), never 0 or 1, and so is F1@gamma unless no claim is supported:
    then F1 is 0 (Eq. 19).
    """
    supported = [ok for ok, _, _ in claims]
    precision = weighted_precision(supported, [w for _, w, _ in claims]) if claims else None
    credited: set[str] = set()
    found = 0.0
    for ok, weight, golden in claims:
        if ok and golden is None:
            found += weight
        elif ok and golden is not None and golden not in credited:
            credited.add(golden)
            found += golden_weights[golden]
    hits = sum(supported)
    scores: dict[str, float | int | None] = {
        "precision": precision,
        "supported": hits,
        "not_supported": len(claims) - hits,
        "golden_matched": len(credited),
        "golden_claims": len(golden_weights),
    }
    for gamma in gammas:
        recall = recall_at_gamma(found, sum(golden_weights.values()), gamma)
        scores[gamma_key("recall", gamma)] = recall
        # Eq. 19: no supported claim is F1 0, with or without a pyramid to recall
        scores[gamma_key("f1", gamma)] = 0.0 if not hits else f1(precision, recall)
    for k in ks:
        scores[f"f1@{k}"] = f1_at_k(hits, len(claims) - hits, k)
    return scores


def mean_scores(rows: Sequence[Mapping[str, float | int | None]]) -> dict[str, dict[str, float | int | None]]:
    """Each score's mean over responses (§4.2.3); undefined ones are left out and counted."""
    names = list(dict.fromkeys(name for row in rows for name in row))
    means: dict[str, dict[str, float | int | None]] = {}
    for name in names:
        values = [row.get(name) for row in rows]
        defined = [float(v) for v in values if v is not None]
        means[name] = {
            "mean": sum(defined) / len(defined) if defined else None,
            "n": len(defined),
            "undefined": len(values) - len(defined),
        }
    return means
