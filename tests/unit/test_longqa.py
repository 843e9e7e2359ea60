"""The LongHalluQA-style builder (graph ``longqa``, ``factcourt build-longqa``) on scripted models."""

import asyncio
import csv
import json
from pathlib import Path

import pytest

from factcourt.api.longqa import build_seeds, import_review, stored_records, write_outputs
from factcourt.cli import main
from factcourt.context.longqa import LongQAContext
from factcourt.errors import InputError
from factcourt.graphs.longqa import graph
from factcourt.inputs import load_seeds
from factcourt.metrics.longqa import build_stats, length_ratio
from factcourt.nodes.longqa.cluster import topic_clusters
from factcourt.nodes.longqa.fuse import chosen
from factcourt.nodes.longqa.gather import seed_fragments
from factcourt.nodes.longqa.sub_questions import known_topic
from factcourt.nodes.longqa.verify import fact_outcome
from factcourt.providers import search
from factcourt.state.longqa import Seed
from factcourt.state.records import Evidence, Turn
from tests.fakes import rating, with_logprobs

SEEDS = Path(__file__).parent.parent / "fixtures" / "halluqa_seeds.json"
TOWER = Seed(
    id="7",
    question="埃菲尔铁塔在哪座城市？",
    answers=["埃菲尔铁塔位于法国巴黎。", "埃菲尔铁塔于1889年建成。"],
    source="https://zh.wikipedia.org/wiki/埃菲尔铁塔",
)
FACTS = ["埃菲尔铁塔位于法国巴黎。", "埃菲尔铁塔于1889年建成。", "埃菲尔铁塔高三千米。"]


def statements(*texts):
    return {"statements": [{"statement": t, "sources": [1]} for t in texts]}


def sure(verdict, p):
    return with_logprobs(rating(verdict), {verdict: p, "not_enough_evidence": 1 - p})


def by_fact(answers):
    """A Rating script that answers by the fact in the prompt."""

    def answer(prompt):
        return next(a for fact, a in answers.items() if f"<claim>{fact}</claim>" in prompt)

    return answer


def script_build(
    scripted, facts=FACTS, verdicts=None, question="埃菲尔铁塔在哪座城市？它建于哪一年？由谁设计？"
):
    verdicts = verdicts or {
        FACTS[0]: sure("supported", 0.9),
        FACTS[1]: sure("supported", 0.8),
        FACTS[2]: sure("refuted", 0.9),
    }
    scripted.script["KnowledgeStatements"] = [statements(*facts)]
    scripted.script["Rating"] = [by_fact(verdicts)]
    scripted.script["FactSubQuestions"] = [
        {
            "questions": [
                {"fact": 1, "question": "埃菲尔铁塔位于哪座城市？"},
                {"fact": 2, "question": "埃菲尔铁塔建于哪一年？"},
            ],
            "topic": "Geography",
        }
    ]
    scripted.script["FusedQuestion"] = [{"selected": [1, 2, 9], "reason": "相关且准确", "question": question}]


def run(seed, **settings):
    ctx = LongQAContext(**{"model": "scripted", "cache": False, **settings})
    return asyncio.run(graph.ainvoke({"seed": seed}, context=ctx))


# ------------------------------------------------------------------ pure parts


def test_seed_file_gives_question_best_answers_source_and_classes_never_wrong_answers():
    seeds = load_seeds(SEEDS)
    assert [s.id for s in seeds] == ["7", "8", "9"]
    tower = seeds[0]
    assert (
        tower.question == "埃菲尔铁塔在哪座城市？" and tower.kind == "Knowledge" and tower.category == "地理"
    )
    assert len(tower.answers) == 3 and not any("伦敦" in a for a in tower.answers)


def test_seed_rows_in_jsonl_and_bad_seed_files(tmp_path):
    rows = tmp_path / "s.jsonl"
    rows.write_text(
        '{"id": "a", "question": "Who wrote Hamlet?", "answer": "Shakespeare."}\n', encoding="utf-8"
    )
    assert load_seeds(rows) == [Seed(id="a", question="Who wrote Hamlet?", answers=["Shakespeare."])]
    for content, said in [
        ('[{"answer": "x"}]', "item 1 has no question"),
        ('[{"id": 1, "question": "a"}, {"id": 1, "question": "b"}]', "repeats the id"),
        ("[]", "holds no seed"),
    ]:
        rows.write_text(content, encoding="utf-8")
        with pytest.raises(InputError, match=said):
            load_seeds(rows)
    with pytest.raises(InputError, match="no such seed file"):
        load_seeds(tmp_path / "missing.json")


