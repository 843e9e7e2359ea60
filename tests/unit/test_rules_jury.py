"""Each jury rule's routing, counted in model and search calls with a scripted model."""

import factcourt
from factcourt.context.claims import PRESETS
from tests.fakes import juror

CLAIM = "The Eiffel Tower is in Paris."


def run(scripted, corpus, **settings):
    settings = {"model": "scripted", "corpus": corpus, "cache": False, **PRESETS["madfact"], **settings}
    return factcourt.verify(CLAIM, **settings)


def test_free_confident_jury_answers_directly(scripted, corpus):
    scripted.script["JurorAnswer"] = [juror("supported")]
    result = run(scripted, corpus, rule="free")
    assert scripted.count("JurorAnswer") == 6  # 3 jurors x 2 rounds
    assert result["usage"]["search_calls"] == 0
    assert result["verdict"] == "supported" and result["rounds"] == 2


def test_free_unsure_juror_retrieves_then_answers_again_in_round_1_only(scripted, corpus):
    unsure, sure = juror("not_enough_evidence", 0.3, "Eiffel Tower location"), juror("supported")
    scripted.script["JurorAnswer"] = [unsure, sure, unsure, sure, unsure, sure, unsure]
    result = run(scripted, corpus, rule="free")
    # round 1: 3 x (unsure + answer after evidence); round 2: direct answers even when unsure
    assert scripted.count("JurorAnswer") == 9
    assert result["usage"]["search_calls"] == 1 + 2  # the suggested query, then fresh ones
    assert len(result["queries"]) == len(set(result["queries"]))
    assert all(t["retrieved_before"] for t in result["transcript"] if t["round"] == 1)
    assert not any(t["retrieved_before"] for t in result["transcript"] if t["round"] == 2)


def test_mandatory_search_retrieves_before_every_round_1_turn(scripted, corpus):
    scripted.script["JurorAnswer"] = [juror("supported", 0.2)]  # unsure, but already searched
    scripted.script["SearchQuery"] = [{"query": "Eiffel Tower city"}, {"query": "Paris landmarks"}]
    result = run(scripted, corpus, rule="mandatory_search")
    assert scripted.count("JurorAnswer") == 6
    # round 1 only: a round-2 search would ask for a query again, though it finds none new to make
    assert scripted.count("SearchQuery") == 2
    assert [t["retrieved_before"] for t in result["transcript"]] == [True] * 3 + [False] * 3
    assert result["usage"]["search_calls"] == 3
    assert result["queries"] == [CLAIM, "Eiffel Tower city", "Paris landmarks"]
    assert result["evidence"], "the knowledge base is shared and filled"


def test_adaptive_unanimous_round_1_goes_straight_to_the_vote(scripted, corpus):
    scripted.script["JurorAnswer"] = [juror("supported")]
    result = run(scripted, corpus, rule="adaptive")
    assert scripted.count("JurorAnswer") == 3  # exactly N evaluator calls
    assert result["usage"]["calls"] == 3 and result["usage"]["search_calls"] == 0
    assert result["rounds"] == 1


def test_adaptive_split_jury_must_retrieve_before_round_2(scripted, corpus):
    scripted.script["JurorAnswer"] = [
        juror("supported"),
        juror("refuted"),
        juror("supported"),
        juror("supported"),
    ]
    scripted.script["SearchQuery"] = [{"query": "q two"}, {"query": "q three"}]
    result = run(scripted, corpus, rule="adaptive")
    assert scripted.count("JurorAnswer") == 6
    assert result["usage"]["search_calls"] == 3
    assert all(t["retrieved_before"] for t in result["transcript"] if t["round"] == 2)


def test_ablations_no_search_and_no_debate(scripted, corpus):
    scripted.script["JurorAnswer"] = [juror("supported", 0.1, "some query")]
    result = run(scripted, corpus, rule="free", search="none", use_debate=False)
    assert scripted.count("JurorAnswer") == 3
    assert result["usage"]["search_calls"] == 0 and result["rounds"] == 1


def test_no_roles_ablation_uses_identical_evaluators(scripted, corpus):
    scripted.script["JurorAnswer"] = [juror("supported")]
    result = run(scripted, corpus, use_roles=False, use_debate=False)
    assert set(result["votes"]) == {"Evaluator 1", "Evaluator 2", "Evaluator 3"}
    prompts = [p for name, p in scripted.calls if name == "JurorAnswer"]
    assert all("You are a careful fact-checker" in p for p in prompts)
    assert not any("critic" in p.lower() for p in prompts)


