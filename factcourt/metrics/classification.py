"""Claim-level classification metrics (MAD-Fact Table 3), four-way accuracy, AVeriTeC score.

A failed prediction (``None``) is never dropped and never correct: it counts against accuracy
and against the recall of its gold label, and adds to no label's predictions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from scipy.stats import binomtest

from factcourt.metrics.meteor import evidence_match


class LabelScores(TypedDict):
    """Precision, recall and F1 of one label."""

    precision: float
    recall: float
    f1: float


class BinaryReport(TypedDict):
    """What :func:`binary_report` gives."""

    n: int
    failed: int
    accuracy: float
    macro_f1: float
    true: LabelScores
    false: LabelScores


COVERED = ("supported", "refuted")  # the verdicts that answer; the rest say it could not be checked


def _safe_div(num: float, den: float) -> float:
    return num / den if den else 0.0


def label_prf(gold: Sequence[bool], pred: Sequence[bool | None], label: bool) -> LabelScores:
    """Precision, recall and F1 of one binary label."""
    tp = sum(1 for g, p in zip(gold, pred, strict=True) if p is label and g is label)
    predicted = sum(1 for p in pred if p is label)
    actual = sum(1 for g in gold if g is label)
    precision, recall = _safe_div(tp, predicted), _safe_div(tp, actual)
    return {
        "precision": precision,
        "recall": recall,
        "f1": _safe_div(2 * precision * recall, precision + recall),
    }


def binary_report(gold: Sequence[bool], pred: Sequence[bool | None]) -> BinaryReport:
    """P/R/F1 for TRUE and FALSE, accuracy, macro-F1 and the failure count."""
    true, false = label_prf(gold, pred, True), label_prf(gold, pred, False)
    correct = sum(1 for g, p in zip(gold, pred, strict=True) if p is not None and p == g)
    return {
        "n": len(gold),
        "failed": sum(1 for p in pred if p is None),
        "accuracy": _safe_div(correct, len(gold)),
        "macro_f1": (true["f1"] + false["f1"]) / 2,
        "true": true,
        "false": false,
    }


def answered_report(gold: Sequence[bool], verdicts: Sequence[str | None]) -> dict[str, float | int | None]:
    """What a verdict that may say "not enough evidence" gives a user.

    ``coverage``: the share of claims answered supported or refuted; ``covered_accuracy``: of
    those, the share right, and their macro-F1 over supported and refuted; the precision of each
    answer (None where it was never given).
    """
    answered = [(g, v) for g, v in zip(gold, verdicts, strict=True) if v in COVERED]

    def precision(label: str, truth: bool) -> float | None:
        given = [g for g, v in answered if v == label]
        return sum(1 for g in given if g is truth) / len(given) if given else None

    covered = binary_report([g for g, _ in answered], [v == "supported" for _, v in answered])
    return {
        "n": len(gold),
        "answered": len(answered),
        "coverage": _safe_div(len(answered), len(gold)),
        "covered_accuracy": covered["accuracy"] if answered else None,
        "covered_macro_f1": covered["macro_f1"] if answered else None,
        "supported_precision": precision("supported", True),
        "refuted_precision": precision("refuted", False),
    }


def verdict_confidence(verdict: str | None, p_true: float | None) -> float | None:
    """The probability that a supported or refuted verdict is right: P(true), or 1 - P(true)."""
    if p_true is None or verdict not in COVERED:
        return None
    return p_true if verdict == "supported" else 1.0 - p_true


def risk_coverage(
    gold: Sequence[bool], verdicts: Sequence[str | None], confidences: Sequence[float | None]
) -> dict[str, Any]:
    """Accuracy at each coverage, the covered claims ranked by confidence, and the curve's area.

    Claims of equal confidence enter together (a bar on confidence cannot split them), so the
    curve does not depend on the claims' order; claims with no confidence enter last. Each
    point: ``coverage`` (answered over all claims), ``accuracy`` of the answered, ``answered``.
    ``accuracy_coverage_area`` is the area under the accuracy-coverage step curve, each covered
    claim a step of width 1/n: at most the method's coverage, so saying not enough evidence
    earns nothing; at full coverage it is 1 - AURC.
    """
    covered = [
        (c, g is (v == "supported"))
        for g, v, c in zip(gold, verdicts, confidences, strict=True)
        if v in COVERED
    ]
    groups: dict[float | None, list[bool]] = {}
    for confidence, right in covered:
        groups.setdefault(confidence, []).append(right)
    order = sorted(groups, key=lambda c: (c is None, -(c or 0.0)))
    curve, answered, correct, area = [], 0, 0, 0.0
    for confidence in order:
        answered += len(groups[confidence])
        correct += sum(groups[confidence])
        accuracy = correct / answered
        area += len(groups[confidence]) / len(gold) * accuracy
        curve.append({"coverage": answered / len(gold), "accuracy": accuracy, "answered": answered})
    return {"curve": curve, "accuracy_coverage_area": area}


def accuracy_at_coverage(curve: Sequence[dict[str, Any]], coverage: float) -> float | None:
    """The accuracy of the most confident claims covering at most ``coverage`` of all claims.

    None where the first point is already above it or the curve ends below it (a method that
    covered less cannot be read there).
    """
    if not curve or curve[-1]["coverage"] < coverage - 1e-9:
        return None
    within = [p for p in curve if p["coverage"] <= coverage + 1e-9]
    return within[-1]["accuracy"] if within else None


def not_enough_recall(gold_4way: Sequence[str | None], verdicts: Sequence[str | None]) -> float | None:
    """Of the claims whose gold is "not enough info", the share answered not_enough_evidence."""
    silent = [v for g, v in zip(gold_4way, verdicts, strict=True) if g == "not_enough_evidence"]
    return sum(1 for v in silent if v == "not_enough_evidence") / len(silent) if silent else None


def to_binary(verdict: str | None, true_labels: Sequence[str] = ("supported",)) -> bool | None:
    """Map a four-way verdict to TRUE/FALSE (supported -> TRUE by default); None stays None."""
    return None if verdict is None else verdict in true_labels


def four_way_report(
    gold: Sequence[str | None], pred: Sequence[str | None], evidence_ok: Sequence[bool] | None = None
) -> dict[str, float]:
    """Four-way accuracy and macro-F1, the neutral verdicts' rates, and the AVeriTeC score.

    ``fpr_nee`` and ``fpr_cec`` are DebateCV's false-positive rates (Table 4): of the claims whose
    gold is not that neutral label, the share predicted with it, FP / (FP + TN). ``neutral_rate``
    (NEE predictions over all claims) and ``false_neutral_rate`` (wrong NEE over all claims) are
    the shares earlier reports printed. The AVeriTeC score counts a correct verdict only where
    the evidence the method used matches the gold evidence (``evidence_ok``, from :func:`evidence_match`).
    """
    pairs = [(g, p) for g, p in zip(gold, pred, strict=True) if g is not None]
    n = len(pairs)
    correct = [g == p for g, p in pairs]
    ok = evidence_ok if evidence_ok is not None else [True] * len(gold)
    ok = [o for o, g in zip(ok, gold, strict=True) if g is not None]
    return {
        "n": n,
        "accuracy": _safe_div(sum(correct), n),
        "neutral_rate": _safe_div(sum(1 for _, p in pairs if p == "not_enough_evidence"), n),
        "false_neutral_rate": _safe_div(sum(1 for g, p in pairs if p == "not_enough_evidence" and g != p), n),
        "fpr_nee": _false_positive_rate(pairs, "not_enough_evidence"),
        "fpr_cec": _false_positive_rate(pairs, "conflicting_evidence"),
        "averitec_score": _safe_div(sum(c and o for c, o in zip(correct, ok, strict=True)), n),
        "macro_f1": sum(_label_f1(pairs, label) for label in FOUR_LABELS) / len(FOUR_LABELS),
    }


FOUR_LABELS = ("supported", "refuted", "not_enough_evidence", "conflicting_evidence")


def _label_f1(pairs: list[tuple[str, str | None]], label: str) -> float:
    tp = sum(1 for g, p in pairs if g == p == label)
    precision = _safe_div(tp, sum(1 for _, p in pairs if p == label))
    recall = _safe_div(tp, sum(1 for g, _ in pairs if g == label))
    return _safe_div(2 * precision * recall, precision + recall)


def _false_positive_rate(pairs: Sequence[tuple[str, str | None]], label: str) -> float:
    negatives = [p for g, p in pairs if g != label]
    return _safe_div(sum(1 for p in negatives if p == label), len(negatives))


__all__ = [
    "accuracy_at_coverage",
    "binary_report",
    "evidence_match",
    "four_way_report",
    "label_prf",
    "paired",
    "risk_coverage",
    "to_binary",
    "verdict_confidence",
]


def paired(
    gold: Sequence[bool], method: Sequence[bool | None], floor: Sequence[bool | None]
) -> dict[str, int | float]:
    """Items ``method`` gets right that ``floor`` gets wrong (won), the reverse (lost), McNemar's p.

    The exact two-sided binomial test on the discordant items says how likely a difference this
    large is by chance; a failed prediction (None) is wrong.
    """
    won = sum(m is g and f is not g for g, m, f in zip(gold, method, floor, strict=True))
    lost = sum(f is g and m is not g for g, m, f in zip(gold, method, floor, strict=True))
    p = binomtest(won, won + lost).pvalue if won + lost else 1.0
    return {"n": len(gold), "won": won, "lost": lost, "p": float(p)}