def test_seed_fragments_use_a_source_url_as_the_answers_url_and_drop_repeats():
    fragments = seed_fragments(
        TOWER.model_copy(update={"answers": [*TOWER.answers, " 埃菲尔铁塔位于法国巴黎。"]})
    )
    assert [f.text for f in fragments] == TOWER.answers
    assert {f.url for f in fragments} == {TOWER.source}
    spoken = seed_fragments(Seed(id="9", question="q", answers=["a"], source="人工智能模型没有出生年份。"))
    assert [f.text for f in spoken] == ["a", "人工智能模型没有出生年份。"] and spoken[0].url == ""


def test_topic_clusters_group_sub_questions_by_subject():
    questions = [
        "朱元璋出生于哪一年？",
        "朱元璋的原名是什么？",
        "明朝的开国皇帝朱元璋在位多少年？",
        "凤阳县今属哪个省？",
        "安徽凤阳县的钟离在哪里？",
    ]
    assert topic_clusters(questions, 0.85) == [[0, 1, 2], [3, 4]]
    assert topic_clusters(questions, 0.0) == [[0], [1], [2], [3], [4]]
    english = [
        "When was the Eiffel Tower built?",
        "Who designed the Eiffel Tower?",
        "What is the capital of France?",
    ]
    assert topic_clusters(english, 0.85) == [[0, 1], [2]]
    assert topic_clusters(["？", "朱元璋是谁？", "朱元璋的原名？"], 0.85) == [[0], [1, 2]]  # no terms: alone


def test_fact_outcomes_keep_supported_facts_at_theta_and_name_every_drop():
    def turn(verdict, confidence=None, failed=None):
        return Turn(speaker="First pass", round=0, verdict=verdict, confidence=confidence, failed=failed)

    assert fact_outcome(turn("supported", 0.7), 0.7)[0] == "kept"
    assert fact_outcome(turn("supported", 0.69), 0.7) == (
        "low_confidence",
        "supported with confidence 0.69 < 0.7",
    )
    assert fact_outcome(turn("conflicting_evidence", 0.9), 0.7)[0] == "contested"
    assert fact_outcome(turn("refuted", 0.9), 0.7)[0] == "refuted"
    assert fact_outcome(turn("not_enough_evidence", 0.9), 0.7)[0] == "unverified"
    assert fact_outcome(turn(None, failed="timeout"), 0.7) == (
        "failed",
        "the verifier gave no verdict: timeout",
    )
    kept, reason = fact_outcome(turn("supported"), 0.7)
    assert kept == "kept" and "no confidence" in reason


def test_topics_and_candidate_numbers_are_read_leniently_but_never_invented():
    topics = ["history", "natural_science"]
    assert known_topic("Natural Science", topics) == "natural_science"
    assert known_topic("cooking", topics) == "other"
    assert chosen([2, 2, 7, 0, 1, 3], 3) == [2, 1, 3]
    assert chosen([9], 2) == [] and chosen([], 2) == []


def test_length_ratio_and_build_stats():
    assert length_ratio([("abcd", "abcdefgh"), ("ab", "abcdefgh")]) == {"mean": 3.0, "pooled": 16 / 6}
    assert length_ratio([]) == {"mean": None, "pooled": None}
    row = {"topic": "history", "seed_question": "ab", "question": "abcd", "gathered": 3, "kept": 2}
    both = {"factual_consistency": "keep", "answerability": "keep"}
    rows = [
        {**row, "status": "built", "decisions": {}},
        {**row, "status": "built", "decisions": {"factual_consistency": "drop"}, "topic": "geography"},
        {**row, "status": "built", "decisions": both, "question": "abcdef"},
        {**row, "status": "built", "decisions": {"factual_consistency": "keep"}},  # half reviewed
        {**row, "status": "no_verified_knowledge", "decisions": {}, "kept": 0, "question": ""},
    ]
    stats = build_stats(rows)
    assert stats["built"] == 4 and stats["kept"] == 1 and stats["dropped_in_review"] == 1
    # retention counts only the questions whose review is done; the other two await it
    assert stats["reviewed"] == 2 and stats["unreviewed"] == 2
    assert stats["retention"] == 1 / 2 and stats["seed_retention"] == 1 / 3
    assert stats["topics"] == {"history": 1} and stats["fact_retention"] == 8 / 15
    assert stats["question_length_ratio"]["mean"] == 3.0 and "length_ratio" not in stats


