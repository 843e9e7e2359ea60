"""An agent's answer ends where what is read ends: no written confidence, query or feedback nothing reads."""

import pytest

from factcourt.context.claims import OURS, PRESETS, ClaimsContext
from factcourt.context.hallucination import HallucinationContext
from factcourt.nodes.claims.debater_turn import answer_schema
from factcourt.nodes.hallucination.judge import judge_schema
from factcourt.state.audit import Appraisal
from factcourt.state.claims import JurorAnswer
from factcourt.state.hallucination import JudgeAnswer
from factcourt.state.records import without_trailing

OUR_JURY = {**PRESETS["madfact"], **OURS["madfact"], "model": "local"}


def test_leaving_out_trailing_fields_keeps_the_schema_before_them():
    short = without_trailing(JurorAnswer, frozenset({"confidence", "search_query"}))
    full, kept = JurorAnswer.model_json_schema(), short.model_json_schema()
    assert short.__name__ == "JurorAnswer"  # scripted models answer by the schema's name
    assert list(kept["properties"]) == ["explanation", "verdict"]
    assert all(kept["properties"][name] == full["properties"][name] for name in kept["properties"])
    assert kept["required"] == ["explanation", "verdict"]
    assert short.model_validate({"explanation": "x", "verdict": "refuted"}).verdict == "refuted"


def test_only_the_last_fields_can_be_left_out():
    # a field left out before others would change what the model writes after it
    with pytest.raises(ValueError, match="not the last fields"):
        without_trailing(JurorAnswer, frozenset({"verdict"}))
    with pytest.raises(ValueError, match="not the last fields"):
        without_trailing(JurorAnswer, frozenset({"confidence"}))


def test_a_schema_with_validators_is_not_shortened():
    # the Appraiser's answer checks that a proposal has a name
    with pytest.raises(ValueError, match="validators"):
        without_trailing(Appraisal, frozenset({"task_name"}))


def test_a_juror_on_given_evidence_whose_confidence_is_read_from_logprobs_writes_neither():
    ctx = ClaimsContext(**OUR_JURY, search="given")
    assert list(answer_schema(ctx, 0, 1).model_fields) == ["explanation", "verdict"]


@pytest.mark.parametrize(
    ("settings", "round_"),
    [
        ({"search": "local", "rule": "free"}, 1),  # an unsure juror searches with its query
        ({"search": "given", "confidence_source": "reported"}, 1),  # the written number is read
        ({"search": "given", "logprobs": False}, 1),  # no logprobs to read it from
        ({"search": "given", "structured_output": "function_calling"}, 1),  # none for tool calls
    ],
)
def test_a_juror_whose_confidence_or_query_may_be_read_writes_them(settings, round_):
    ctx = ClaimsContext(**{**OUR_JURY, **settings})
    assert answer_schema(ctx, 0, round_) is JurorAnswer


def test_a_juror_of_a_registered_model_writes_them(scripted):
    # a model registered from outside may give no logprobs
    ctx = ClaimsContext(**{**OUR_JURY, "model": "scripted"}, search="given")
    assert answer_schema(ctx, 0, 1) is JurorAnswer


def test_round_2_of_the_free_rule_retrieves_nothing_so_it_asks_no_query():
    ctx = ClaimsContext(**OUR_JURY, search="local", rule="free")
    assert list(answer_schema(ctx, 0, 2).model_fields) == ["explanation", "verdict"]


def test_debaters_write_their_whole_answer():
    ctx = ClaimsContext(**{**PRESETS["debatecv"], **OURS["debatecv"], "model": "local"}, search="given")
    assert "confidence" in answer_schema(ctx, 0, 1).model_fields


def test_the_last_rounds_judge_writes_no_feedback_and_no_confidence_logprobs_give():
    ctx = HallucinationContext(model="local", search="given", rounds=3)
    assert judge_schema(ctx, 1) is JudgeAnswer  # the teams read the feedback next round
    assert list(judge_schema(ctx, 3).model_fields)[-2:] == ["consensus", "winner"]
    reported = HallucinationContext(model="local", search="given", rounds=3, confidence_source="reported")
    assert list(judge_schema(reported, 3).model_fields)[-2:] == ["winner", "confidence"]
