"""IMPD-MACD as the paper runs it (method ``impd-paper``): the judge's quality scores s1-s4 and
its stop on J_t <= epsilon (App. C.3, Eqs. 15, 17), each stance's own retrieval (§3.1), and Q_t
for the Refiner (Eq. 18)."""

import pytest

import factcourt
from factcourt.bench.methods import HALLUCINATION_METHODS, IMPD_PAPER
from factcourt.context.hallucination import HALLUCINATION_AGENTS, HallucinationContext
from factcourt.nodes.agents import gatherer
from factcourt.nodes.hallucination.protocol import STANCE_PIECES, team_knowledge
from factcourt.nodes.helpers import EVIDENCE_SHOWN
from factcourt.state.records import Evidence
from tests.unit.test_hallucination import A, K, Q, asked, judge, split_teams


def quality_judge(winner="con", quality=0.9, consensus=False):
    return judge(winner, quality, consensus, scored="quality")


def run(**settings):
    values = {"model": "scripted", "cache": False, "confidence_source": "reported", **settings}
    return factcourt.detect(Q, A, K, **values)


def test_the_paper_method_follows_the_paper_where_it_gives_a_value_and_ours_stays_by_name():
    assert HALLUCINATION_METHODS["impd-paper"] == {
        "hallucination_judge": "paper",  # the judge's word stops and decides
        "hallucination_jt": "paper",  # J_t times c_t, Q_t shown to the judge
        "hallucination_scores": "quality",  # s1-s4 score the debate's quality
        "hallucination_retrieval": "stance",  # each stance retrieves for its viewpoint
    }
    assert HALLUCINATION_METHODS["impd"] == {}  # ours: the defaults
    for ablation in ("no_knowledge", *(f"no_{agent}" for agent in HALLUCINATION_AGENTS)):
        ours, paper = (
            HALLUCINATION_METHODS[f"impd-{ablation}"],
            HALLUCINATION_METHODS[f"impd-paper-{ablation}"],
        )
        assert paper == {**IMPD_PAPER, **ours}  # Table 2's ablations of the paper's method
    context = HallucinationContext()
    assert (context.hallucination_scores, context.hallucination_retrieval) == ("dispute", "shared")


def test_the_quality_judge_scores_the_debate_and_jt_is_their_weighted_mean_times_c_t(scripted):
    split_teams(scripted)
    scripted.script["JudgeQualityAnswer"] = [quality_judge("con", 0.9)]
    result = run(
        rounds=2, hallucination_judge="paper", hallucination_jt="confidence", hallucination_scores="quality"
    )
    first = result["judgements"][0]
    assert first["scored"] == "quality" and first["logic"] == 0.9
    assert first["dispute"] == pytest.approx(0.9 * 0.8)  # J_t = (sum w_i s_i) c_t
    assert result["rounds"] == 2 and result["stop_reason"] == "max_rounds"  # J_t > epsilon: no stop
    assert scripted.count("JudgeAnswer") == 0
    [prompt, later] = asked(scripted, "JudgeQualityAnswer")
    assert "score the quality of the debate, from 0 (poor) to 1 (excellent)" in prompt
    assert "how far apart" not in prompt
    assert "R1: winner con, quality 0.72:" in later  # its earlier ruling, named for what it scores


def test_a_jt_at_or_below_epsilon_stops_the_paper_debate_as_eq_15_says(scripted):
    split_teams(scripted)
    scripted.script["JudgeQualityAnswer"] = [quality_judge("pro", 0.2)]
    result = run(
        rounds=3, hallucination_judge="paper", hallucination_jt="confidence", hallucination_scores="quality"
    )
    assert result["stop_reason"] == "dispute_below_epsilon" and result["rounds"] == 1  # 0.16 <= 0.2
    assert result["label"] == 1  # the judge's winner


def test_the_refiner_reads_each_rounds_jt_and_q_t_under_the_paper_method(scripted, bag_of_words):
    split_teams(scripted)
    scripted.script["JudgeQualityAnswer"] = [quality_judge("con", 0.9, consensus=True)]
    result = run(rounds=1, **{k: v for k, v in IMPD_PAPER.items() if k != "hallucination_retrieval"})
    quality = result["judgements"][0]["quality"]
    assert quality is not None
    [refiner] = asked(scripted, "RefinerAnswer")
    assert f"Round 1 judge: winner con, quality 0.72, Q_t {quality:.2f}:" in refiner