def test_before_any_review_nothing_is_kept_and_retention_is_not_known():
    row = {"topic": "t", "seed_question": "ab", "question": "abcd", "gathered": 1, "kept": 1}
    stats = build_stats([{**row, "status": "built", "decisions": {}}] * 3)
    assert stats["kept"] == 0 and stats["reviewed"] == 0 and stats["unreviewed"] == 3
    assert stats["retention"] is None and stats["seed_retention"] is None


# ------------------------------------------------------------------ the graph


def test_each_stage_gather_verify_sub_questions_cluster_fuse(scripted, corpus):
    script_build(scripted)
    state = run(TOWER, corpus=corpus)
    outcomes = {t.knowledge.text: t.outcome for t in state["triples"]}
    assert outcomes == {FACTS[0]: "kept", FACTS[1]: "kept", FACTS[2]: "refuted"}
    assert scripted.count("Rating") == 3
    # the verifier judged each fact on the seed's own answers (the corpus holds no Chinese)
    verified = [p for name, p in scripted.calls if name == "Rating"][0]
    assert "埃菲尔铁塔位于法国巴黎。" in verified and TOWER.source in verified
    # only the kept facts get sub-questions
    asked = [p for name, p in scripted.calls if name == "FactSubQuestions"][0]
    assert FACTS[0] in asked and FACTS[2] not in asked
    assert state["topic"] == "geography"
    assert state["clusters"] == [["7-k1", "7-k2"]]  # one subject: one candidate
    fused = [p for name, p in scripted.calls if name == "FusedQuestion"][0]
    assert "1. 埃菲尔铁塔位于哪座城市？ / 埃菲尔铁塔建于哪一年？" in fused
    built = state["built"]
    assert built.question.startswith("埃菲尔铁塔在哪座城市？") and built.selected == [1]
    assert any("language not covered by the corpus" in n for n in state["notes"])


def test_a_fusion_that_names_no_valid_candidate_records_no_selection_and_says_so(scripted, corpus):
    script_build(scripted)
    scripted.script["FusedQuestion"] = [
        {"selected": [7], "reason": "r", "question": "埃菲尔铁塔在哪座城市？它建于哪一年？"}
    ]
    state = run(TOWER, corpus=corpus)
    assert state["built"].selected == []
    assert any("named no valid candidate" in n for n in state["notes"])


def test_low_confidence_facts_are_dropped_at_the_contexts_theta(scripted, corpus):
    script_build(scripted)
    state = run(TOWER, corpus=corpus, longqa_theta=0.85)
    assert {t.knowledge.text: t.outcome for t in state["triples"]}[FACTS[1]] == "low_confidence"
    assert FACTS[1] not in [p for name, p in scripted.calls if name == "FactSubQuestions"][0]


def test_no_verified_fact_builds_nothing_and_asks_no_more(scripted, corpus):
    script_build(scripted, verdicts={f: sure("refuted", 0.9) for f in FACTS})
    state = run(TOWER, corpus=corpus)
    assert "built" not in state and not state.get("error")
    assert scripted.count("FactSubQuestions") == 0 and scripted.count("FusedQuestion") == 0


def test_a_failed_verifier_call_drops_its_fact_with_the_reason(scripted, corpus):
    script_build(
        scripted,
        verdicts={
            FACTS[0]: sure("supported", 0.9),
            FACTS[1]: TimeoutError("slow"),
            FACTS[2]: sure("supported", 0.9),
        },
    )
    state = run(TOWER, corpus=corpus, retries=0)
    failed = next(t for t in state["triples"] if t.knowledge.text == FACTS[1])
    assert failed.outcome == "failed" and "slow" in failed.reason
    assert "built" in state


def test_a_verifier_that_fails_on_every_fact_fails_the_seed_instead_of_finding_no_knowledge(scripted, corpus):
    script_build(scripted, verdicts={f: TimeoutError("server down") for f in FACTS})
    state = run(TOWER, corpus=corpus, retries=0)
    assert "server down" in state["error"] and "built" not in state
    assert scripted.count("FactSubQuestions") == 0


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("埃菲尔铁塔在哪座城市？", "the seed question again"),
        ("埃菲尔铁塔在哪座城市？" * 3, "repeats one sentence"),
        ("  ", "empty"),
    ],
)
def test_a_question_that_is_the_seed_again_or_a_loop_is_not_built(scripted, corpus, written, why):
    script_build(scripted, question=written)
    state = run(TOWER, corpus=corpus)
    # final, not an error: a rerun would get the same writing and is not tried
    assert "built" not in state and why in state["not_built"] and not state.get("error")


