"""DebateCV's own prompts (Appendix B, ``debate_prompts='paper'``): who is sent which prompt, the
moderator's answers in the paper's fields, and Debate-SFT's samples under them."""

import asyncio
import json

from langchain_core.messages import convert_to_openai_messages

import factcourt
from factcourt.bench.methods import DEBATE_METHODS
from factcourt.bench.sft import debate_context, synth_sft
from factcourt.context.claims import OURS, PRESETS, ClaimsContext
from factcourt.nodes.helpers import TURN_CHARS
from tests.fakes import debater
from tests.unit.test_sft import rows, write, written

CLAIM = "The Eiffel Tower is in Paris."


def proceed() -> dict:
    return {
        "primary_insight": "INSIGHT-R1",
        "evidence_gaps": "the date",
        "justification_for_proceeding": "The sides disagree on [E1].",
        "proceeding_necessity": "Yes",
        "justification_for_verdict": "",
        "verdict": None,
    }


def conclude(verdict: str) -> dict:
    return {
        **proceed(),
        "justification_for_proceeding": "",
        "proceeding_necessity": "No",
        "justification_for_verdict": f"The debate shows {verdict}.",
        "verdict": verdict,
    }


def final(verdict: str) -> dict:
    return {"justification_for_verdict": f"Step by step, {verdict}.", "verdict": verdict}


def marked(scripted):
    """Debaters whose arguments name their side and round, in speaking order."""
    marks = iter(["MARK-AFF-R1", "MARK-NEG-R1", "MARK-AFF-R2", "MARK-NEG-R2", "MARK-AFF-R3", "MARK-NEG-R3"])
    scripted.script["DebaterAnswer"] = [lambda prompt: {**debater(0.9), "argument": next(marks)}]


def sent(scripted, schema: str) -> list[list[dict]]:
    return [convert_to_openai_messages(m) for name, m in scripted.sent if name == schema]


def run(evidence, **settings):
    values = {"model": "scripted", "search": "given", "cache": False, **PRESETS["debatecv"], **settings}
    return factcourt.verify(CLAIM, evidence, **values)


def test_the_debatecv_preset_runs_the_papers_prompts_and_ours_stay_by_name():
    assert ClaimsContext().debate_prompts == "ours"
    assert PRESETS["debatecv"]["debate_prompts"] == "paper" and OURS["debatecv"]["debate_prompts"] == "ours"
    assert DEBATE_METHODS["adversarial"]["debate_prompts"] == "paper"
    assert DEBATE_METHODS["adversarial-ours"]["debate_prompts"] == "ours"
    # moderators trained on SynDeC in our format are measured under the preset with our prompts
    assert DEBATE_METHODS["adversarial-our_prompts"] == {**PRESETS["debatecv"], "debate_prompts": "ours"}


def test_debaters_get_the_meta_prompt_and_the_opening_rebuttal_and_continuing_prompts(scripted, evidence):
    marked(scripted)
    scripted.script["ModeratorRoundPaper"] = [proceed()]
    scripted.script["ModeratorFinalPaper"] = [final("supported")]
    run(evidence, rounds=2)
    aff_1, neg_1, aff_2, neg_2 = sent(scripted, "DebaterAnswer")
    for messages in (aff_1, neg_1, aff_2, neg_2):
        system = messages[0]["content"]
        assert system.startswith("You are a Debater in a fact-checking scenario.")
        assert f"**Claim:** {CLAIM}" in system
        assert "**Evidence Set:** [E1] Paris (https://example.org/paris)" in system
        assert not any("at most three sentences" in m["content"] for m in messages)  # ours
    # round 1: the Affirmative opens on the claim alone; the Negative rebuts that argument
    assert [m["role"] for m in aff_1] == ["system", "user"]
    assert aff_1[1]["content"].startswith(f"**Claim:** {CLAIM}\nYou are affirming the veracity")
    assert "(this can be omitted in the first round)" in aff_1[1]["content"]
    assert neg_1[1]["content"].startswith(
        "**Previous Argument (Affirmative):** MARK-AFF-R1\nYou are refuting"
    )
    # round 2: each answers the other's last argument, after its own earlier turn
    assert [m["role"] for m in aff_2] == ["system", "user", "assistant", "user"]
    assert aff_2[2]["content"] == "MARK-AFF-R1"
    assert aff_2[3]["content"].startswith("**Opposition Argument:** MARK-NEG-R1\nDo you agree with this")
    assert neg_2[2]["content"] == "MARK-NEG-R1"
    assert neg_2[3]["content"].startswith("**Previous Argument (Affirmative):** MARK-AFF-R2")
    # A+_t answers only A-_{t-1}: not the moderator, not older turns of the other side
    assert "INSIGHT" not in json.dumps(aff_2) and "MARK-AFF-R1" not in aff_2[3]["content"]