def test_the_default_refiner_transcript_is_unchanged(scripted):
    split_teams(scripted)
    scripted.script["JudgeAnswer"] = [judge("con", 0.6)]
    run(rounds=1)
    [refiner] = asked(scripted, "RefinerAnswer")
    assert "Round 1 judge: winner con, dispute 0.60: " in refiner and "Q_t" not in refiner


def _searched(monkeypatch):
    """A search backend that answers each query with two pieces named after it, and records it."""
    queries = []

    def search(ctx, query):
        queries.append(query)
        tag = "PRO" if query.endswith(" correct") else "CON" if query.endswith(" incorrect") else "SHARED"
        found = [
            Evidence(text=f"{tag}-{i} {query}", url=f"{tag}-{i}-{len(queries)}", title=tag) for i in (1, 2, 3)
        ]
        return found, True

    monkeypatch.setattr(gatherer, "search", search)
    return queries


def test_each_stance_searches_for_its_own_viewpoint_and_only_its_team_sees_the_results(scripted, monkeypatch):
    queries = _searched(monkeypatch)
    split_teams(scripted)
    scripted.script["SubQuestions"] = [{"sub_questions": [], "keywords": []}]
    scripted.script["KnowledgeStatements"] = [{"statements": []}]  # the fragments are shown, then
    scripted.script["JudgeQualityAnswer"] = [quality_judge("con", 0.9, consensus=True)]
    result = factcourt.detect(
        Q,
        A,
        model="scripted",
        cache=False,
        search="local",
        rounds=1,
        hallucination_retrieval="stance",
        hallucination_scores="quality",
    )
    assert queries == [Q, f"{Q} {A} correct", f"{Q} {A} incorrect"]
    assert result["queries"] == queries and result["usage"]["search_calls"] == 3
    pro, con = (result["stance_knowledge"][team] for team in ("pro", "con"))
    assert len(pro) == len(con) == STANCE_PIECES
    assert all(e["text"].startswith("PRO-") for e in pro) and all(e["text"].startswith("CON-") for e in con)
    for schema in ("PerspectiveAnswer", "ComprehensiveAnswer"):
        for team, own, other in (("Pro", "PRO-1", "CON-1"), ("Con", "CON-1", "PRO-1")):
            prompts = asked(scripted, schema, f"of the {team} team")
            assert prompts and all(own in p and other not in p for p in prompts), (schema, team)
    # the judge weighs the teams against the shared knowledge
    [judged] = asked(scripted, "JudgeQualityAnswer")
    assert "SHARED-1" in judged and "PRO-1" not in judged and "CON-1" not in judged


def test_without_stance_retrieval_both_teams_share_one_retrieval(scripted, monkeypatch):
    queries = _searched(monkeypatch)
    split_teams(scripted)
    scripted.script["SubQuestions"] = [{"sub_questions": [], "keywords": []}]
    scripted.script["KnowledgeStatements"] = [{"statements": []}]
    scripted.script["JudgeAnswer"] = [judge("con", 0.1, consensus=True)]
    result = factcourt.detect(Q, A, model="scripted", cache=False, search="local", rounds=1)
    assert queries == [Q] and result["stance_knowledge"] == {}


def test_a_teams_own_results_take_the_room_of_the_last_shared_pieces():
    shared = [Evidence(text=f"S{i}") for i in range(EVIDENCE_SHOWN)]
    own = [Evidence(text="P1"), Evidence(text="P2")]
    state = {"knowledge": shared, "stance_knowledge": {"pro": own, "con": []}}
    assert [e.text for e in team_knowledge(state, "pro")] == ["S0", "S1", "S2", "P1", "P2"]
    assert team_knowledge(state, "con") == shared  # none of its own: the shared knowledge as it is
    assert team_knowledge({"knowledge": shared}, "pro") == shared


def test_the_simulated_model_runs_the_paper_method():
    result = factcourt.detect(
        Q, "Mount Everest is in the Himalayas of Asia.", K, model="sim", cache=False, **IMPD_PAPER
    )
    assert result["label"] == 1 and result["judgements"][0]["scored"] == "quality"
