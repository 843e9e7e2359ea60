"""The long-form graph end to end on scripted and rule-following fake models."""

import asyncio
import threading
import time

import pytest

import factcourt
from factcourt.errors import InputError
from factcourt.graphs.factcheck import graph
from factcourt.nodes.agents.clerk import CHUNK_CHARS
from factcourt.state.records import Claim, ClerkSplit, DroppedSentence
from tests.fakes import juror, rating

TEXT = (
    "The Eiffel Tower is in Paris. It was completed in 1889. Mount Everest is the highest mountain on Earth."
)


def test_claims_are_checked_in_parallel_branches_and_scored(scripted, corpus):
    result = factcourt.check(TEXT, model="scripted", corpus=corpus, cache=False, first_pass_theta=0.9)
    assert [c["id"] for c in result["claims"]] == ["c1", "c2", "c3"]
    assert [c["verdict"] for c in result["claims"]] == ["supported"] * 3
    assert result["scores"]["supported"] == 3
    assert result["scores"]["claims"] == 3 and result["scores"]["failed"] == 0
    for claim in result["claims"]:
        start, end = claim["span"]
        assert TEXT[start:end] == claim["sentence"]
        assert claim["usage"]["calls"] >= 3
    clerk_calls = result["usage"]["by_role"]["clerk"]["calls"]
    assert result["usage"]["calls"] == clerk_calls + sum(c["usage"]["calls"] for c in result["claims"])


@pytest.mark.parametrize("limit", [3, 1])
def test_claim_branches_overlap_up_to_max_concurrency(scripted, corpus, limit):
    lock, calls = threading.Lock(), {"now": 0, "most": 0}

    def slow(prompt):  # the scripted model answers in a worker thread: count those in flight
        with lock:
            calls["now"] += 1
            calls["most"] = max(calls["most"], calls["now"])
        time.sleep(0.5)  # long enough for the other branches to start on a loaded machine
        with lock:
            calls["now"] -= 1
        refuted = "<claim>The Eiffel Tower was completed in 1889.</claim>" in prompt
        return rating("refuted" if refuted else "supported")

    scripted.script["Label"] = [slow]
    result = factcourt.check(TEXT, model="scripted", corpus=corpus, cache=False, max_concurrency=limit)
    assert scripted.count("Label") == 3 and (calls["most"] > 1) == (limit > 1)
    verdicts = [c["verdict"] for c in result["claims"]]
    assert verdicts == ["supported", "refuted", "supported"]


def test_one_failing_claim_does_not_stop_the_others(scripted, corpus):
    def answer(prompt):
        # the claim, resolved by the Clerk's rule, not the evidence that says 1889
        if "<claim>The Eiffel Tower was completed in 1889.</claim>" in prompt:
            return TimeoutError("slow")
        return juror("supported")

    scripted.script["JurorAnswer"] = [answer]
    result = factcourt.check(TEXT, model="scripted", corpus=corpus, cache=False, first_pass_theta=0.9)
    by_text = {c["text"]: c for c in result["claims"]}
    assert by_text["The Eiffel Tower was completed in 1889."]["verdict"] is None
    assert "TimeoutError" in by_text["The Eiffel Tower was completed in 1889."]["error"]
    assert result["scores"]["supported"] == 2 and result["scores"]["failed"] == 1
    assert result["scores"]["precision"] == 1.0


def test_a_text_with_no_check_worthy_claim_is_a_valid_empty_result(scripted):
    scripted.script["ClerkOutput"] = [{"claims": [], "dropped": [{"sentence": 1, "reason": "opinion"}]}]
    result = factcourt.check("I think jazz is the best music.", model="scripted", cache=False)
    assert result["claims"] == [] and result["scores"]["precision"] is None
    assert result["dropped"] == [
        {"sentence": "I think jazz is the best music.", "reason": "opinion", "error": None}
    ]


@pytest.mark.parametrize("text", ["", "   \n\t "])
def test_empty_text_is_a_clear_error(scripted, text):
    with pytest.raises(InputError, match="empty"):
        factcourt.check(text, model="scripted", cache=False)


def test_huge_text_is_a_clear_error(scripted):
    with pytest.raises(InputError, match="limit"):
        factcourt.check("word " * 30_000, model="scripted", cache=False)