def test_sub_questions_keep_the_fact_they_name_when_the_model_skips_one(scripted, corpus):
    script_build(scripted)
    scripted.script["FactSubQuestions"] = [
        {
            "questions": [
                {"fact": 2, "question": "埃菲尔铁塔建于哪一年？"},
                {"fact": 7, "question": "没有这条事实？"},
                {"fact": 2, "question": "第二次写事实二？"},
            ],
            "topic": "geography",
        }
    ]
    state = run(TOWER, corpus=corpus)
    assert state["sub_questions"] == {"7-k2": "埃菲尔铁塔建于哪一年？"}
    assert "1 verified fact(s) got no sub-question" in state["notes"]


def test_sub_questions_that_ask_the_seed_again_are_left_out_and_alone_build_nothing(scripted, corpus):
    script_build(scripted)
    scripted.script["FactSubQuestions"] = [
        {
            "questions": [
                {"fact": 1, "question": "埃菲尔铁塔在哪座城市?"},
                {"fact": 2, "question": " 埃菲尔铁塔 在哪座城市 "},
            ],
            "topic": "geography",
        }
    ]
    state = run(TOWER, corpus=corpus)
    assert state["not_built"] == "every sub-question was the seed question again"
    assert "2 sub-question(s) asked the seed question again and were left out" in state["notes"]
    assert scripted.count("FusedQuestion") == 0 and not state.get("error")


def test_repeated_statements_are_verified_once(scripted, corpus):
    script_build(scripted, facts=[FACTS[0], "埃菲尔铁塔位于法国的巴黎。", FACTS[1]])
    scripted.script["Rating"] = [sure("supported", 0.9)]
    state = run(TOWER, corpus=corpus)
    assert [t.knowledge.text for t in state["gathered"]] == [FACTS[0], FACTS[1]]


def test_an_english_seed_searches_a_covering_corpus_and_verifies_on_what_it_found(scripted, corpus):
    seed = Seed(id="e", question="Where is the Eiffel Tower?", answers=["In Paris."])
    scripted.script["KnowledgeStatements"] = [statements("The Eiffel Tower is in Paris.")]
    scripted.script["Rating"] = [sure("supported", 0.9)]
    scripted.script["FactSubQuestions"] = [
        {"questions": [{"fact": 1, "question": "Which city has the Eiffel Tower?"}], "topic": "geography"}
    ]
    scripted.script["FusedQuestion"] = [{"selected": [1], "reason": "r", "question": "Where is it and why?"}]
    state = run(seed, corpus=corpus)
    assert state["queries"] == ["Where is the Eiffel Tower?"] and not state.get("notes")
    refined = [p for name, p in scripted.calls if name == "KnowledgeStatements"][0]
    assert "wrought-iron tower" in refined  # the corpus's document was a fragment
    assert "completed in 1889" in [p for name, p in scripted.calls if name == "Rating"][0]


def test_web_search_plans_queries_like_the_paper_question_then_expansion(scripted, monkeypatch):
    class Web:
        name = "serper"

        def search(self, query, k):
            return [
                Evidence(text=f"result for {query}", url=f"https://example.org/{len(query)}", source="serper")
            ]

    monkeypatch.setitem(search._backends, ("serper", "", ""), Web())
    script_build(scripted)
    scripted.script["SubQuestions"] = [
        {"sub_questions": ["埃菲尔铁塔的设计者是谁？"], "keywords": ["埃菲尔铁塔", "巴黎"]}
    ]
    scripted.script["Rating"] = [sure("supported", 0.9)]
    state = run(TOWER, search="serper")
    assert state["queries"] == ["埃菲尔铁塔在哪座城市？", "埃菲尔铁塔 巴黎", "埃菲尔铁塔的设计者是谁？"]
    assert (
        "result for 埃菲尔铁塔 巴黎" in [p for name, p in scripted.calls if name == "KnowledgeStatements"][0]
    )
    assert "built" in state


def test_an_empty_seed_fails_without_a_model_call(scripted):
    state = run(Seed(id="x", question="  "), search="none")
    assert state["error"] == "the seed question is empty" and scripted.calls == []


# ------------------------------------------------------------------ build, resume, review


