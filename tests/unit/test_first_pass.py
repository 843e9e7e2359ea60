"""The default path: evidence first, a first pass that routes, grounded and guarded turns."""

import asyncio
import logging

import pytest

import factcourt
from factcourt.context.claims import ClaimsContext
from factcourt.graphs.verify import graph
from factcourt.state.records import Claim
from tests.fakes import juror, rating, with_logprobs

CLAIM = "The Eiffel Tower is in Paris."


def run(corpus, **settings):
    return factcourt.verify(CLAIM, model="scripted", corpus=corpus, cache=False, **settings)


def test_a_confident_first_pass_decides_with_exactly_one_model_call(scripted, corpus):
    scripted.script["Label"] = [with_logprobs(rating("supported"), {"supported": 0.97, "refuted": 0.03})]
    result = run(corpus)
    assert result["usage"]["calls"] == 1 and scripted.count("JurorAnswer") == 0
    assert result["verdict"] == "supported" and result["route"] == "first_pass"
    assert result["confidence"] == 0.97 and result["p_true"] == 0.97
    # evidence came first: the search ran before the only call, and the prompt showed it
    assert result["usage"]["search_calls"] == 1
    [(_, prompt)] = [c for c in scripted.calls if c[0] == "Label"]
    assert "wrought-iron tower in Paris" in prompt


def test_a_contested_first_pass_goes_to_the_debate(scripted, corpus):
    scripted.script["Label"] = [with_logprobs(rating("refuted"), {"supported": 0.45, "refuted": 0.55})]
    scripted.script["JurorAnswer"] = [with_logprobs(juror("supported"), {"supported": 0.9, "refuted": 0.1})]
    result = run(corpus, first_pass_theta=0.8, jurors=3, rounds=2)
    assert result["route"] == "debate" and result["verdict"] == "supported"
    # 3 jurors in round 1; in round 2 (the last) the third cannot outvote the first two
    assert scripted.count("Label") == 1 and scripted.count("JurorAnswer") == 3 + 2
    assert result["first_pass"]["verdict"] == "refuted" and result["first_round_verdict"] == "supported"
    assert abs(result["p_true"] - 0.9) < 1e-9


@pytest.mark.parametrize("confidence, route", [(0.97, "first_pass"), (0.90, "debate")])
def test_the_first_pass_decides_only_at_or_above_its_threshold(scripted, corpus, confidence, route):
    first = with_logprobs(rating("supported"), {"supported": confidence, "refuted": 1 - confidence})
    scripted.script["Label"] = [first]
    scripted.script["JurorAnswer"] = [juror("supported")]
    result = run(corpus, first_pass_theta=0.95)
    assert result["route"] == route and result["verdict"] == "supported"
    assert abs(result["first_pass"]["confidence"] - confidence) < 1e-9
    assert (scripted.count("JurorAnswer") > 0) == (route == "debate")


def _events(corpus, **settings):
    ctx = ClaimsContext(model="scripted", corpus=corpus, cache=False, **settings)

    async def collect():
        events, final = [], None
        async for mode, chunk in graph.astream(
            {"claim": Claim(id="c1", text=CLAIM)}, context=ctx, stream_mode=["custom", "values"]
        ):
            if mode == "custom":
                events.append(chunk)
            else:
                final = chunk
        return events, final["results"][0]

    return asyncio.run(collect())


@pytest.mark.parametrize("source, logprobs", [("reported", True), ("logprobs", False)])
def test_a_first_pass_without_confidence_goes_to_the_jury_and_says_why(
    scripted, corpus, caplog, source, logprobs
):
    answer = rating("supported")
    scripted.script["Label"] = [with_logprobs(answer, {"supported": 0.99}) if logprobs else answer]
    scripted.script["JurorAnswer"] = [juror("supported")]
    with caplog.at_level(logging.WARNING):
        events, result = _events(corpus, first_pass_theta=0.95, confidence_source=source)
    assert result.route == "debate" and result.first_pass.confidence is None
    [event] = [e for e in events if e["event"] == "first_pass"]
    assert event["decided"] is False and event["reason"] == "no confidence: sent to the jury"
    assert "claim c1" in caplog.text and "no confidence: sent to the jury" in caplog.text