def test_unparsable_turn_is_retried_then_recorded_failed_and_vote_uses_the_rest(scripted, corpus):
    scripted.script["JurorAnswer"] = [
        juror("refuted"),
        "not json at all",
        "still not",
        "nope",
        juror("refuted"),
    ]
    result = run(scripted, corpus, rule="free", use_debate=False, retries=2)
    failed = [t for t in result["transcript"] if t["failed"]]
    assert len(failed) == 1 and failed[0]["speaker"] == "Critic"
    assert result["verdict"] == "refuted" and set(result["votes"]) == {"General Public", "News Author"}


def test_model_timeouts_fail_the_claim_with_a_reason_not_a_verdict(scripted, corpus):
    scripted.script["JurorAnswer"] = [TimeoutError("model timed out")]
    result = run(scripted, corpus, rule="free")
    assert result["verdict"] is None
    assert "TimeoutError" in result["error"]


def test_a_round_in_which_every_turn_failed_ends_the_debate_and_fails_the_claim(scripted, corpus):
    scripted.script["JurorAnswer"] = [TimeoutError("slow")]
    result = run(scripted, corpus, rule="free", search="none")
    assert scripted.count("JurorAnswer") == 3  # round 1 only
    assert result["verdict"] is None and result["error"].startswith("every turn of round 1 failed")


def test_one_answered_turn_keeps_the_debate_going(scripted, corpus):
    scripted.script["JurorAnswer"] = [TimeoutError("slow"), juror("supported")]
    result = run(scripted, corpus, rule="free", search="none")
    assert scripted.count("JurorAnswer") == 6 and result["verdict"] == "supported"


def test_a_failed_round_two_fails_the_claim_but_keeps_round_one(scripted, corpus):
    answers = [juror("supported")] * 3 + [TimeoutError("slow")]
    scripted.script["JurorAnswer"] = answers
    result = run(scripted, corpus, rule="free", search="none")
    assert result["verdict"] is None and result["error"].startswith("every turn of round 2 failed")
    assert result["first_round_verdict"] == "supported" and len(result["transcript"]) == 6


def test_last_round_stops_once_the_speakers_left_cannot_change_the_majority(scripted, corpus):
    scripted.script["JurorAnswer"] = [juror("supported"), juror("supported"), juror("refuted")]
    result = run(scripted, corpus, rule="free", rounds=1, settled_stop=True)
    assert scripted.count("JurorAnswer") == 2  # the third juror could not outvote two
    assert result["verdict"] == "supported" and result["first_round_verdict"] == "supported"
    assert [t["speaker"] for t in result["transcript"]] == ["General Public", "Critic"]


def test_a_split_vote_hears_every_juror(scripted, corpus):
    scripted.script["JurorAnswer"] = [juror("supported"), juror("refuted"), juror("refuted")]
    result = run(scripted, corpus, rule="free", rounds=1, settled_stop=True)
    assert scripted.count("JurorAnswer") == 3
    assert result["verdict"] == "refuted"


def test_five_jurors_stop_after_three_agree_and_only_in_the_last_round(scripted, corpus):
    scripted.script["JurorAnswer"] = [juror("refuted")]
    one_round = run(scripted, corpus, rule="free", rounds=1, jurors=5, settled_stop=True)
    assert scripted.count("JurorAnswer") == 3 and one_round["verdict"] == "refuted"
    scripted.calls.clear()
    two_rounds = run(scripted, corpus, rule="free", rounds=2, settled_stop=True)
    assert scripted.count("JurorAnswer") == 3 + 2  # round 1 whole: its turns feed round 2
    assert two_rounds["rounds"] == 2


def test_the_paper_preset_and_a_judge_agent_hear_every_juror(scripted, corpus):
    scripted.script["JurorAnswer"] = [juror("supported")]
    run(scripted, corpus, rule="free", rounds=1)  # the madfact preset: every evaluator speaks
    assert scripted.count("JurorAnswer") == 3
    scripted.calls.clear()
    run(scripted, corpus, rule="free", rounds=1, settled_stop=True, jury_judge="model")
    assert scripted.count("JurorAnswer") == 3
