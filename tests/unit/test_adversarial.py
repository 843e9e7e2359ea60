"""DebateCV's adversarial protocol: moderator stopping, the four verdicts, parse failures."""

import re

import pytest

import factcourt
from factcourt.context.claims import PRESETS
from factcourt.prompts.claims import table
from tests.fakes import debater, moderator

CLAIM = "The Eiffel Tower is in Paris."


# the preset's mechanics under our prompts (tests/unit/test_debatecv_paper.py: the paper's)
OUR_PROMPTS = {**PRESETS["debatecv"], "debate_prompts": "ours"}


def run(evidence, **settings):
    settings = {"model": "scripted", "search": "given", "cache": False, **OUR_PROMPTS, **settings}
    return factcourt.verify(CLAIM, evidence, **settings)


def test_adaptive_moderator_stops_after_round_1(scripted, evidence):
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    result = run(evidence, rule="adaptive")
    assert result["rounds"] == 1 and result["verdict"] == "supported"
    assert scripted.count("DebaterAnswer") == 2 and scripted.count("ModeratorAnswer") == 1
    assert [t["speaker"] for t in result["transcript"]] == ["Affirmative", "Negative"]


def test_free_moderator_stops_at_convergence_from_round_2(scripted, evidence):
    # round 1's verdict differs, so a judge reading the first summary would be caught
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True), moderator("refuted", stop=True)]
    result = run(evidence, rule="free")
    assert result["rounds"] == 2 and result["verdict"] == "refuted"
    assert result["justification"] == "The debate shows refuted."
    assert scripted.count("ModeratorAnswer") == 2
    assert len(result["summaries"]) == 2 and result["summaries"][-1]["stop"]


def test_debate_runs_to_the_round_limit_without_convergence(scripted, evidence):
    scripted.script["ModeratorAnswer"] = [
        moderator(v, stop=False, new_insights=True)
        for v in ("supported", "not_enough_evidence", "conflicting_evidence")
    ]
    result = run(evidence, rule="adaptive")
    assert result["rounds"] == 3
    assert result["verdict"] == "conflicting_evidence"
    assert result["justification"] == "The debate shows conflicting_evidence."
    assert scripted.count("DebaterAnswer") == 6 and scripted.count("ModeratorAnswer") == 3
    note = table("en").LAST_ROUND_NOTE.strip()
    *earlier, last = [p for n, p in scripted.calls if n == "ModeratorAnswer"]
    assert note in last and not any(note in p for p in earlier)


def marked_debater(user_prompt):
    """A debater whose argument names its side and round, to trace who sees what."""
    side, round_ = re.search(r"Round (\d+)\. You are the (\w+) debater", user_prompt).group(2, 1)
    return {**debater(0.9), "argument": f"MARK-{side[:3].upper()}-R{round_} per [E1]."}


def marked_moderator(user_prompt):
    round_ = re.search(r"This was round (\d+)", user_prompt).group(1)
    return {**moderator("supported", stop=False, new_insights=True), "summary": f"SUMMARY-R{round_}"}


def test_each_speaker_sees_what_was_said_before_it(scripted, evidence):
    scripted.script["DebaterAnswer"] = [marked_debater]
    scripted.script["ModeratorAnswer"] = [marked_moderator]
    run(evidence, rule="adaptive", rounds=2)
    aff_1, neg_1, aff_2, neg_2 = [p for n, p in scripted.calls if n == "DebaterAnswer"]
    mod_1, mod_2 = [p for n, p in scripted.calls if n == "ModeratorAnswer"]
    assert "MARK-" not in aff_1
    assert "MARK-AFF-R1" in neg_1 and "MARK-NEG" not in neg_1
    assert "MARK-AFF-R1" in aff_2 and "MARK-NEG-R1" in aff_2 and "MARK-AFF-R2" not in aff_2
    assert "MARK-AFF-R2" in neg_2 and "MARK-NEG-R2" not in neg_2
    assert "MARK-AFF-R1" in mod_1 and "MARK-NEG-R1" in mod_1 and "SUMMARY-" not in mod_1
    assert all(m in mod_2 for m in ("MARK-AFF-R2", "MARK-NEG-R2", "SUMMARY-R1"))


def test_a_failed_turn_leaves_the_round_to_the_other_debater(scripted, evidence):
    # the Negative's round-1 answer never parses: its turn is recorded as failed, not argued
    scripted.script["DebaterAnswer"] = [
        lambda p: "no JSON here" if "Round 1. You are the Negative" in p else marked_debater(p)
    ]
    scripted.script["ModeratorAnswer"] = [marked_moderator]
    result = run(evidence, rule="adaptive", rounds=2, retries=0)
    assert result["error"] is None and result["verdict"] == "supported" and result["rounds"] == 2
    failed = [(t["speaker"], t["round"]) for t in result["transcript"] if t["failed"]]
    assert failed == [("Negative", 1)]
    mod_1 = [p for n, p in scripted.calls if n == "ModeratorAnswer"][0]
    assert "MARK-AFF-R1" in mod_1 and "[Round 1] Negative" not in mod_1


def test_a_round_where_both_debaters_fail_fails_the_claim(scripted, evidence):
    scripted.script["DebaterAnswer"] = ["no JSON here"]
    result = run(evidence, rule="adaptive", retries=0)
    assert result["verdict"] is None and result["error"].startswith("every turn of round 1 failed")
    assert scripted.count("ModeratorAnswer") == 0


@pytest.mark.parametrize("verdict", ["supported", "refuted", "not_enough_evidence", "conflicting_evidence"])
def test_each_of_the_four_verdicts(scripted, evidence, verdict):
    scripted.script["ModeratorAnswer"] = [moderator(verdict, stop=True)]
    result = run(evidence, rule="adaptive")
    assert result["verdict"] == verdict
    assert result["justification"] == f"The debate shows {verdict}."


def test_unparsable_moderator_is_a_recorded_failure_never_a_made_up_verdict(scripted, evidence):
    scripted.script["ModeratorAnswer"] = ["I think it is fine"]
    result = run(evidence, rule="adaptive", retries=2)
    assert result["verdict"] is None and result["error"].startswith("moderator failed")
    assert scripted.count("ModeratorAnswer") == 3  # asked, then retried twice


def test_mandatory_search_retrieves_once_before_round_1(scripted, corpus):
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    scripted.script["DebaterAnswer"] = [debater(0.2, "unsure query")]
    result = factcourt.verify(
        CLAIM,
        model="scripted",
        corpus=corpus,
        cache=False,
        **{**OUR_PROMPTS, "rule": "mandatory_search"},
    )
    assert result["usage"]["search_calls"] == 1
    assert result["transcript"][0]["retrieved_before"]


def test_free_debaters_retrieve_when_unsure(scripted, corpus):
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    scripted.script["DebaterAnswer"] = [debater(0.2, "Eiffel Tower"), debater(0.9)]
    # outside the preset: its debaters never search (theta 0), the claim's search being its evidence set
    settings = {**OUR_PROMPTS, "rule": "free", "theta": 0.7, "evidence_first": False}
    result = factcourt.verify(CLAIM, model="scripted", corpus=corpus, cache=False, **settings)
    assert result["usage"]["search_calls"] == 1 and result["queries"] == ["Eiffel Tower"]
    assert any("Eiffel Tower" in e["title"] for e in result["evidence"])


def test_given_evidence_reaches_the_debaters_with_its_url(scripted, evidence):
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    run(evidence, rule="adaptive")
    first_prompt = [p for n, p in scripted.calls if n == "DebaterAnswer"][0]
    assert "[E1] Paris (https://example.org/paris)" in first_prompt
