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


def test_precision_of_claims_none_could_check_is_undefined_not_zero():
    """An answer whose every claim lacked evidence is not 0% true (the HTML report said 0.00)."""
    s = response_scores(["not_enough_evidence", "not_enough_evidence"])
    assert s["judged"] == 2 and s["precision"] is None


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


# ------------------------------------------------ importance pyramid (MAD-Fact §5, spec A)

from factcourt.metrics.response import (  # noqa: E402
    layer_weight,
    mean_scores,
    pyramid_layer,
    pyramid_scores,
)


def test_layer_is_g_minus_f_plus_one_and_weight_is_five_minus_layer_for_three_experts():
    assert [pyramid_layer(f, 3) for f in (3, 2, 1)] == [1, 2, 3]
    assert [layer_weight(k, 3) for k in (1, 2, 3)] == [4, 3, 2]  # "all three ... a score of 4"
    # the general rule keeps every layer above the unmatched claims' weight 1 and ordered
    assert [layer_weight(pyramid_layer(f, 5), 5) for f in (5, 1)] == [6, 2]
    assert [layer_weight(pyramid_layer(f, 1), 1) for f in (1,)] == [2]
    with pytest.raises(ValueError):
        pyramid_layer(0, 3)
    with pytest.raises(ValueError):
        pyramid_layer(4, 3)


# golden set of one question: g1 said by 3 experts (4), g2 by 2 (3), g3 by 1 (2): total 9
GOLDEN = {"g1": 4.0, "g2": 3.0, "g3": 2.0}


def test_weighted_precision_recall_and_f1_at_gamma_by_hand():
    # supported: g1 (4), an off-pyramid claim (1); not supported: g3 (2)
    claims = [(True, 4.0, "g1"), (True, 1.0, None), (False, 2.0, "g3")]
    s = pyramid_scores(claims, GOLDEN, gammas=(1.0, 0.8), ks=(64, 178))
    assert s["precision"] == pytest.approx(5 / 7)
    assert s["recall@1.0"] == pytest.approx(5 / 9)
    assert s["recall@0.8"] == pytest.approx(5 / (0.8 * 9))
    p, r = 5 / 7, 5 / 9
    assert s["f1@1.0"] == pytest.approx(2 * p * r / (p + r))
    # SAFE counts claims, unweighted: 2 supported, 1 not
    assert s["f1@64"] == pytest.approx(2 * (2 / 3) * (2 / 64) / (2 / 3 + 2 / 64))
    assert s["supported"] == 2 and s["not_supported"] == 1 and s["golden_matched"] == 1


def test_one_golden_claim_matched_twice_counts_once_in_recall_but_twice_in_precision():
    claims = [(True, 3.0, "g2"), (True, 3.0, "g2"), (False, 1.0, None)]
    s = pyramid_scores(claims, GOLDEN, gammas=(1.0,), ks=())
    assert s["recall@1.0"] == pytest.approx(3 / 9)
    assert s["precision"] == pytest.approx(6 / 7)
    assert s["golden_matched"] == 1


def test_recall_is_capped_at_one_and_no_supported_claim_gives_f1_zero():
    everything = [(True, 4.0, "g1"), (True, 3.0, "g2"), (True, 2.0, "g3")]
    assert pyramid_scores(everything, GOLDEN, gammas=(0.8,), ks=())["recall@0.8"] == 1.0
    nothing_true = pyramid_scores([(False, 4.0, "g1")], GOLDEN, gammas=(1.0,), ks=(64,))
    assert nothing_true["precision"] == 0.0 and nothing_true["recall@1.0"] == 0.0
    assert nothing_true["f1@1.0"] == 0.0 and nothing_true["f1@64"] == 0.0


def test_an_empty_pyramid_leaves_recall_and_f1_undefined_never_zero_or_one():
    s = pyramid_scores([(True, 1.0, None)], {}, gammas=(1.0, 0.8), ks=(64,))
    assert s["precision"] == 1.0
    assert s["recall@1.0"] is None and s["f1@1.0"] is None and s["recall@0.8"] is None
    assert s["f1@64"] == pytest.approx(2 * 1 * (1 / 64) / (1 + 1 / 64))  # SAFE needs no pyramid


def test_an_empty_pyramid_and_no_supported_claim_give_f1_zero_as_eq_19_says():
    # |S| = 0 decides F1 before the pyramid does: recall stays undefined, F1 is 0
    s = pyramid_scores([(False, 1.0, None)], {}, gammas=(1.0,), ks=())
    assert s["recall@1.0"] is None and s["f1@1.0"] == 0.0
    assert pyramid_scores([], {}, gammas=(1.0,), ks=())["f1@1.0"] == 0.0


def test_recall_credits_the_golden_claims_weight_not_the_matching_claims_own():
    # Eq. 18 weighs a fact by the pyramid: g1 weighs 4 whatever weight its matching claim carries
    s = pyramid_scores([(True, 1.0, "g1")], GOLDEN, gammas=(1.0,), ks=())
    assert s["recall@1.0"] == pytest.approx(4 / 9) and s["precision"] == 1.0


def test_a_response_with_no_judged_claim_has_undefined_precision_and_f1_zero():
    s = pyramid_scores([], GOLDEN, gammas=(1.0,), ks=(64,))
    assert s["precision"] is None and s["recall@1.0"] == 0.0 and s["f1@1.0"] == 0.0


def test_scores_are_averaged_per_response_not_taken_from_the_averaged_p_and_r():
    # the paper's tables: F1 is the mean of per-response F1s
    a = pyramid_scores([(True, 4.0, "g1")], GOLDEN, gammas=(1.0,), ks=())  # P 1, R 4/9
    b = pyramid_scores([(True, 2.0, "g3"), (False, 4.0, None)], GOLDEN, gammas=(1.0,), ks=())  # P 1/3, R 2/9
    mean = mean_scores([a, b])
    assert mean["precision"]["mean"] == pytest.approx((1 + 1 / 3) / 2)
    assert mean["recall@1.0"]["mean"] == pytest.approx((4 / 9 + 2 / 9) / 2)
    per_response = (f1(1.0, 4 / 9) + f1(1 / 3, 2 / 9)) / 2
    assert mean["f1@1.0"]["mean"] == pytest.approx(per_response)
    assert mean["f1@1.0"]["mean"] != pytest.approx(f1(mean["precision"]["mean"], mean["recall@1.0"]["mean"]))


def test_the_mean_leaves_undefined_values_out_and_counts_them():
    defined = pyramid_scores([(True, 4.0, "g1")], GOLDEN, gammas=(1.0,), ks=())
    undefined = pyramid_scores([(True, 1.0, None)], {}, gammas=(1.0,), ks=())
    mean = mean_scores([defined, undefined])
    assert mean["recall@1.0"] == {"mean": pytest.approx(4 / 9), "n": 1, "undefined": 1}
    assert mean_scores([undefined])["recall@1.0"]["mean"] is None