def test_sentences_the_clerk_skips_are_asked_again_then_kept_whole(scripted, corpus):
    scripted.script["ClerkOutput"] = [
        {
            "claims": [{"sentence": 1, "claim": "The Eiffel Tower is in Paris."}],
            "dropped": [],
        },
        {"claims": [], "dropped": []},
    ]
    result = factcourt.check(TEXT, model="scripted", corpus=corpus, cache=False, first_pass_theta=0.9)
    assert scripted.count("ClerkOutput") == 2
    assert len(result["claims"]) == 3, "no sentence is dropped silently"


def test_long_text_is_chunked_and_every_chunk_decomposed(scripted, corpus):
    # a little over one chunk is two chunks: as chunked and decomposed as 120 sentences in four,
    # at a third of the claims to check
    sentences = [f"Fact number {i} is about Paris." for i in range(CHUNK_CHARS // 30 + 5)]
    text = " ".join(sentences)
    assert len(text) > CHUNK_CHARS
    result = factcourt.check(
        text, model="scripted", corpus=corpus, cache=False, max_claims=200, rule="adaptive", search="none"
    )
    assert scripted.count("ClerkOutput") > 1
    assert len(result["claims"]) == len(sentences)


def test_max_claims_guard_records_the_overflow(scripted):
    text = "Paris is in France. Rome is in Italy. Oslo is in Norway."
    result = factcourt.check(
        text, model="scripted", cache=False, max_claims=2, search="none", rule="adaptive"
    )
    assert len(result["claims"]) == 2
    assert [d["reason"] for d in result["dropped"]] == ["over_limit"]


def test_stream_carries_per_claim_progress_events(scripted, corpus):
    ctx = factcourt.ClaimsContext(
        model="scripted", corpus=corpus, cache=False, rule="adaptive", first_pass="off"
    )

    async def collect():
        return [
            chunk
            async for _, mode, chunk in graph.astream(
                {"response": TEXT}, context=ctx, stream_mode=["updates", "custom"], subgraphs=True
            )
            if mode == "custom"
        ]

    events = asyncio.run(collect())
    kinds = [e["event"] for e in events]
    assert kinds[0] == "claims" and kinds.count("claim_started") == 3
    assert kinds.count("verdict") == 3 and "turn_done" in kinds


def test_chinese_text_uses_chinese_prompts(scripted):
    result = factcourt.check(
        "北京是中国的首都。长城位于中国北方。",
        model="scripted",
        cache=False,
        search="none",
        rule="adaptive",
        first_pass="off",
    )
    assert result["language"] == "zh" and len(result["claims"]) == 2
    juror_prompts = [p for n, p in scripted.calls if n == "JurorAnswer"]
    assert any("<claim>北京是中国的首都。</claim>" in p for p in juror_prompts)
    assert all("评审团" in p for p in juror_prompts)  # the Chinese system prompt


def test_draw_mermaid_shows_the_rule_branches():
    drawing = graph.get_graph(xray=True).draw_mermaid()
    for label in ("retrieval_first", "adaptive_unanimous", "converged", "moderate"):
        assert label in drawing
    for node in ("decompose", "retrieve", "debater_turn", "moderator", "judge_vote", "score", "corrector"):
        assert node in drawing


def test_a_split_given_with_the_text_is_checked_without_asking_the_clerk_again(scripted, corpus):
    settings = {"model": "scripted", "corpus": corpus, "cache": False}
    first = factcourt.check(TEXT, **settings)
    asked = scripted.count("ClerkOutput")
    claims = [
        Claim.model_validate({k: c[k] for k in ("id", "text", "sentence", "span")}) for c in first["claims"]
    ]
    opinion = DroppedSentence(sentence="It is lovely.", reason="opinion")
    split = ClerkSplit(response=TEXT, claims=claims, dropped=[opinion])
    again = asyncio.run(factcourt.acheck(TEXT, "", settings, split=split))
    assert scripted.count("ClerkOutput") == asked, "the Clerk is not asked again"
    assert [(c["id"], c["span"], c["verdict"]) for c in again["claims"]] == [
        (c["id"], c["span"], c["verdict"]) for c in first["claims"]
    ]
    assert again["dropped"] == [opinion.model_dump(mode="json")]
    assert "clerk" not in again["usage"]["by_role"] and "clerk" in first["usage"]["by_role"]
    with pytest.raises(InputError, match="another text"):
        asyncio.run(factcourt.acheck("Mount Everest is in Nepal.", "", settings, split=split))
