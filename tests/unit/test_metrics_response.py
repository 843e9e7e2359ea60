"""Response-level metrics against hand-computed values, zero divisions included."""

import pytest

from factcourt.metrics.response import (
    f1,
    f1_at_k,
    recall_at_gamma,
    response_scores,
    weighted_precision,
)


def test_response_scores_counts_and_precision():
    s = response_scores(["supported", "supported", "refuted", "not_enough_evidence", None])
    assert s["claims"] == 5 and s["failed"] == 1 and s["judged"] == 4
    assert s["precision"] == pytest.approx(0.5)


def test_precision_of_nothing_judged_is_undefined():
    assert response_scores([])["precision"] is None
    assert response_scores([None])["precision"] is None


def test_weighted_precision_recall_and_f1():
    assert weighted_precision([True, False, True], [3, 1, 1]) == pytest.approx(0.8)
    assert weighted_precision([], []) is None
    assert recall_at_gamma(4, 10, 0.5) == pytest.approx(0.8)
    assert recall_at_gamma(9, 10, 0.5) == 1.0
    assert recall_at_gamma(1, 0, 0.5) is None
    assert f1(0.8, 0.8) == pytest.approx(0.8)
    assert f1(0.0, 0.0) == 0.0 and f1(None, 0.5) is None


def test_f1_at_k_as_in_safe():
    assert f1_at_k(8, 2, 64) == pytest.approx(2 * 0.8 * 0.125 / 0.925)
    assert f1_at_k(0, 0, 64) == 0.0
    assert f1_at_k(70, 0, 64) == 1.0
