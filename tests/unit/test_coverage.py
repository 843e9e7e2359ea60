"""What the Clerk covers of real answers, and whole answers scored against segment labels (issue 52)."""

import json

import pytest

from factcourt.errors import InputError
from factcourt.metrics.coverage import (
    false_segment_scores,
    flagged_segments,
    gold_coverage,
    segment_spans,
    states,
    text_coverage,
)


def test_a_gold_claim_is_stated_by_a_claim_holding_most_of_its_content_words():
    produced = "The United States has the highest number of nuclear power plants, with 94 operating reactors."
    assert states(produced, "The United States has 94 operating reactors")
    assert not states(produced, "France has a significant number of nuclear power plants")
    assert not states("anything", "")  # an empty gold claim is stated by nothing
    assert gold_coverage(
        ["The United States has 94 operating reactors", "France has 56 reactors"], [produced]
    ) == (
        1,
        2,
    )


def test_text_coverage_counts_what_was_dropped_as_well_as_what_was_kept():
    text = "Douglas served from 1939. He was born in 1898. I love the court."
    sentences = [
        (0, 25, "Douglas served from 1939."),
        (26, 46, "He was born in 1898."),
        (47, 64, "I love the court."),
    ]
    claims = [((0, 25), "Douglas served on the court from 1939.")]
    row = text_coverage(
        sentences, claims, ["opinion"], golds=["Douglas served from 1939", "Douglas was born in 1898"]
    )
    assert text[26:46] == "He was born in 1898."
    assert row["sentences"] == 3 and row["sentences_with_claim"] == 1
    assert row["dropped"] == {"opinion": 1}
    assert (row["gold_claims"], row["gold_matched"]) == (2, 1)
    # the birth sentence holds a gold claim and yielded none: one checkable sentence of two dropped
    assert (row["checkable_sentences"], row["checkable_dropped"]) == (2, 1)
    assert "gold_claims" not in text_coverage(sentences, claims, [])


def test_segments_are_flagged_by_the_claims_of_the_sentences_that_overlap_them():
    response = "Paris is in France. It has 90 million people. The Seine flows there."
    segments = ["Paris is in France.", "It has 90 million people.", "The Seine flows there."]
    spans = segment_spans(response, segments)
    assert spans[1] == (20, 45)
    claims = [((0, 19), True), ((20, 45), False), ((20, 45), True)]
    flagged, covered, decided = flagged_segments(spans, claims)
    assert flagged == [False, True, False] and covered == [True, True, False]
    assert decided == [True, True, False]
    # a claim with no verdict either way (not enough evidence) covers its segment, never flags it
    flagged, covered, decided = flagged_segments(
        spans, [((20, 45), None), ((46, 68), None), ((46, 68), True)]
    )
    assert flagged == [False, False, False] and covered == [False, True, True]
    assert decided == [False, False, True]
    assert segment_spans(response, ["not in it"]) == [None]


def test_false_segment_scores_count_hits_over_flags_and_over_false_segments():
    scores = false_segment_scores([True, True, False, False], [True, False, True, False])
    assert (scores["hits"], scores["precision"], scores["recall"], scores["f1"]) == (1, 0.5, 0.5, 0.5)
    assert false_segment_scores([False, False], [True, False])["precision"] is None
    assert false_segment_scores([True], [True])["f1"] == 1.0


def _felm_like(tmp_path, answers):
    from factcourt.bench.runner import in_part

    path, rows = tmp_path / "answers.jsonl", []
    ids = iter(i for i in (f"a-{n:03d}" for n in range(200)) if in_part(i, "test"))
    for response, segments, labels in answers:
        rows.append(
            {
                "id": next(ids),
                "claim": response,
                "label": all(labels),
                "source_question": "Tell me about it.",
                "source_response": response,
                "meta": {"segments": segments, "segment_labels": labels},
            }
        )
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _two_answers(tmp_path, scripted):
    """Two answers, one false segment of three, and the Clerk's claims of each."""
    path = _felm_like(
        tmp_path,
        [
            (
                "Paris is in France. The Moon is cheese.",
                ["Paris is in France.", "The Moon is cheese."],
                [True, False],
            ),
            ("Water is wet.", ["Water is wet."], [True]),
        ],
    )
    scripted.script["ClerkOutput"] = [
        {
            "claims": [
                {"sentence": 1, "claim": "Paris is in France."},
                {"sentence": 2, "claim": "The Moon is cheese."},
            ]
        },
        {"claims": [{"sentence": 1, "claim": "Water is wet."}]},
    ]
    return path


