"""IMPD-MACD's interaction quality Q_t (Eq. 13, App. C.2): the pure formula, the pairs it reads,
and the judge that is shown it under ``hallucination_jt='paper'``."""

import math

import pytest

import factcourt
from factcourt.bench.methods import HALLUCINATION_METHODS
from factcourt.context.hallucination import HallucinationContext
from factcourt.errors import ConfigError
from factcourt.nodes.hallucination.protocol import information, interaction_quality, same_role_analyses
from factcourt.state.hallucination import AgentView, TeamRound
from tests.unit.test_hallucination import A, K, Q, judge

WEIGHTS = dict.fromkeys(("logic", "consistency", "factual", "comprehensive"), 0.25)
FOUR_WORDS = ("alpha beta", "gamma delta")  # four words once each: q_info = 1


def test_q_info_is_the_token_entropy_over_its_maximum():
    assert information(*FOUR_WORDS) == 1.0
    assert information("a a a", "b") == pytest.approx(-(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25)))
    assert information("same", "same") == 0.0 and information("", "") == 0.0  # |S| < 2


def test_q_t_multiplies_closeness_information_and_recency():
    pairs = {"logic": FOUR_WORDS}
    assert interaction_quality(pairs, {"logic": 1.0}, 1, WEIGHTS, 0.05) == 1.0
    assert interaction_quality(pairs, {"logic": -1.0}, 1, WEIGHTS, 0.05) == 0.0  # q_sem = (cos + 1) / 2
    assert interaction_quality(pairs, {"logic": 0.5}, 3, WEIGHTS, 0.05) == round(0.75 * math.exp(-0.1), 4)
    assert interaction_quality(pairs, {"logic": 0.5}, 3, WEIGHTS, 0.0) == 0.75  # no decay at beta 0


def test_q_t_weighs_the_agents_present_by_their_normalised_weights():
    pairs = {"logic": FOUR_WORDS, "factual": FOUR_WORDS}
    cosines = {"logic": 1.0, "factual": -1.0}
    assert interaction_quality(pairs, cosines, 1, WEIGHTS, 0.05) == 0.5  # comprehensive absent
    heavy = {**WEIGHTS, "logic": 0.75}
    assert interaction_quality(pairs, cosines, 1, heavy, 0.05) == 0.75
    assert interaction_quality({}, {}, 1, WEIGHTS, 0.05) is None


def test_q_t_pairs_each_agent_with_its_same_role_opponent_of_the_round():
    views = [
        AgentView(team="pro", role="logic", round=2, analysis="P-logic"),
        AgentView(team="con", role="logic", round=2, analysis="C-logic"),
        AgentView(team="con", role="logic", round=1, analysis="old"),
        AgentView(team="pro", role="factual", round=2, analysis="P-fact"),  # no opponent
        AgentView(team="pro", role="consistency", round=2, analysis="P-cons"),
        AgentView(team="con", role="consistency", round=2, failed="timeout"),
    ]
    teams = [
        TeamRound(team="pro", round=2, analysis="P-team"),
        TeamRound(team="con", round=2, analysis="C-team"),
    ]
    assert same_role_analyses(views, teams, 2) == {
        "logic": ("P-logic", "C-logic"),
        "comprehensive": ("P-team", "C-team"),
    }
    voted = [teams[0], TeamRound(team="con", round=2, analysis="votes", by="vote")]
    assert "comprehensive" not in same_role_analyses(views, voted, 2)


def test_the_papers_jt_shows_q_t_to_the_judge_and_reports_q_final(scripted, bag_of_words):
    scripted.script["JudgeAnswer"] = [judge("con", 0.6)]
    result = factcourt.detect(
        Q,
        A,
        K,
        model="scripted",
        cache=False,
        rounds=2,
        hallucination_jt="paper",
        confidence_source="reported",
    )
    first, second = result["judgements"]
    assert 0 < second["quality"] < first["quality"] <= 1  # the same analyses, one round later
    assert second["quality"] == pytest.approx(first["quality"] * math.exp(-0.05), abs=1e-4)
    assert result["quality"] == round((first["quality"] + second["quality"]) / 2, 4)
    asked = [p for name, p in scripted.calls if name == "JudgeAnswer"]
    assert f"Cross-reference validity of this round: {first['quality']:.2f} (Q_t" in asked[0]
    assert f"Cross-reference validity of this round: {second['quality']:.2f}" in asked[1]
    assert first["dispute"] == pytest.approx(0.6 * 0.8)  # J_t times c_t, as 'confidence'


def test_without_the_papers_jt_the_judge_sees_no_q_t(scripted):
    scripted.script["JudgeAnswer"] = [judge("con", 0.6, consensus=True)]
    result = factcourt.detect(Q, A, K, model="scripted", cache=False, rounds=1, hallucination_jt="confidence")
    assert result["judgements"][0]["quality"] is None and result["quality"] is None
    assert not any("Cross-reference validity" in p for name, p in scripted.calls if name == "JudgeAnswer")


def test_the_impd_paper_method_and_the_beta_setting():
    assert HALLUCINATION_METHODS["impd-paper"]["hallucination_jt"] == "paper"
    assert HallucinationContext().hallucination_beta == 0.05
    with pytest.raises(ConfigError, match="hallucination_beta"):
        HallucinationContext(hallucination_beta=-0.1)