def test_the_moderator_gets_the_per_round_prompt_then_the_final_one_at_the_last_round(scripted, evidence):
    marked(scripted)
    scripted.script["ModeratorRoundPaper"] = [proceed()]
    scripted.script["ModeratorFinalPaper"] = [final("refuted")]
    result = run(evidence, rounds=2)
    [round_1] = sent(scripted, "ModeratorRoundPaper")
    [last] = sent(scripted, "ModeratorFinalPaper")
    system = round_1[0]["content"]
    assert system.startswith("You are the Moderator in a fact-checking debate")
    assert f"**Claim:** {CLAIM}" in system and "**Verdict Criteria:**" in system
    assert "Do not pick a neutral verdict" not in json.dumps([round_1, last])  # ours
    assert round_1[1]["content"].startswith(
        "Round 1 of the fact-checking debate has concluded.\n**Affirmative:** MARK-AFF-R1\n"
        "**Negative:** MARK-NEG-R1\n"
    )
    assert '"Proceeding Necessity": "Yes/No"' in round_1[1]["content"]
    # the final prompt continues the same dialogue; the round-1 answer stands in the paper's fields
    assert [m["role"] for m in last] == ["system", "user", "assistant", "user"] and last[:2] == round_1
    assert json.loads(last[2]["content"]) == proceed()
    assert last[3]["content"].startswith("Affirmative: MARK-AFF-R2 Negative: MARK-NEG-R2\nSummarize")
    assert f"After reviewing both sides' arguments on the claim: {CLAIM}" in last[3]["content"]
    assert "Round 2 of the fact-checking" not in last[3]["content"]
    assert result["verdict"] == "refuted" and result["justification"] == "Step by step, refuted."
    first, second = result["summaries"]
    assert (first["verdict"], first["stop"], first["summary"]) == (None, False, "INSIGHT-R1")
    assert first["proceeding"] == "The sides disagree on [E1]." and second["stop"]


def test_proceeding_necessity_no_with_a_verdict_ends_the_debate(scripted, evidence):
    scripted.script["ModeratorRoundPaper"] = [conclude("not_enough_evidence")]
    result = run(evidence)
    assert result["rounds"] == 1 and result["verdict"] == "not_enough_evidence"
    assert scripted.count("ModeratorFinalPaper") == 0


def test_no_without_a_verdict_does_not_end_the_debate(scripted, evidence):
    scripted.script["ModeratorRoundPaper"] = [{**conclude("supported"), "verdict": None}, conclude("refuted")]
    result = run(evidence)
    assert result["rounds"] == 2 and result["verdict"] == "refuted"


