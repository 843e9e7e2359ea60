"""DebateCV's baselines on claims (``cot_claim``, ``majority``, ``cooperation``) on scripted models."""

import asyncio
import re

from factcourt.bench.baselines import COOP_TURNS, MAJORITY_AGENTS, cooperation, cot_claim, majority
from factcourt.bench.context import BenchContext
from factcourt.bench.methods import BASELINES
from factcourt.state.records import Evidence

CLAIM = "The Eiffel Tower is in Rome."
E = [Evidence(text="The Eiffel Tower is a wrought-iron tower in Paris.", url="https://e.org/eiffel")]
CTX = BenchContext(model="scripted", search="given", cache=False)


def cot(verdict, reasoning="Step by step: [E1] puts it in Paris."):
    return {"reasoning": reasoning, "verdict": verdict}


def calls(scripted, schema):
    return [p for name, p in scripted.calls if name == schema]


def test_the_three_baselines_are_bench_methods():
    assert {"cot_claim", "majority", "cooperation"} <= set(BASELINES)


def test_cot_is_one_step_by_step_call_over_the_evidence_with_four_verdicts(scripted):
    scripted.script["ClaimCot"] = [cot("refuted")]
    verdict, error, trace = asyncio.run(cot_claim(CTX, CLAIM, E))
    assert (verdict, error) == ("refuted", None)
    [prompt] = calls(scripted, "ClaimCot")
    assert "<claim>The Eiffel Tower is in Rome.</claim>" in prompt and "[E1]" in prompt
    assert "step by step" in prompt and "https://e.org/eiffel" in prompt
    for label in ("supported", "refuted", "not_enough_evidence", "conflicting_evidence", "cherry-picking"):
        assert label in prompt
    assert trace.usage.calls == 1 and trace.steps[0]["method"] == "cot_claim"


def test_a_failed_cot_call_is_a_failed_prediction_not_a_verdict(scripted):
    scripted.script["ClaimCot"] = ["not json"]
    verdict, error, _ = asyncio.run(cot_claim(CTX, CLAIM, E))
    assert verdict is None and error


def test_majority_asks_three_independent_agents_then_votes_over_their_answers(scripted):
    answers = iter(
        [cot("refuted", "A1 reasons."), cot("supported", "A2 reasons."), cot("refuted", "A3 reasons.")]
    )

    def answer(prompt):
        if "majority vote" in prompt:
            return cot("refuted", "Two of three say refuted.")
        return next(answers)

    scripted.script["ClaimCot"] = [answer]
    verdict, error, trace = asyncio.run(majority(CTX, CLAIM, E))
    assert (verdict, error) == ("refuted", None)
    prompts = calls(scripted, "ClaimCot")
    assert len(prompts) == MAJORITY_AGENTS + 1 == trace.usage.calls
    agents, [vote] = prompts[:-1], prompts[-1:]
    assert len(set(agents)) == 1, "independent agents: one CoT prompt, sampled"
    assert "A1 reasons" not in agents[0] and "majority vote" not in agents[0]
    assert all(f"A{k} reasons" in vote for k in (1, 2, 3)) and "3 independent agents" in vote


def test_majority_counts_the_votes_itself_when_the_vote_call_fails(scripted):
    answers = iter([cot("supported"), cot("refuted"), cot("refuted")])
    scripted.script["ClaimCot"] = [lambda p: "not json" if "majority vote" in p else next(answers)]
    verdict, error, _ = asyncio.run(majority(BenchContext.make(CTX, retries=0), CLAIM, E))
    assert (verdict, error) == ("refuted", None)


def test_cooperation_alternates_user_instructions_and_assistant_answers_until_the_task_is_done(scripted):
    scripted.script["CoopInstruction"] = [
        {"instruction": "Check where [E1] places the tower.", "task_done": False},
        {"instruction": "Now give the final verdict.", "task_done": False},
        {"instruction": "Done.", "task_done": True},
    ]
    scripted.script["ClaimCot"] = [
        cot("not_enough_evidence", "First look."),
        cot("refuted", "Paris, not Rome."),
    ]
    verdict, error, trace = asyncio.run(cooperation(CTX, CLAIM, E))
    assert (verdict, error) == ("refuted", None)
    users, assistants = calls(scripted, "CoopInstruction"), calls(scripted, "ClaimCot")
    assert (len(users), len(assistants)) == (3, 2)
    assert "AI user" in users[0] and "Think step by step" in users[0], "the CoT prompt is the task"
    assert "AI assistant" in assistants[0] and "Check where [E1] places the tower." in assistants[0]
    assert "First look." in assistants[1] and "Check where" in users[1], "each sees the dialogue so far"
    assert [s["speaker"] for s in trace.steps] == ["user", "assistant", "user", "assistant", "user"]


def test_cooperation_stops_after_its_turn_limit(scripted):
    scripted.script["CoopInstruction"] = [{"instruction": "Go on.", "task_done": False}]
    scripted.script["ClaimCot"] = [cot("supported")]
    verdict, _, _ = asyncio.run(cooperation(CTX, CLAIM, E))
    assert verdict == "supported" and len(calls(scripted, "ClaimCot")) == COOP_TURNS
    assert re.search(r"Instruction 3 of at most 3", calls(scripted, "CoopInstruction")[-1])
