"""Classification metrics against hand-computed tables, zero divisions and failures included."""

import pytest

from factcourt.metrics.classification import (
    accuracy_at_coverage,
    answered_report,
    binary_report,
    four_way_report,
    label_prf,
    risk_coverage,
    to_binary,
    verdict_confidence,
)
from factcourt.metrics.meteor import evidence_match, hungarian_meteor, meteor


def test_binary_report_by_hand():
    gold = [True, True, True, False, False]
    pred = [True, False, True, False, True]
    r = binary_report(gold, pred)
    # TRUE: tp=2, predicted=3, actual=3 -> P=R=F1=2/3; FALSE: tp=1, predicted=2, actual=2 -> 1/2
    assert r["true"]["precision"] == pytest.approx(2 / 3) and r["true"]["f1"] == pytest.approx(2 / 3)
    assert r["false"]["recall"] == pytest.approx(0.5) and r["false"]["f1"] == pytest.approx(0.5)
    assert r["accuracy"] == pytest.approx(0.6) and r["macro_f1"] == pytest.approx(7 / 12)


def test_failures_count_as_wrong_and_are_counted():
    r = binary_report([True, False], [None, False])
    assert r["failed"] == 1 and r["accuracy"] == 0.5
    assert r["true"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert r["false"]["precision"] == 1.0


def test_zero_divisions_are_zero_not_errors():
    assert label_prf([], [], True) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert binary_report([], [])["accuracy"] == 0.0


def test_to_binary():
    assert to_binary("supported") is True and to_binary("conflicting_evidence") is False
    assert to_binary(None) is None
    assert to_binary("not_enough_evidence", ("supported", "not_enough_evidence")) is True


def test_four_way_neutral_rate_and_averitec_score():
    gold = ["refuted", "supported", "refuted", "not_enough_evidence"]
    pred = ["refuted", "not_enough_evidence", "not_enough_evidence", "not_enough_evidence"]
    r = four_way_report(gold, pred, evidence_ok=[True, True, True, False])
    assert r["accuracy"] == 0.5 and r["neutral_rate"] == 0.75
    assert r["false_neutral_rate"] == 0.5
    assert r["averitec_score"] == 0.25  # the NEE hit had no matching evidence


def test_four_way_macro_f1_and_the_neutral_verdicts_false_positive_rates():
    gold = ["supported", "refuted", "refuted", "not_enough_evidence", "conflicting_evidence"]
    pred = ["supported", "refuted", "not_enough_evidence", "not_enough_evidence", None]
    r = four_way_report(gold, pred)
    # F1: supported 1, refuted 2/3, NEE 2/3, CEC 0 (its one claim failed)
    assert r["macro_f1"] == pytest.approx((1 + 2 / 3 + 2 / 3 + 0) / 4)
    assert r["fpr_nee"] == 0.25  # 1 of the 4 claims that are not NEE
    assert r["fpr_cec"] == 0.0


def test_meteor_known_pairs():
    assert meteor("the cat sat on the mat", "the cat sat on the mat") == pytest.approx(0.9977, abs=1e-3)
    assert meteor("the cat sat on the mat", "a dog ran") == 0.0
    paraphrase = meteor("the cat sat on the mat", "the cat was sitting on the mat")
    assert paraphrase == pytest.approx(0.7934, abs=1e-3)
    assert meteor("", "anything") == 0.0


def test_hungarian_matching_pairs_each_gold_piece_once():
    gold = ["Paris is the capital of France", "The tower opened in 1889"]
    same = hungarian_meteor(gold, list(reversed(gold)))
    assert same > 0.95
    assert hungarian_meteor(gold, [gold[0]]) == pytest.approx(same / 2, abs=0.02)
    assert evidence_match(gold, gold) and not evidence_match(gold, ["bananas are yellow"])
    assert hungarian_meteor([], gold) == 0.0


def test_false_positive_rate_of_a_neutral_label_is_over_the_claims_whose_gold_is_another_label():
    # DebateCV Table 4: FP / (FP + TN), the negatives being the claims whose gold is not that label
    gold = ["supported", "refuted", "refuted", "not_enough_evidence", "conflicting_evidence", None]
    pred = ["not_enough_evidence", "refuted", "conflicting_evidence", "not_enough_evidence", "supported", "x"]
    r = four_way_report(gold, pred)
    assert r["fpr_nee"] == 1 / 4  # one NEE among the 4 claims whose gold is not NEE
    assert r["fpr_cec"] == 1 / 4  # one CEC among the 4 claims whose gold is not CEC
    assert r["neutral_rate"] == 2 / 5 and r["false_neutral_rate"] == 1 / 5  # the old shares, kept


def test_false_positive_rates_count_a_failed_prediction_as_no_positive():
    r = four_way_report(["supported", "refuted"], [None, "not_enough_evidence"])
    assert r["fpr_nee"] == 0.5 and r["fpr_cec"] == 0.0


# five claims: a right (.9), b right and c wrong tied at .8, d wrong with no confidence, e not covered
SELECTIVE_GOLD = [True, False, False, True, True]
SELECTIVE_VERDICTS = ["supported", "refuted", "supported", "refuted", "not_enough_evidence"]
SELECTIVE_CONFIDENCES = [0.9, 0.8, 0.8, None, 0.99]


def test_answered_report_gives_the_macro_f1_of_the_covered_claims():
    r = answered_report(SELECTIVE_GOLD, SELECTIVE_VERDICTS)
    # covered a-d: gold T,F,F,T against T,F,T,F: each label P = R = F1 = 1/2
    assert (r["answered"], r["coverage"], r["covered_accuracy"]) == (4, 0.8, 0.5)
    assert r["covered_macro_f1"] == pytest.approx(0.5)
    # a label never given scores F1 0: one right refutation, no support given
    assert answered_report([False, True], ["refuted", "not_enough_evidence"])["covered_macro_f1"] == 0.5
    assert answered_report([True], ["not_enough_evidence"])["covered_macro_f1"] is None


def test_a_verdicts_confidence_is_the_probability_it_is_right():
    assert verdict_confidence("supported", 0.7) == 0.7
    assert verdict_confidence("refuted", 0.7) == pytest.approx(0.3)
    assert verdict_confidence("not_enough_evidence", 0.7) is None
    assert verdict_confidence("refuted", None) is None and verdict_confidence(None, 0.2) is None


def test_risk_coverage_ranks_covered_claims_by_confidence_ties_together_none_last():
    found = risk_coverage(SELECTIVE_GOLD, SELECTIVE_VERDICTS, SELECTIVE_CONFIDENCES)
    points = [(p["coverage"], p["accuracy"], p["answered"]) for p in found["curve"]]
    # a alone (1/5), then b and c at once (3/5, 2 of 3 right), then d, confidence unknown (4/5, 2 of 4)
    assert points == [(0.2, 1.0, 1), (0.6, pytest.approx(2 / 3), 3), (0.8, 0.5, 4)]
    # steps of width 1/5 per claim: 1/5 * 1 + 2/5 * 2/3 + 1/5 * 1/2
    assert found["accuracy_coverage_area"] == pytest.approx(17 / 30)
    # the claims' order in the input does not matter
    order = [3, 2, 4, 1, 0]
    again = risk_coverage(
        *([xs[i] for i in order] for xs in (SELECTIVE_GOLD, SELECTIVE_VERDICTS, SELECTIVE_CONFIDENCES))
    )
    assert again == found


def test_risk_coverage_of_nothing_covered_is_empty_with_no_area():
    assert risk_coverage([True], ["not_enough_evidence"], [0.9]) == {
        "curve": [],
        "accuracy_coverage_area": 0.0,
    }
    assert risk_coverage([], [], []) == {"curve": [], "accuracy_coverage_area": 0.0}
    # every verdict right at full coverage: the area is 1
    assert risk_coverage([True, False], ["supported", "refuted"], [0.6, 0.9])["accuracy_coverage_area"] == 1.0


def test_accuracy_at_a_coverage_is_that_of_the_most_confident_claims_within_it():
    curve = risk_coverage(SELECTIVE_GOLD, SELECTIVE_VERDICTS, SELECTIVE_CONFIDENCES)["curve"]
    assert accuracy_at_coverage(curve, 0.2) == 1.0
    assert accuracy_at_coverage(curve, 0.5) == 1.0  # the tie at .8 would take it to 0.6
    assert accuracy_at_coverage(curve, 0.75) == pytest.approx(2 / 3)
    assert accuracy_at_coverage(curve, 0.1) is None  # no prefix that small
    assert accuracy_at_coverage(curve, 0.9) is None  # beyond what was covered