def test_a_first_pass_with_confidence_gives_no_such_reason(scripted, corpus, caplog):
    scripted.script["Label"] = [with_logprobs(rating("supported"), {"supported": 0.5, "refuted": 0.5})]
    with caplog.at_level(logging.WARNING):
        events, result = _events(corpus, first_pass_theta=0.95)
    [event] = [e for e in events if e["event"] == "first_pass"]
    assert result.route == "debate" and event["reason"] is None and "no confidence" not in caplog.text


def test_evidence_first_without_a_first_pass_leaves_the_first_juror_its_own_search(scripted, corpus):
    unsure = juror("not_enough_evidence", 0.3, "Eiffel Tower height")
    scripted.script["JurorAnswer"] = [unsure, juror("supported")]
    result = run(corpus, first_pass="off", jurors=2, rounds=1)
    # the claim's search is not the first juror's: unsure, it searches and answers again
    assert scripted.count("JurorAnswer") == 3
    assert result["queries"] == [CLAIM, "Eiffel Tower height"]
    turns = [(t["speaker"], t["verdict"], t["retrieved_before"]) for t in result["transcript"]]
    assert turns == [("General Public", "supported", True), ("Critic", "supported", False)]


def test_record_mode_keeps_the_first_pass_but_debates_every_claim(scripted, corpus):
    scripted.script["Label"] = [with_logprobs(rating("supported"), {"supported": 0.99, "refuted": 0.01})]
    result = run(corpus, first_pass="record")
    assert result["route"] == "debate" and result["first_pass"]["confidence"] == 0.99


def test_juror_confidence_comes_from_logprobs_not_from_what_it_says(scripted, corpus):
    scripted.script["JurorAnswer"] = [
        with_logprobs(juror("supported", 0.95), {"supported": 0.6, "refuted": 0.4})
    ]
    result = run(corpus, first_pass="off", evidence_first=False, search="none")
    assert all(t["confidence"] == 0.6 for t in result["transcript"])
    reported = run(
        corpus, first_pass="off", evidence_first=False, search="none", confidence_source="reported"
    )
    assert all(t["confidence"] == 0.95 for t in reported["transcript"])


def test_citations_of_evidence_never_shown_are_removed_and_counted(scripted, corpus):
    answer = {
        "explanation": "As [E1] and [E7] say.",
        "verdict": "supported",
        "confidence": 0.9,
        "search_query": "",
    }
    scripted.script["JurorAnswer"] = [answer]
    result = run(corpus, first_pass="off", use_debate=False)  # evidence first: [E1] exists
    turn = result["transcript"][0]
    assert turn["text"] == "As [E1] and say." and turn["citations"] == [1] and turn["dropped_citations"] == 1
    empty = run(corpus, first_pass="off", evidence_first=False, search="none", use_debate=False)
    assert "[E1]" not in empty["transcript"][0]["text"] and empty["transcript"][0]["dropped_citations"] == 2


def test_a_list_of_citations_keeps_only_the_evidence_shown(scripted, corpus):
    answer = {"explanation": "See [E1, E7].", "verdict": "supported", "confidence": 0.9, "search_query": ""}
    scripted.script["JurorAnswer"] = [answer]
    turn = run(corpus, first_pass="off", use_debate=False)["transcript"][0]  # [E1] exists
    assert turn["text"] == "See [E1]." and turn["citations"] == [1] and turn["dropped_citations"] == 1


