"""label_set='three': evidence that does not address a claim says so, in the same one call (issue 53)."""

import pytest

import factcourt
from factcourt.state.records import Evidence
from tests.fakes import with_logprobs

CLAIM = "Marie Curie was born in Warsaw in 1867."
# evidence that names neither Warsaw nor 1867, given (a search would not read a page the claim
# does not name at all)
SILENT = [
    Evidence(text="Marie Curie was a physicist and chemist who won two Nobel Prizes.", title="Marie Curie")
]


def run(corpus, **settings):
    return factcourt.verify(
        CLAIM, evidence=SILENT, model="scripted", cache=False, label_set="three", **settings
    )


def test_silent_evidence_gives_not_enough_evidence_never_refuted_in_one_call(scripted, corpus):
    # the 'refuted' lean of a two-label reading over evidence that names neither Warsaw nor 1867
    scripted.script["ThreeLabel"] = [
        with_logprobs(
            {"verdict": "not_enough_evidence"},
            {"supported": 0.05, "refuted": 0.15, "not_enough_evidence": 0.8},
        )
    ]
    result = run(corpus)
    assert result["usage"]["calls"] == 1 and scripted.count("Label") == 0
    assert result["verdict"] == "not_enough_evidence" and result["confidence"] == 0.8
    raw = result["first_pass"]["raw_probabilities"]
    # P(supported) and P(refuted) are read among the claims the evidence addresses
    assert raw == {"supported": 0.25, "refuted": 0.75, "not_enough_evidence": 0.8}
    [(_, prompt)] = [c for c in scripted.calls if c[0] == "ThreeLabel"]
    assert "not_enough_evidence" in prompt and "does not address the claim" in prompt


@pytest.mark.parametrize("threshold, verdict", [(0.5, "supported"), (0.3, "not_enough_evidence")])
def test_the_not_enough_evidence_threshold_decides_where_that_reading_wins(
    scripted, corpus, threshold, verdict
):
    scripted.script["ThreeLabel"] = [
        with_logprobs(
            {"verdict": "supported"}, {"supported": 0.6, "refuted": 0.05, "not_enough_evidence": 0.35}
        )
    ]
    result = run(corpus, not_enough_above=threshold, calibration="off")
    assert result["verdict"] == verdict
    assert result["p_true"] == pytest.approx(0.6 / 0.65, abs=1e-3)


def test_the_two_label_reading_is_unchanged_by_default(scripted, corpus):
    scripted.script["Label"] = [with_logprobs({"verdict": "refuted"}, {"supported": 0.2, "refuted": 0.8})]
    result = factcourt.verify(CLAIM, evidence=SILENT, model="scripted", cache=False, calibration="off")
    assert result["verdict"] == "refuted" and scripted.count("ThreeLabel") == 0
    assert "not_enough_evidence" not in result["first_pass"]["raw_probabilities"]


def test_a_fit_of_one_label_set_never_scales_the_other():
    from factcourt.nodes.claims.label_reading import label_prompt_key
    from factcourt.providers import calibration

    assert label_prompt_key("two") != label_prompt_key("three")
    assert calibration._file_name("local:x", "two") != calibration._file_name("local:x", "three")


def test_answered_scores_count_what_a_user_is_told():
    from factcourt.metrics.classification import answered_report, not_enough_recall

    gold = [True, False, True, False]
    found = answered_report(gold, ["supported", "refuted", "not_enough_evidence", "supported"])
    assert (found["answered"], found["coverage"]) == (3, 0.75)
    assert found["covered_accuracy"] == 2 / 3
    assert (found["supported_precision"], found["refuted_precision"]) == (0.5, 1.0)
    assert answered_report([True], ["not_enough_evidence"])["refuted_precision"] is None
    assert (
        not_enough_recall(
            ["not_enough_evidence", None, "not_enough_evidence"],
            ["not_enough_evidence", "refuted", "refuted"],
        )
        == 0.5
    )
    assert not_enough_recall([None], ["refuted"]) is None


def test_a_not_enough_info_row_of_a_four_way_file_is_scored_as_such(tmp_path):
    import json

    from factcourt.bench.datasets import load
    from factcourt.errors import InputError

    row = {"id": "c1", "claim": "Earth is about to enter a mini ice age.", "label": None, "evidence": ["x"]}
    path = tmp_path / "claims_4way.jsonl"
    path.write_text(json.dumps({**row, "meta": {"label_norm": "not_enough_info"}}) + "\n")
    [(_, gold)] = load(path)
    assert (gold.label, gold.label_4way) == (False, "not_enough_evidence")
    path.write_text(json.dumps({**row, "meta": {"label_norm": "half_true"}}) + "\n")
    with pytest.raises(InputError, match="half_true"):
        load(path)