def test_bench_answers_scores_each_reading_beside_the_floors_and_resumes(scripted, tmp_path):
    from factcourt.bench.answers import run
    from factcourt.bench.context import BenchContext
    from tests.fakes import with_logprobs

    path = _two_answers(tmp_path, scripted)
    # raw P(true): .9 for Paris, .3 for the Moon, .4 for water
    scripted.script["Label"] = [
        lambda p: with_logprobs(
            {"verdict": "supported"},
            {"supported": (t := 0.9 if "Paris" in p else 0.3 if "Moon" in p else 0.4), "refuted": 1 - t},
        )
    ]
    ctx = BenchContext.make({"model": "scripted", "search": "none", "cache": False, "calibration": "off"})
    found = run(path, ctx, out=tmp_path / "out", limit=None, part="test", quiet=True)
    assert (found["answers"], found["segments"], found["false_segments"]) == (2, 3, 1)
    # the Moon and the water are flagged: one hit of two flags; both answers judged false
    assert found["default"]["hits"] == 1 and found["default"]["flagged"] == 2
    assert found["default"]["response_accuracy"] == 0.5
    assert found["all_flagged"]["precision"] == pytest.approx(1 / 3)
    assert found["coverage"] == 1.0 and found["claims_per_answer"] == 1.5
    calls = len(scripted.calls)
    again = run(path, ctx, out=tmp_path / "out", limit=None, part="test", quiet=True)
    assert len(scripted.calls) == calls and again["default"] == found["default"]  # resumed, nothing redone


def test_bench_answers_flags_only_refuted_claims_and_reports_what_each_reading_decided(
    scripted, tmp_path, capsys
):
    from factcourt.bench.answers import run
    from factcourt.bench.context import BenchContext
    from tests.fakes import with_logprobs

    path = _two_answers(tmp_path, scripted)
    # Paris supported; the Moon not enough evidence (raw P(true) .25); water refuted (raw .1)
    paris = {"supported": 0.9, "refuted": 0.05, "not_enough_evidence": 0.05}
    moon = {"supported": 0.05, "refuted": 0.15, "not_enough_evidence": 0.8}
    water = {"supported": 0.08, "refuted": 0.72, "not_enough_evidence": 0.2}
    scripted.script["ThreeLabel"] = [
        lambda p: with_logprobs(
            {"verdict": "supported"}, paris if "Paris" in p else moon if "Moon" in p else water
        )
    ]
    settings = {
        "model": "scripted",
        "search": "none",
        "cache": False,
        "calibration": "off",
        "label_set": "three",
    }
    found = run(path, BenchContext.make(settings), out=tmp_path / "out", limit=None, part="test", quiet=True)
    # default: only the water is flagged, a true segment; the Moon's not_enough_evidence flags nothing
    d = found["default"]
    assert (d["flagged"], d["hits"], d["precision"], d["recall"]) == (1, 0, 0.0, 0.0)
    assert d["coverage"] == pytest.approx(2 / 3)  # Paris and water decided, the Moon not
    # plain reads raw P(true) < .5 as false whatever the third label: the Moon and the water
    p = found["plain"]
    assert (p["flagged"], p["hits"], p["precision"], p["recall"], p["coverage"]) == (2, 1, 0.5, 1.0, 1.0)
    assert found["all_flagged"]["coverage"] == 1.0
    assert found["coverage"] == 1.0  # every segment has a claim
    # the command's table shows each reading's coverage beside its flags
    from factcourt.cli import main

    args = ["bench", "answers", "--dataset", str(path), "--out", str(tmp_path / "out"), "--model", "scripted"]
    args += ["--search", "none", "--quiet", "--set", "calibration=off", "--set", "label_set=three"]
    assert main(args) == 0
    shown = capsys.readouterr().out
    assert "coverage" in shown and "0.667" in shown and "not enough evidence flags nothing" in shown