def build(scripted, out, corpus, seeds=None):
    ctx = LongQAContext(model="scripted", cache=False, corpus=corpus)
    records = asyncio.run(build_seeds(seeds or load_seeds(SEEDS), ctx, out, quiet=True))
    return write_outputs(out, records, ctx)


ADDED = "它的来历是什么？后来又有哪些变化？"


def script_any_seed(scripted):
    scripted.script["KnowledgeStatements"] = [
        lambda p: statements(p.split("<question>")[1].split("<")[0] + "的事实。")
    ]
    scripted.script["Rating"] = [sure("supported", 0.9)]
    scripted.script["FactSubQuestions"] = [
        {"questions": [{"fact": 1, "question": "子问题？"}], "topic": "history"}
    ]
    scripted.script["FusedQuestion"] = [
        lambda p: {
            "selected": [1],
            "reason": "r",
            "question": p.split("<question>")[1].split("<")[0] + ADDED,
        }
    ]


def exported(out):
    return [json.loads(x) for x in (out / "longhalluqa.jsonl").read_text(encoding="utf-8").splitlines()]


KEEP_BOTH = {"decision": "keep", "stage": ""}  # a row without a stage decides both


def test_build_writes_the_set_and_a_rerun_resumes_without_model_calls(scripted, corpus, tmp_path):
    script_any_seed(scripted)
    report = build(scripted, tmp_path, corpus)
    assert report["stats"]["built"] == 3 and report["stats"]["unreviewed"] == 3
    assert report["stats"]["retention"] is None and exported(tmp_path) == []
    import_review(tmp_path, review(tmp_path, {i: KEEP_BOTH for i in ("7", "8", "9")}))
    report = write_outputs(tmp_path, stored_records(tmp_path), None)
    assert report["stats"]["retention"] == 1.0
    seeds = [len(s.question) for s in load_seeds(SEEDS)]
    ratio = sum((n + len(ADDED)) / n for n in seeds) / len(seeds)
    assert report["stats"]["question_length_ratio"]["mean"] == pytest.approx(ratio)
    assert report["stats"]["topics"] == {"history": 3}
    rows = exported(tmp_path)
    assert [r["id"] for r in rows] == ["longhalluqa-7", "longhalluqa-8", "longhalluqa-9"]
    assert rows[0]["prompt"] == "埃菲尔铁塔在哪座城市？" + ADDED and rows[0]["topic"] == "history"
    triple = json.loads((tmp_path / "triples.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert triple["question"] and triple["knowledge"]["text"] and triple["category"] == "history"
    assert "埃菲尔铁塔在哪座城市？" in (tmp_path / "report.md").read_text(encoding="utf-8")
    calls = len(scripted.calls)
    build(scripted, tmp_path, corpus)
    assert len(scripted.calls) == calls


def test_failed_seeds_are_tried_again_on_the_next_run(scripted, corpus, tmp_path):
    script_any_seed(scripted)
    scripted.script["FusedQuestion"] = [TimeoutError("down")]
    report = build(scripted, tmp_path, corpus)
    assert report["stats"]["failed"] == 3 and "down" in report["failures"]["7"]
    script_any_seed(scripted)
    assert build(scripted, tmp_path, corpus)["stats"]["built"] == 3


def test_seeds_the_models_writing_leaves_unbuilt_are_reported_and_not_asked_again(scripted, corpus, tmp_path):
    script_any_seed(scripted)
    scripted.script["FusedQuestion"] = [
        lambda p: {"selected": [1], "reason": "r", "question": p.split("<question>")[1].split("<")[0]}
    ]
    report = build(scripted, tmp_path, corpus)
    assert report["stats"]["not_built"] == 3 and report["stats"]["failed"] == 0
    assert "the seed question again" in report["not_built"]["7"]
    assert "not built from the model's writing 3" in (tmp_path / "report.md").read_text(encoding="utf-8")
    calls = len(scripted.calls)
    build(scripted, tmp_path, corpus)
    assert len(scripted.calls) == calls


def review(tmp_path, changes):
    rows = review_rows(tmp_path)
    for row in rows:
        row.update(changes.get(row["id"], {}))
    return write_sheet(tmp_path / "filled.csv", rows)


def review_rows(out):
    with (out / "review.csv").open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def write_sheet(sheet, rows):
    """A filled review sheet, as a reviewer saves it."""
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return sheet


def staged_sheet(out, decisions):
    """Fill review.csv's row of each (id, stage) with (decision, reason)."""
    rows = review_rows(out)
    for row in rows:
        decision, reason = decisions.get((row["id"], row["stage"]), ("", ""))
        row.update(decision=decision, reason=reason)
    return write_sheet(out / "staged.csv", rows)


def test_review_round_trip_a_dropped_row_stays_dropped_with_its_reason(scripted, corpus, tmp_path):
    script_any_seed(scripted)
    build(scripted, tmp_path, corpus)
    # one row per question and stage, in the order of the paper's two stages
    assert [(r["id"], r["stage"]) for r in review_rows(tmp_path)][:2] == [
        ("7", "factual_consistency"),
        ("7", "answerability"),
    ]
    fc, an = "factual_consistency", "answerability"
    sheet = staged_sheet(
        tmp_path,
        {
            ("7", fc): ("keep", ""),
            ("7", an): ("keep", ""),
            ("8", fc): ("keep", ""),
            ("8", an): ("drop", "问题含糊"),
            ("9", fc): ("keep", ""),  # answerability not reviewed yet
        },
    )
    import_review(tmp_path, sheet)
    report = write_outputs(tmp_path, stored_records(tmp_path), None)
    s = report["stats"]
    assert (s["kept"], s["dropped_in_review"], s["reviewed"], s["unreviewed"]) == (1, 1, 2, 1)
    assert s["retention"] == 1 / 2
    assert [r["seed_id"] for r in exported(tmp_path)] == ["7"]
    assert "awaiting review" in (tmp_path / "report.md").read_text(encoding="utf-8")
    # a later sheet that leaves the rows blank, and a rebuild, keep every decision and its reason
    import_review(tmp_path, review(tmp_path, {"8": {"decision": "", "reason": ""}}))
    build(scripted, tmp_path, corpus)
    rows = {(r["id"], r["stage"]): r for r in review_rows(tmp_path)}
    assert (rows["8", an]["decision"], rows["8", an]["reason"]) == ("drop", "问题含糊")
    assert rows["8", fc]["decision"] == "keep" and rows["9", an]["decision"] == ""
    assert [r["seed_id"] for r in exported(tmp_path)] == ["7"]
    # the second stage of 9 finishes its review: kept at both stages, exported
    import_review(tmp_path, staged_sheet(tmp_path, {("9", an): ("keep", "")}))
    report = write_outputs(tmp_path, stored_records(tmp_path), None)
    assert [r["seed_id"] for r in exported(tmp_path)] == ["7", "9"]
    assert report["stats"]["retention"] == 2 / 3 and report["stats"]["unreviewed"] == 0


def test_an_earlier_one_row_review_sheet_and_reviews_file_still_import(scripted, corpus, tmp_path):
    script_any_seed(scripted)
    build(scripted, tmp_path, corpus)
    sheet = tmp_path / "old.csv"
    sheet.write_text(
        "id,decision,stage,reason\n"
        "7,keep,,\n"  # no stage: the decision of both stages
        "8,keep,answerability,\n"  # one stage named: the other still awaits review
        "9,drop,factual_consistency,错误陈述\n",
        encoding="utf-8",
    )
    import_review(tmp_path, sheet)
    report = write_outputs(tmp_path, stored_records(tmp_path), None)
    s = report["stats"]
    assert (s["kept"], s["dropped_in_review"], s["unreviewed"]) == (1, 1, 1)
    assert [r["seed_id"] for r in exported(tmp_path)] == ["7"]
    # reviews.json of an earlier version: one decision per question, with the stage it names
    old = {"7": {"decision": "keep", "stage": "", "reason": ""}}
    old["8"] = {"decision": "drop", "stage": "answerability", "reason": "含糊"}
    (tmp_path / "reviews.json").write_text(json.dumps(old), encoding="utf-8")
    s = write_outputs(tmp_path, stored_records(tmp_path), None)["stats"]
    assert (s["kept"], s["dropped_in_review"], s["unreviewed"]) == (1, 1, 1)
    rows = {(r["id"], r["stage"]): r for r in review_rows(tmp_path)}
    assert (
        rows["8", "answerability"]["reason"] == "含糊" and rows["8", "factual_consistency"]["decision"] == ""
    )


def test_a_question_fused_with_no_valid_candidate_exports_no_sub_questions_and_says_so(
    scripted, corpus, tmp_path
):
    script_any_seed(scripted)
    scripted.script["FusedQuestion"] = [
        lambda p: {"selected": [5], "reason": "r", "question": p.split("<question>")[1].split("<")[0] + ADDED}
    ]
    build(scripted, tmp_path, corpus)
    assert all("named no valid candidate" in r["sub_questions"] for r in review_rows(tmp_path))
    import_review(tmp_path, review(tmp_path, {"7": KEEP_BOTH}))
    report = write_outputs(tmp_path, stored_records(tmp_path), None)
    assert exported(tmp_path)[0]["sub_questions"] == []
    assert any("named no valid candidate" in note for note in report["notes"])
    assert "named no valid candidate" in (tmp_path / "report.md").read_text(encoding="utf-8")


def test_the_report_names_the_question_length_ratio_and_says_no_answer_ratio_is_measured(
    scripted, corpus, tmp_path
):
    script_any_seed(scripted)
    build(scripted, tmp_path, corpus)
    import_review(tmp_path, review(tmp_path, {"7": KEEP_BOTH}))
    write_outputs(tmp_path, stored_records(tmp_path), None)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "question length ratio" in text and "| length ratio, new / seed question" not in text
    assert "answer length ratio" in text and "not measured" in text


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"7": {"decision": "maybe"}}, "decision must be keep or drop"),
        ({"7": {"decision": "drop", "reason": ""}}, "a drop needs a reason"),
        ({"7": {"id": "99"}}, "no question was built with this id"),
        ({"7": {"stage": "taste"}}, "stage must be one of"),
    ],
)
def test_a_bad_review_row_is_bad_input_named_by_its_line(scripted, corpus, tmp_path, change, said):
    script_any_seed(scripted)
    build(scripted, tmp_path, corpus)
    with pytest.raises(InputError, match=f"filled.csv:2 .*{said}"):
        import_review(tmp_path, review(tmp_path, change))


