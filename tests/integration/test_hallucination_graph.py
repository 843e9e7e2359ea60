"""The whole ``hallucination`` graph (IMPD-MACD) on the embedded llama.cpp path with SmolLM2."""

import pytest

import factcourt
from factcourt.providers import local_server
from factcourt.state.records import Evidence

pytestmark = pytest.mark.integration

STOPS = {"consensus", "dispute_below_epsilon", "max_rounds", "judge_failed"}


def test_whole_hallucination_graph_on_the_embedded_model(smollm2):
    """SmolLM2-135M proves the plumbing, not the judgement: every stage runs on the real server,
    and the result is a labelled report or names why it is not, never an empty one."""
    knowledge = [Evidence(text="Mount Everest, in the Himalayas of Asia, is Earth's highest mountain.")]
    result = factcourt.detect(
        "Where is Mount Everest?",
        "Mount Everest is in Africa.",
        knowledge,
        local_weights=str(smollm2),
        cache=False,
        # one round with a Factual and a Comprehensive agent per team runs every node (agents in
        # parallel branches, Comprehensive agents, judge, refiner) in 6 calls instead of 10
        rounds=1,
        hallucination_agents=["factual", "comprehensive"],
        max_tokens=256,
        retries=0,
    )
    local_server.stop_all()
    assert result["usage"]["input_tokens"] > 0
    # every stage was asked once (retries=0; a failed call counts too): 2 Factual agents, 2
    # Comprehensive agents, the judge, and the refiner whenever there is a label to explain
    calls = {role: n["calls"] for role, n in result["usage"]["by_role"].items()}
    assert calls == {"debater": 4, "judge": 1, **({"refiner": 1} if result["label"] is not None else {})}
    if result["label"] is None:
        assert result["error"], "no label and no reason"
    else:
        assert result["verdict"] == {1: "no_hallucination", 0: "hallucination"}[result["label"]]
        assert result["decided_by"] in ("teams", "judge", "vote") and result["stop_reason"] in STOPS
        assert result["rounds"] == 1 and len(result["transcript"]) == 2 and len(result["teams"]) == 2
    notes = " | ".join(result["notes"])
    for view in result["transcript"]:  # a failure is a note in the report, never silent
        assert not view["failed"] or f"the {view['team']} factual agent failed" in notes
    for team in result["teams"]:
        assert not team["failed"] or f"the {team['team']} Comprehensive agent failed" in notes
    assert result["stop_reason"] != "judge_failed" or "the judge failed" in notes
    assert local_server._current is None