def test_bench_answers_refuses_rows_without_segment_labels(tmp_path):
    from factcourt.bench.answers import read_answers

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x", "source_response": "Hi.", "meta": {"segments": ["Hi."]}}) + "\n")
    with pytest.raises(InputError, match="bad.jsonl:1: not an answer"):
        read_answers(bad, "all")


def test_clerk_coverage_reads_real_answers_by_response_and_counts_unresolved_claims(scripted, tmp_path):
    from factcourt.bench.clerk import coverage
    from factcourt.bench.context import BenchContext
    from factcourt.bench.runner import in_part

    answer_id = next(i for i in (f"q-{n:02d}" for n in range(50)) if in_part(i, "test"))
    response = "William O. Douglas was a justice. He was born in 1898. I admire him."
    rows = [
        {"id": f"{answer_id}-{k}", "claim": gold, "source_question": "Who?", "source_response": response}
        for k, gold in enumerate(["William O. Douglas was a justice", "Douglas was born in 1898"])
    ]
    path = tmp_path / "claims.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    scripted.script["ClerkOutput"] = [
        {
            "claims": [
                {"sentence": 1, "claim": "William O. Douglas was a justice."},
                {"sentence": 2, "claim": "He was born in 1898."},
            ],
            "dropped": [{"sentence": 3, "reason": "opinion"}],
        }
    ]
    ctx = BenchContext.make({"model": "scripted", "search": "none", "cache": False})
    found = coverage([path], ctx, limit=None, part="test")
    total = found["all"]
    assert (total["texts"], total["sentences"], total["sentences_with_claim"]) == (1, 3, 2)
    assert total["dropped"] == {"opinion": 1}
    assert total["gold_coverage"] == 1.0 and total["checkable_dropped_share"] == 0.0
    assert total["unresolved"] == 0  # the rule resolved "He" from the sentence before


def test_clerk_coverage_refuses_to_count_a_failed_part_as_dropped_text(scripted, tmp_path):
    from factcourt.bench.clerk import coverage
    from factcourt.bench.context import BenchContext
    from factcourt.bench.runner import in_part
    from factcourt.errors import BackendError

    answer_id = next(i for i in (f"q-{n:02d}" for n in range(50)) if in_part(i, "test"))
    row = {"id": f"{answer_id}-0", "claim": "Paris is in France", "source_response": "Paris is in France."}
    path = tmp_path / "claims.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    scripted.script["ClerkOutput"] = [TimeoutError("the server took too long")]
    ctx = BenchContext.make({"model": "scripted", "search": "none", "cache": False, "retries": 0})
    with pytest.raises(BackendError, match="again with --cache"):
        coverage([path], ctx, limit=None, part="test")


def test_an_ordinal_states_its_number():
    # "14th" holds the 14 of the gold claim: the Aztec claim was counted as not stated
    produced = "The Aztec Empire was established in the 14th century, while Oxford was founded in the 12th."
    assert states(produced, "The Aztec Empire was established in the 14th century")
    assert not states(produced, "The Aztec Empire was established in the 15th century")


def test_clerk_coverage_reads_halluqa_answers_of_more_than_one_sentence(tmp_path):
    from factcourt.bench.clerk import read_answers

    # HalluQA's one JSON list: answers of one sentence tell nothing of references, so only longer ones
    items = [
        {
            "question_id": 78,
            "Question": "岳飞的后背上刺的是哪四个字？",
            "Best Answer1": "岳飞的后背刺的是“尽忠报国”四个字。",
            "Wrong_Answer1": "岳飞的后背被刺的四个字是“鞠躬尽瘁”。这四个字成为了忠诚的代表符号。",
            "Source": "《宋史》",
        },
        {"question_id": 1, "Question": "你毕业于哪所大学？", "Best Answer1": "我没有上过大学。"},
    ]
    path = tmp_path / "halluqa.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    found = read_answers(path, "all")
    assert [(a["id"], a["question"], a["gold"]) for a in found] == [
        ("halluqa-78-wrong_answer1", "岳飞的后背上刺的是哪四个字？", [])
    ]
    assert found[0]["response"].startswith("岳飞的后背被刺的四个字")