# ------------------------------------------------------------------ command line


def test_cli_builds_reports_json_and_imports_a_review(scripted, corpus, tmp_path, capsys):
    script_any_seed(scripted)
    out = tmp_path / "set"
    args = [
        "build-longqa",
        "--seeds",
        str(SEEDS),
        "--out",
        str(out),
        "--model",
        "scripted",
        "--corpus",
        corpus,
    ]
    assert main([*args, "--limit", "2", "--json", "--no-cache"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["stats"]["built"] == 2
    assert " ".join(captured.err.split()).count("holds no 'zh' text") == 1  # warned once, before the run
    sheet = review(out, {"7": {"decision": "drop", "reason": "重复"}, "8": KEEP_BOTH})
    assert main(["build-longqa", "--out", str(out), "--import-review", str(sheet)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "1 question(s) kept" in said and "0 awaiting review" in said and "question length ratio" in said
    assert json.loads((out / "report.json").read_text(encoding="utf-8"))["settings"]["model"] == "scripted"


def test_the_graph_takes_the_seed_as_json_as_studio_sends_it(scripted, corpus):
    script_build(scripted)
    assert run(TOWER.model_dump(), corpus=corpus)["built"].selected == [1]


def test_cli_bad_usage_exits_2_with_one_sentence(tmp_path, capsys):
    def said():
        return " ".join(capsys.readouterr().err.split())

    assert main(["build-longqa", "--out", str(tmp_path)]) == 2
    assert "give the seeds with --seeds" in said()
    assert main(["build-longqa", "--out", str(tmp_path), "--import-review", str(tmp_path / "x.csv")]) == 2
    assert "no such review sheet" in said()
    sheet = tmp_path / "x.csv"
    sheet.write_text("id,decision,reason\n7,keep,\n", encoding="utf-8")
    assert main(["build-longqa", "--out", str(tmp_path), "--import-review", str(sheet)]) == 2
    assert "holds no build" in said()
    assert main(["build-longqa", "--seeds", str(SEEDS), "--out", str(tmp_path), "--limit", "0"]) == 2


def test_a_question_with_a_character_changed_is_the_seed_again_and_one_that_adds_is_not():
    from factcourt.nodes.longqa.sub_questions import restates

    assert restates("文言文中哪个词语用来表示收音机？", "文言文中的哪个词语用来表示收音机？")
    assert restates("上海面积第二大的区是哪个？", "上海面积第二大的区是哪一个？")
    assert not restates(
        "最早提出‘中国共产党’这一名称的人是谁？他在哪一年、在什么文献中提出的？",
        "最早提出“中国共产党”这一名称的人是谁？",
    )


def test_cli_out_that_is_a_file_is_one_sentence_before_any_call(tmp_path, monkeypatch, capsys):
    from factcourt.providers import models

    def no_call(*args, **kwargs):
        raise AssertionError("the build started before --out was checked")

    monkeypatch.setattr(models, "_prepare", no_call)
    taken = tmp_path / "taken"
    taken.write_text("", encoding="utf-8")
    argv = ["build-longqa", "--seeds", str(SEEDS), "--model", "sim", "--search", "none", "--out", str(taken)]
    assert main(argv) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert f"--out must be a folder: {taken} is a file" in said and "Traceback" not in said
    sheet = tmp_path / "review.csv"
    sheet.write_text("id,decision,reason\n1,keep,\n", encoding="utf-8")
    assert main(["build-longqa", "--out", str(taken), "--import-review", str(sheet)]) == 2
    assert f"--out must be a folder: {taken} is a file" in " ".join(capsys.readouterr().err.split())


def build_cli(out, corpus, *extra):
    argv = ["build-longqa", "--seeds", str(SEEDS), "--out", str(out), "--model", "scripted"]
    return main([*argv, "--corpus", corpus, "--no-cache", "--quiet", *extra])


def test_a_build_of_fewer_seeds_keeps_the_reviewed_questions_of_the_others(scripted, corpus, tmp_path):
    script_any_seed(scripted)
    assert build_cli(tmp_path, corpus) == 0
    assert (
        main(
            [
                "build-longqa",
                "--out",
                str(tmp_path),
                "--import-review",
                str(review(tmp_path, {i: KEEP_BOTH for i in ("7", "8", "9")})),
            ]
        )
        == 0
    )
    assert len(exported(tmp_path)) == 3
    assert build_cli(tmp_path, corpus, "--limit", "1") == 0
    assert len(exported(tmp_path)) == 3


def test_a_build_with_other_settings_in_the_same_out_is_refused(scripted, corpus, tmp_path, capsys):
    script_any_seed(scripted)
    assert build_cli(tmp_path, corpus, "--limit", "1", "--set", "longqa_theta=0.95") == 0
    calls = len(scripted.calls)
    assert build_cli(tmp_path, corpus, "--set", "longqa_theta=0.5") == 2
    assert "longqa_theta 0.95 -> 0.5" in " ".join(capsys.readouterr().err.split())
    assert len(scripted.calls) == calls


def test_a_rebuild_refuses_to_overwrite_review_decisions_not_yet_imported(scripted, corpus, tmp_path, capsys):
    """review.csv is rewritten by every build: a reviewer's edits there were lost before an import."""
    script_any_seed(scripted)
    out = tmp_path / "set"
    args = ["build-longqa", "--seeds", str(SEEDS), "--out", str(out), "--model", "scripted"]
    args += ["--corpus", corpus]
    assert main([*args, "--limit", "2", "--quiet", "--no-cache"]) == 0
    capsys.readouterr()
    rows = review_rows(out)
    rows[0].update(decision="drop", reason="重复")
    write_sheet(out / "review.csv", rows)  # filled in place, as the guide says
    calls = len(scripted.calls)
    assert main([*args, "--limit", "3", "--quiet", "--no-cache"]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "review.csv holds 1 decision not imported yet" in said and "--import-review" in said
    assert len(scripted.calls) == calls  # refused before any model call
    assert review_rows(out)[0]["decision"] == "drop"  # the edit is still there
    # imported, the same rebuild goes ahead and keeps the decision
    assert main(["build-longqa", "--out", str(out), "--import-review", str(out / "review.csv")]) == 0
    assert main([*args, "--limit", "3", "--quiet", "--no-cache"]) == 0
    assert review_rows(out)[0]["decision"] == "drop"


def test_stored_records_follow_the_seeds_file_whatever_order_they_finished_in(tmp_path):
    # seeds are built concurrently: the store holds them as they finished, an import reads them back
    from factcourt.api.longqa import STAGE
    from factcourt.store import PredictionStore

    store = PredictionStore(tmp_path / "built.jsonl")
    store.append({"method": STAGE, "id": "legacy"})  # stored before records kept their place
    store.append({"method": STAGE, "id": "9", "position": 2})
    store.append({"method": STAGE, "id": "7", "position": 0})
    store.append({"method": STAGE, "id": "8", "position": 1})
    assert [r["id"] for r in stored_records(tmp_path)] == ["7", "8", "9", "legacy"]