def test_a_synth_sft_sample_is_what_the_moderator_node_sent_under_the_papers_prompts(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Supported")), tmp_path / "sft.jsonl"
    marked(scripted)
    scripted.script["ModeratorRoundPaper"] = [proceed()]
    scripted.script["ModeratorFinalPaper"] = [final("supported")]
    ctx = debate_context({"model": "scripted", "cache": False, "retries": 0})
    assert ctx.debate_prompts == "paper"  # synth-sft debates under the preset
    asyncio.run(synth_sft(dataset, out, ctx))
    [sample] = written(out)
    assert sample["messages"] == sent(scripted, "ModeratorFinalPaper")[-1]
    assert sample["messages"][0]["content"].startswith("You are the Moderator in a fact-checking debate")
    assert json.loads(sample["target"]) == final("supported")


def test_a_corrected_sample_keeps_the_papers_fields_and_the_corrector_gets_b3(tmp_path, scripted):
    dataset, out = write(tmp_path, rows("Not Enough Evidence")), tmp_path / "sft.jsonl"
    marked(scripted)
    scripted.script["ModeratorRoundPaper"] = [conclude("supported")]
    scripted.script["SftJustification"] = [{"justification": "Nothing in the debate settles it."}]
    ctx = debate_context({"model": "scripted", "cache": False, "retries": 0})
    asyncio.run(synth_sft(dataset, out, ctx))
    [sample] = written(out)
    assert sample["messages"] == sent(scripted, "ModeratorRoundPaper")[-1]
    assert json.loads(sample["target"]) == {
        **conclude("not_enough_evidence"),
        "justification_for_verdict": "Nothing in the debate settles it.",
    }
    [corrector] = [p for n, p in scripted.calls if n == "SftJustification"]
    assert corrector.startswith("Debate Recording: [Round 1] Affirmative:")
    assert "Primary Insights: R1: INSIGHT-R1" in corrector
    assert "that this claim is Not Enough Evidence based on the debate context" in corrector


def test_the_corrector_reads_the_full_debate_recording_under_the_papers_prompts(tmp_path, scripted):
    # the paper's Corrector takes "the full debate recording": no argument is cut to TURN_CHARS
    dataset, out = write(tmp_path, rows("Not Enough Evidence")), tmp_path / "sft.jsonl"
    long = "A long argument from the evidence. " * 20 + "THE-END"
    scripted.script["DebaterAnswer"] = [{**debater(0.9), "argument": long}]
    scripted.script["ModeratorRoundPaper"] = [conclude("supported")]
    scripted.script["SftJustification"] = [{"justification": "Nothing in the debate settles it."}]
    ctx = debate_context({"model": "scripted", "cache": False, "retries": 0})
    asyncio.run(synth_sft(dataset, out, ctx))
    [corrector] = [p for n, p in scripted.calls if n == "SftJustification"]
    assert len(long) > TURN_CHARS and corrector.count("THE-END") == 2  # both arguments whole
    assert "confidence" not in corrector  # the debaters' confidences are not part of the recording


def test_without_given_evidence_the_preset_searches_the_claim_once_and_debates_that_fixed_set(
    scripted, corpus
):
    # the retrieved-evidence conditions (Ret(H), Ret(I)): an evidence set found for the claim
    # before the debate, then fixed; debaters never search, however unsure
    scripted.script["DebaterAnswer"] = [debater(0.1, query="another query")]
    scripted.script["ModeratorRoundPaper"] = [conclude("supported")]
    values = {"model": "scripted", "cache": False, "search": "local", "corpus": corpus, **PRESETS["debatecv"]}
    result = factcourt.verify(CLAIM, **values)
    assert result["queries"] == [CLAIM] and result["usage"]["search_calls"] == 1
    assert [e["title"] for e in result["evidence"]][0] == "Eiffel Tower"
    [first, *_] = sent(scripted, "DebaterAnswer")
    assert "wrought-iron tower in Paris" in first[0]["content"]  # in the meta-prompt's evidence set
    assert PRESETS["debatecv"]["evidence_first"] and PRESETS["debatecv"]["theta"] == 0.0
    assert OURS["debatecv"]["theta"] == 0.7  # ours: an unsure debater searches, as by default