def test_the_moderators_justification_keeps_only_the_evidence_shown(scripted, corpus):
    from tests.fakes import moderator

    said = moderator("supported", True) | {"justification": "As [E1] and [E7] show, it holds."}
    scripted.script["ModeratorAnswer"] = [said]
    result = run(corpus, protocol="adversarial", first_pass="off", rule="adaptive")
    assert result["justification"] == "As [E1] and show, it holds."


def _flip(scripted, corpus, round_two: dict):
    def answer(prompt):
        return round_two if "Round 2." in prompt else juror("supported")

    scripted.script["JurorAnswer"] = [answer]
    return run(corpus, first_pass="off", jurors=3, rounds=2)


def test_a_verdict_changed_without_evidence_of_its_own_is_not_counted(scripted, corpus):
    bare = {"explanation": "On reflection it is exaggerated.", "verdict": "refuted", "confidence": 0.9}
    result = _flip(scripted, corpus, {**bare, "search_query": ""})
    assert result["verdict"] == "supported"
    round_two = [t for t in result["transcript"] if t["round"] == 2]
    assert all(t["verdict"] == "supported" and t["rejected_change"] == "refuted" for t in round_two)


def test_a_refused_change_never_becomes_the_justification_of_the_verdict_it_argued_against(scripted, corpus):
    bare = {
        "explanation": "On reflection the tower is not in Paris.",
        "verdict": "refuted",
        "confidence": 0.9,
    }
    result = _flip(scripted, corpus, {**bare, "search_query": ""})
    assert result["verdict"] == "supported"
    assert result["justification"] and "not in Paris" not in result["justification"]


def test_a_verdict_changed_with_cited_evidence_counts(scripted, corpus):
    def cited(prompt):
        persona = prompt.rsplit("You are ", 1)[1][:40]  # each speaker argues in its own words
        return {"explanation": f"As {persona}: [E1] differs.", "verdict": "refuted", "confidence": 0.9}

    def answer(prompt):
        return {**cited(prompt), "search_query": ""} if "Round 2." in prompt else juror("supported")

    scripted.script["JurorAnswer"] = [answer]
    result = run(corpus, first_pass="off", jurors=3, rounds=2)
    assert result["verdict"] == "refuted" and result["first_round_verdict"] == "supported"
    assert not any(t["rejected_change"] for t in result["transcript"])


def test_repeating_another_speaker_is_not_a_new_argument(scripted, corpus):
    said = "[E1] says the tower stands in Lyon, not Paris."

    def answer(prompt):
        if "Round 2." not in prompt:
            return juror("supported")
        if "You are an ordinary" in prompt:  # the first speaker makes the argument
            return {"explanation": said, "verdict": "refuted", "confidence": 0.9, "search_query": ""}
        return {"explanation": said + " Indeed.", "verdict": "refuted", "confidence": 0.9, "search_query": ""}

    scripted.script["JurorAnswer"] = [answer]
    result = run(corpus, first_pass="off", jurors=3, rounds=2)
    round_two = {t["speaker"]: t for t in result["transcript"] if t["round"] == 2}
    assert round_two["General Public"]["verdict"] == "refuted"
    assert (
        round_two["Critic"]["rejected_change"] == "refuted" and round_two["Critic"]["verdict"] == "supported"
    )


def test_the_drawing_labels_the_new_branches():
    drawing = graph.get_graph().draw_mermaid()
    for label in ("evidence_first", "first_pass", "confident"):
        assert label in drawing


def test_the_first_pass_may_join_the_jury_vote(scripted, corpus):
    scripted.script["Label"] = [with_logprobs(rating("refuted"), {"supported": 0.4, "refuted": 0.6})]
    scripted.script["JurorAnswer"] = [lambda p: juror("refuted" if "critic" in p else "supported")]
    alone = run(corpus, first_pass_theta=0.9, jurors=2, rounds=1)
    assert alone["votes"] == {"General Public": "supported", "Critic": "refuted"}
    assert alone["verdict"] == "refuted"  # the tie goes to the last speaker among the tied
    joined = run(corpus, first_pass_theta=0.9, jurors=2, rounds=1, first_pass_votes=True)
    assert joined["votes"] == {"First pass": "refuted", "General Public": "supported", "Critic": "refuted"}
    assert joined["verdict"] == "refuted"


