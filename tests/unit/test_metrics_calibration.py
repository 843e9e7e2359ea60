"""Calibration of P(true) and the debate's flips, against hand-computed values."""

import pytest

from factcourt.metrics.calibration import reliability
from factcourt.metrics.debate import flips


def test_reliability_table_and_expected_calibration_error_by_hand():
    p = [0.1, 0.1, 0.9, 0.9, 0.9, 0.5]
    gold = [False, True, True, True, False, True]
    r = reliability(p, gold, bins=5)
    rows = {(row["low"], row["high"]): row for row in r["rows"]}
    # bin [0.0, 0.2): p 0.1 twice, one true -> |0.1 - 0.5| = 0.4, weight 2/6
    assert rows[(0.0, 0.2)]["n"] == 2 and rows[(0.0, 0.2)]["frac_true"] == pytest.approx(0.5)
    # bin [0.8, 1.0]: p 0.9 three times, two true -> |0.9 - 2/3|, weight 3/6
    assert rows[(0.8, 1.0)]["n"] == 3 and rows[(0.8, 1.0)]["mean_p"] == pytest.approx(0.9)
    # bin [0.4, 0.6): p 0.5 once, true -> |0.5 - 1| = 0.5, weight 1/6
    expected = 2 / 6 * 0.4 + 3 / 6 * abs(0.9 - 2 / 3) + 1 / 6 * 0.5
    assert r["ece"] == pytest.approx(expected)
    brier = ((0.1 - 0) ** 2 + (0.1 - 1) ** 2 + 2 * (0.9 - 1) ** 2 + (0.9 - 0) ** 2 + (0.5 - 1) ** 2) / 6
    assert r["brier"] == pytest.approx(brier)
    assert r["n"] == 6 and r["missing"] == 0


def test_missing_probabilities_are_counted_not_scored():
    r = reliability([None, 1.0], [True, True], bins=5)
    assert r["n"] == 1 and r["missing"] == 1 and r["ece"] == pytest.approx(0.0)
    assert reliability([None], [True])["ece"] is None


def test_flips_count_right_to_wrong_and_wrong_to_right_among_debated_claims():
    gold = [True, True, False, False, True]
    first = [True, False, False, None, True]
    final = [False, True, False, True, True]
    r = flips(gold, first, final)
    assert r == {"debated": 4, "right_to_wrong": 1, "wrong_to_right": 1, "unchanged": 2}


def test_platt_fit_recovers_a_known_scaling():
    import math
    import random

    from factcourt.metrics.calibration import fit_platt, logit, platt

    rng = random.Random(0)
    raw = [rng.uniform(0.01, 0.99) for _ in range(4000)]
    # truth drawn from sigmoid(0.5 * logit(p) - 1): an overconfident model biased to 'true'
    gold = [rng.random() < 1 / (1 + math.exp(-(0.5 * logit(p) - 1.0))) for p in raw]
    a, b = fit_platt(raw, gold)
    assert a == pytest.approx(0.5, abs=0.1) and b == pytest.approx(-1.0, abs=0.15)
    assert platt(0.5, 0.5, -1.0) == pytest.approx(1 / (1 + math.exp(1.0)))


def test_platt_clips_certainties_and_refuses_one_class():
    from factcourt.metrics.calibration import fit_platt, platt

    assert 0.0 < platt(0.0, 1.0, 0.0) < 0.001 and 0.999 < platt(1.0, 1.0, 0.0) < 1.0
    with pytest.raises(ValueError):
        fit_platt([0.2, 0.9], [True, True])


def test_against_the_floor_counts_items_won_and_lost_and_their_exact_p():
    from factcourt.metrics.classification import paired

    gold = [True, True, False, False, True, False]
    floor = [True, False, False, True, False, False]
    method = [True, True, False, False, True, True]
    result = paired(gold, method, floor)
    assert result["won"] == 3 and result["lost"] == 1 and result["n"] == 6
    assert abs(result["p"] - 0.625) < 1e-9  # two-sided exact binomial on 3 of 4 discordant
    assert paired(gold, floor, floor) == {"n": 6, "won": 0, "lost": 0, "p": 1.0}
    # a failed prediction (None) is wrong, as everywhere in the reports
    assert paired([True], [None], [True])["lost"] == 1


def test_a_slope_fitted_at_a_fixed_boundary_keeps_every_verdict_and_scales_only_the_confidence():
    import random

    from factcourt.metrics.calibration import fit_slope, logit

    rng = random.Random(0)
    # informative readings: TRUE cases around 0.7, FALSE ones around 0.2
    gold = [i % 2 == 0 for i in range(400)]
    informative = [min(max(rng.gauss(0.7 if g else 0.2, 0.15), 0.01), 0.99) for g in gold]
    # readings that say nothing: the same spread whatever the truth
    noise = [min(max(rng.gauss(0.4, 0.2), 0.01), 0.99) for _ in gold]
    boundary = logit(0.45)
    steep, flat = fit_slope(informative, gold, boundary), fit_slope(noise, gold, boundary)
    assert steep > 1.0 and 0.0 <= flat < 0.2  # no signal, no confidence
    # the verdict is the side of the boundary, whatever the slope
    assert fit_slope([0.2, 0.3, 0.8], [True, False, True], boundary) >= 0.0


def test_a_slope_needs_both_classes():
    from factcourt.metrics.calibration import fit_slope

    with pytest.raises(ValueError):
        fit_slope([0.2, 0.9], [False, False], 0.0)
