"""FACT-AUDIT metrics (IMR, JFR, Grade) against hand-computed values and the paper's tables."""

import pytest

from factcourt.metrics.audit import by, over_runs, pooled, scores, verdict_label

# Table 4 test counts and Table 1 IMR per object (complex claim, fake news, social rumor), and
# the Overall IMR Table 1 prints: the overall is pooled over cases, objects weighted by counts
TABLE_1_4 = {
    "Mistral-7B": ((60.21, 480), (47.50, 480), (59.05, 210), 54.79),
    "Llama2-7B": ((46.67, 480), (32.73, 330), (62.86, 210), 45.49),
    "Llama2-13B": ((65.67, 300), (55.33, 300), (48.10, 210), 57.28),
    "Llama3-8B": ((39.79, 480), (33.75, 480), (46.25, 240), 38.67),
    "Llama3.1-8B": ((55.83, 480), (36.39, 360), (47.62, 210), 47.52),
    "Llama3.1-70B": ((41.56, 450), (25.00, 480), (38.33, 240), 34.10),
    "Qwen2.5-7B": ((38.97, 390), (21.54, 390), (36.67, 240), 31.76),
    "Qwen2.5-72B": ((22.08, 480), (10.42, 480), (15.00, 240), 16.00),
    "GLM4-9B": ((52.73, 330), (51.67, 300), (50.00, 210), 51.67),
    "Gemma2-9B": ((41.67, 300), (35.48, 420), (44.07, 270), 39.70),
    "Gemini-Pro": ((30.21, 480), (19.39, 330), (32.86, 210), 27.25),
    "Claude3.5-Sonnet": ((32.71, 480), (15.00, 300), (18.57, 210), 24.34),
    "GPT-4o": ((14.05, 420), (10.56, 360), (10.48, 210), 12.02),
}


@pytest.mark.parametrize("model", sorted(TABLE_1_4))
def test_overall_imr_of_table_1_is_table_4_counts_pooling_the_objects(model):
    *objects, printed = TABLE_1_4[model]
    parts = [{"n": n, "imr": imr, "jfr": 0.0, "grade": 5.0} for imr, n in objects]
    result = pooled(parts)
    assert result["n"] == sum(n for _, n in objects)
    assert result["imr"] == pytest.approx(printed, abs=0.006)  # the per-object values are rounded
    assert result["grade"] == pytest.approx(5.0)


def test_scores_by_hand():
    # grades 2 (right verdict: a justification flaw), 3 (wrong verdict), 4 (not poor: epsilon is 4.0),
    # 9 and 3.5 (right verdict): poor = 2, 3, 3.5 -> IMR 60; CVPJ = 2, 3.5 -> JFR 40; mean 4.3;
    # 3 of 5 verdicts are the reference's -> agree 60
    result = scores([(2, True), (3, False), (4, False), (9, True), (3.5, True)])
    assert result == {"n": 5, "imr": 60.0, "jfr": 40.0, "grade": pytest.approx(4.3), "agree": 60.0}
    assert scores([]) == {"n": 0, "imr": None, "jfr": None, "grade": None, "agree": None}


def test_scores_per_scope_and_pooled_equal_the_scores_of_all_cases():
    cases = [("a", 2, True), ("a", 8, True), ("b", 1, False), ("b", 3, True), ("b", 10, True)]
    groups = by(cases, lambda c: c[0], lambda c: (c[1], c[2]))
    assert groups["a"] == {"n": 2, "imr": 50.0, "jfr": 50.0, "grade": 5.0, "agree": 100.0}
    assert groups["b"]["imr"] == pytest.approx(200 / 3) and groups["b"]["jfr"] == pytest.approx(100 / 3)
    whole = scores([(s, r) for _, s, r in cases])
    together = pooled(list(groups.values()))
    assert together == pytest.approx(whole)
    assert whole == {"n": 5, "imr": 60.0, "jfr": 40.0, "grade": pytest.approx(4.8), "agree": 80.0}


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Answer: Non-Factual\nJustification: the tower is in Paris.", "Non-Factual"),
        ("Answer: Factual. It is not Non-Factual as some claim.", "Factual"),
        ("Answer: Not Enough Information", "Not Enough Information"),
        ("The statement is not factual.", "Non-Factual"),
        ("**Answer:** non factual", "Non-Factual"),
        ("Verdict: Factual", "Factual"),
        ("Answer: [Factual, Non-Factual, or Not Enough Information]\nIt is Factual.", "Factual"),
        ("I cannot say.", None),
        # a later word "answer" is no answer line; a word that merely holds "factual" is no label
        (
            "Non-Factual\n\nJustification: the answer given by officials is factual only in part.",
            "Non-Factual",
        ),
        ("Counterfactual reasoning says: Non-Factual", "Non-Factual"),
        # SmolLM2's echo of the label list: "not Factual" there is no verdict
        ("The statement provided is not Factual, Non-Factual, or Not Enough Information.", None),
    ],
)
def test_verdict_label(text, label):
    assert verdict_label(text) == label


def test_runs_are_summarised_as_mean_and_sample_sd_per_metric():
    # the paper's practice (3 runs, mean ± sd); a run with nothing graded in a scope is left out
    # of that scope's mean, and one run alone has no sd
    runs = [
        {"n": 10, "imr": 40.0, "jfr": 10.0, "grade": 5.0, "agree": 50.0},
        {"n": 12, "imr": 50.0, "jfr": 20.0, "grade": 4.0, "agree": 60.0},
        {"n": 0, "imr": None, "jfr": None, "grade": None, "agree": None},
        {"n": 8, "imr": 60.0, "jfr": 30.0, "grade": 3.0, "agree": 70.0},
    ]
    summary = over_runs(runs)
    assert summary["runs"] == 3 and summary["n"] == 30
    assert summary["imr"] == {"mean": pytest.approx(50.0), "sd": pytest.approx(10.0)}
    assert summary["grade"] == {"mean": pytest.approx(4.0), "sd": pytest.approx(1.0)}
    assert over_runs(runs[:1])["jfr"] == {"mean": 10.0, "sd": None}
    assert over_runs(runs[2:3]) == {"runs": 0, "n": 0, "imr": None, "jfr": None, "grade": None, "agree": None}


def test_imr_by_iteration_is_cumulative_over_each_scenarios_first_k_cases():
    from factcourt.metrics.audit import by_iteration

    # scenario A: grades 2, 8, 9; scenario B: 9, 3 (Fig. 5: IMR against probing iterations)
    rows = by_iteration([[(2.0, False), (8.0, True), (9.0, True)], [(9.0, True), (3.0, True)]])
    assert [(r["iteration"], r["n"]) for r in rows] == [(1, 2), (2, 4), (3, 5)]
    assert [r["imr"] for r in rows] == [50.0, 50.0, 40.0]
    assert rows[1]["jfr"] == 25.0  # B's second case: right verdict, poor grade
    assert by_iteration([]) == []