def test_plain_is_the_same_call_as_the_first_pass(scripted, corpus):
    import asyncio

    from factcourt.bench.datasets import Case
    from factcourt.bench.methods import predict
    from factcourt.context.claims import ClaimsContext

    case = Case(id="q1", claim=CLAIM, question="Where is the Eiffel Tower?")
    ctx = ClaimsContext(model="scripted", corpus=corpus, cache=False, search="local")
    floor = asyncio.run(predict("plain", case, ctx))
    default = asyncio.run(predict("default", case, ctx))
    plain, first_pass = [p for n, p in scripted.calls if n == "Label"]
    assert plain == first_pass and "Where is the Eiffel Tower?" in plain
    # the same search too: the floor's evidence is the default's, found after the question
    assert floor.detail["queries"] == default.detail["queries"] == [f"Where is the Eiffel Tower? {CLAIM}"]


def test_evidence_given_to_the_python_verify_is_searched_no_further(scripted, corpus):
    from factcourt.state.records import Evidence

    given = [Evidence(text="The Eiffel Tower stands in Paris.", url="https://example.org/t", source="given")]
    result = factcourt.verify(CLAIM, given, model="scripted", corpus=corpus, cache=False)
    assert result["evidence"] and all(e["source"] == "given" for e in result["evidence"])


def test_a_partly_kept_citation_list_keeps_the_line_break_before_it():
    from factcourt.nodes.helpers import ground_citations

    assert ground_citations("Para one.\n[E1, E9] next", range(1, 6)) == ("Para one.\n[E1] next", [1], 1)


@pytest.mark.parametrize(
    "args",
    [
        ["--protocol", "adversarial"],
        ["--rule", "adaptive"],
        ["--jurors", "3"],
        ["--rounds", "2"],
        ["--set", "protocol=adversarial"],
    ],
)
def test_a_debate_flag_given_explicitly_debates_the_claim(scripted, corpus, capsys, args):
    import json

    from factcourt.cli import main

    scripted.script["Label"] = [with_logprobs({"verdict": "supported"}, {"supported": 0.99, "refuted": 0.01})]
    argv = ["verify", "--claim", CLAIM, "--model", "scripted", "--corpus", corpus, "--no-cache", "--json"]
    assert main([*argv, *args]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["route"] == "debate" and scripted.count("Label") == 0
    assert scripted.count("JurorAnswer") + scripted.count("DebaterAnswer") > 0


def test_a_debate_flag_with_a_first_pass_threshold_routes_by_it(scripted, corpus):
    scripted.script["Label"] = [with_logprobs({"verdict": "supported"}, {"supported": 0.99, "refuted": 0.01})]
    result = run(corpus, protocol="adversarial", first_pass_theta=0.95)
    assert result["route"] == "first_pass" and scripted.count("DebaterAnswer") == 0
    debated = run(corpus, protocol="adversarial")  # the API reads a named debate as the CLI does
    assert debated["route"] == "debate" and scripted.count("DebaterAnswer") > 0


def test_a_claim_given_as_json_as_the_langgraph_server_passes_it_is_checked(scripted, corpus):
    scripted.script["Label"] = [with_logprobs(rating("supported"), {"supported": 0.97, "refuted": 0.03})]
    ctx = ClaimsContext(model="scripted", corpus=corpus, cache=False, search="given")
    given = [{"text": "The Eiffel Tower is a wrought-iron tower in Paris.", "url": "https://e.org"}]
    final = asyncio.run(
        graph.ainvoke({"claim": {"id": "c1", "text": CLAIM}, "given_evidence": given}, context=ctx)
    )
    [result] = final["results"]
    assert result.verdict == "supported" and result.claim.id == "c1" and result.evidence[0].source == "given"
