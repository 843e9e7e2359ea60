"""DebateCV's adversarial protocol: moderator stopping, the four verdicts, parse failures."""

import pytest

import factcourt
from factcourt.context import PRESETS
from tests.fakes import debater, moderator

CLAIM = "The Eiffel Tower is in Paris."


def run(evidence, **settings):
    settings = {"model": "scripted", "search": "given", "cache": False, **PRESETS["debatecv"], **settings}
    return factcourt.verify(CLAIM, evidence, **settings)


def test_adaptive_moderator_stops_after_round_1(scripted, evidence):
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    result = run(evidence, rule="adaptive")
    assert result["rounds"] == 1 and result["verdict"] == "supported"
    assert scripted.count("DebaterAnswer") == 2 and scripted.count("ModeratorAnswer") == 1
    assert [t["speaker"] for t in result["transcript"]] == ["Affirmative", "Negative"]


def test_free_moderator_stops_at_convergence_from_round_2(scripted, evidence):
    scripted.script["ModeratorAnswer"] = [moderator("refuted", stop=True)]
    result = run(evidence, rule="free")
    assert result["rounds"] == 2 and result["verdict"] == "refuted"
    assert scripted.count("ModeratorAnswer") == 2
    assert len(result["summaries"]) == 2 and result["summaries"][-1]["stop"]


def test_debate_runs_to_the_round_limit_without_convergence(scripted, evidence):
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=False, new_insights=True)]
    result = run(evidence, rule="adaptive")
    assert result["rounds"] == 3
    assert scripted.count("DebaterAnswer") == 6 and scripted.count("ModeratorAnswer") == 3
    assert "last round" in [p for n, p in scripted.calls if n == "ModeratorAnswer"][-1]


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
        CLAIM, model="scripted", rule="mandatory_search", corpus=corpus, cache=False, **PRESETS["debatecv"]
    )
    assert result["usage"]["search_calls"] == 1
    assert result["transcript"][0]["retrieved_before"]


def test_free_debaters_retrieve_when_unsure(scripted, corpus):
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    scripted.script["DebaterAnswer"] = [debater(0.2, "Eiffel Tower"), debater(0.9)]
    result = factcourt.verify(
        CLAIM, model="scripted", rule="adaptive", corpus=corpus, cache=False, **PRESETS["debatecv"]
    )
    assert result["usage"]["search_calls"] == 1 and result["queries"] == ["Eiffel Tower"]
    assert any("Eiffel Tower" in e["title"] for e in result["evidence"])


def test_given_evidence_reaches_the_debaters_with_its_url(scripted, evidence):
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    run(evidence, rule="adaptive")
    first_prompt = [p for n, p in scripted.calls if n == "DebaterAnswer"][0]
    assert "[E1] Paris (https://example.org/paris)" in first_prompt
