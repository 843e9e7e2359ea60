"""The benchmark harness: resume after a crash, failures counted, reports written, SFT data."""

import asyncio
import json

import pytest

from factcourt.bench import methods as bench_methods
from factcourt.bench.runner import run_bench
from factcourt.bench.sft import debate_context, synth_sft
from factcourt.context import Context
from tests.fakes import juror, moderator, rating

ROWS = [
    {
        "id": f"r{i}",
        "claim": f"Claim {i} about Paris.",
        "label": i % 2 == 0,
        "evidence": [f"Claim {i} about Paris is documented."],
        "meta": {
            "label_4way": "Supported" if i % 2 == 0 else "Refuted",
            "justification": "GOLD-ONLY-JUSTIFICATION",
        },
    }
    for i in range(6)
]


@pytest.fixture
def dataset(tmp_path):
    path = tmp_path / "claims.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS), encoding="utf-8")
    return path


def test_a_killed_run_resumes_without_recomputing_finished_claims(dataset, tmp_path, monkeypatch):
    ctx = Context(model="sim", search="given", cache=False, max_concurrency=1)
    calls, crashed = [], []
    real_predict = bench_methods.predict

    async def crashing(method, case, c):
        calls.append((method, case.id))
        if len(calls) == 4 and not crashed:
            crashed.append(True)
            raise RuntimeError("killed")  # the process dies mid-run
        return await real_predict(method, case, c)

    monkeypatch.setattr("factcourt.bench.runner.predict", crashing)
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="killed"):
        asyncio.run(run_bench(dataset, ["single", "jury-adaptive"], ctx, out))
    finished = (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(finished) == 3
    with (out / "predictions.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"method": "single", "id": "r3", "verd')  # a half-written line from kill -9
    calls.clear()
    summary = asyncio.run(run_bench(dataset, ["single", "jury-adaptive"], ctx, out))
    redone = {c for c in calls}
    assert len(redone) == 12 - 3 and not redone & {("single", "r0"), ("single", "r1"), ("single", "r2")}
    assert summary["report"]["single"]["binary"]["n"] == 6
    for name in ("report.md", "report.json", "wrong_predictions.csv", "f1_false_vs_cost.png"):
        assert (out / name).exists()


def test_failed_predictions_are_counted_never_correct(dataset, tmp_path, scripted):
    scripted.script["Rating"] = [TimeoutError("down")]
    ctx = Context(model="scripted", search="given", cache=False)
    summary = asyncio.run(run_bench(dataset, ["single"], ctx, tmp_path / "o"))
    binary = summary["report"]["single"]["binary"]
    assert binary["failed"] == 6 and binary["accuracy"] == 0.0
    assert summary["wrong_predictions"] == 6


def test_the_same_command_tries_failed_predictions_again_and_keeps_the_finished_ones(
    dataset, tmp_path, scripted
):
    ctx = Context(model="scripted", search="given", cache=False)
    scripted.script["Rating"] = [TimeoutError("busy")] * 2 + [rating("supported")] * 4
    first = asyncio.run(run_bench(dataset, ["single"], ctx, tmp_path / "o"))
    assert first["report"]["single"]["binary"]["failed"] == 2
    scripted.calls.clear()
    scripted.script["Rating"] = [rating("refuted")]
    again = asyncio.run(run_bench(dataset, ["single"], ctx, tmp_path / "o"))
    assert len([c for c in scripted.calls if c[0] == "Rating"]) == 2, "only the two failures are redone"
    assert (
        again["report"]["single"]["binary"]["failed"] == 0 and again["report"]["single"]["binary"]["n"] == 6
    )


def test_meta_never_reaches_a_method(dataset, tmp_path, scripted):
    ctx = Context(model="scripted", search="given", cache=False)
    asyncio.run(run_bench(dataset, ["jury-adaptive", "adversarial", "fire", "safe"], ctx, tmp_path / "o"))
    assert scripted.calls and not any("GOLD-ONLY" in prompt for _, prompt in scripted.calls)


def test_four_way_and_cost_columns(dataset, tmp_path):
    ctx = Context(model="sim", search="given", cache=False)
    summary = asyncio.run(run_bench(dataset, ["adversarial"], ctx, tmp_path / "o"))
    report = summary["report"]["adversarial"]
    assert report["four_way"]["n"] == 6 and 0 <= report["four_way"]["averitec_score"] <= 1
    assert report["cost"]["calls_per_claim"] > 0 and report["cost"]["dollars_per_1000_claims"] > 0
    assert "AVeriTeC" in (tmp_path / "o" / "report.md").read_text(encoding="utf-8")


def test_sft_export_keeps_gold_labels_out_of_the_debate(dataset, tmp_path, scripted):
    scripted.script["ModeratorAnswer"] = [moderator("not_enough_evidence", stop=True)]
    scripted.script["SftJustification"] = [{"justification": "Evidence [E1] settles it."}]
    ctx = debate_context({"model": "scripted", "cache": False, "rule": "adaptive"})
    out = tmp_path / "sft.jsonl"
    counts = asyncio.run(synth_sft(dataset, out, ctx, limit=2))
    assert counts == {"written": 2, "corrected": 2, "failed": 0, "skipped": 0}
    debate_prompts = [p for n, p in scripted.calls if n in ("DebaterAnswer", "ModeratorAnswer")]
    assert not any("Correct verdict" in p or "GOLD-ONLY" in p for p in debate_prompts)
    samples = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [json.loads(s["messages"][2]["content"])["verdict"] for s in samples] == ["supported", "refuted"]
    assert all(s["corrected"] for s in samples)
    for s in samples:
        system, user, assistant = s["messages"]
        # the training prompt is claim, evidence and debate only: no gold verdict anywhere in it
        assert user["content"].endswith("</debate>")
        assert not any(
            "Correct verdict" in m["content"] or "GOLD-ONLY" in m["content"] for m in (system, user)
        )
        assert json.loads(assistant["content"])["justification"] == "Evidence [E1] settles it."
    assert asyncio.run(synth_sft(dataset, out, ctx, limit=2))["skipped"] == 2


def test_sft_keeps_the_moderator_target_when_it_matches_gold(dataset, tmp_path, scripted):
    scripted.script["ModeratorAnswer"] = [moderator("supported", stop=True)]
    scripted.script["JurorAnswer"] = [juror("supported")]
    out = tmp_path / "sft.jsonl"
    ctx = debate_context({"model": "scripted", "cache": False, "rule": "adaptive"})
    asyncio.run(synth_sft(dataset, out, ctx, limit=1))
    [sample] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert not sample["corrected"] and scripted.count("SftJustification") == 0
    assert json.loads(sample["messages"][2]["content"]) == {
        "verdict": "supported",
        "justification": "The debate shows supported.",
    }


def test_rules_bench_counts_each_rule(corpus):
    from factcourt.bench.rules import run_rules

    rows = run_rules(
        "The Eiffel Tower is in Paris. The Moon orbits the Earth.",
        ["free", "adaptive"],
        model="sim",
        corpus=corpus,
    )
    assert [r["rule"] for r in rows] == ["free", "adaptive"]
    assert all(r["claims"] == 2 and r["calls_per_claim"] > 0 for r in rows)
    assert rows[1]["calls_per_claim"] <= rows[0]["calls_per_claim"]


def test_perf_bench_reports_bounds_and_overhead():
    from factcourt.bench.perf import run_perf

    # the scripted latency only sets the bounds: how fast one concurrency runs against another is
    # measured by ``factcourt bench perf`` (comparing wall times here failed on quiet machines too)
    rows = run_perf(claims=6, concurrencies=(1, 3), latency_s=0.01, rule="adaptive")
    assert [r["concurrency"] for r in rows] == [1, 3]
    for r in rows:
        assert r["claims"] == 6 and r["wall_s"] >= r["bound_at_concurrency_s"] * 0.9
        assert r["critical_path_s"] <= r["bound_at_concurrency_s"]


def test_report_only_runs_nothing_and_reports_what_is_stored(tmp_path):
    import asyncio

    from factcourt.bench.runner import run_bench
    from factcourt.context import Context

    data = tmp_path / "claims.jsonl"
    data.write_text('{"id": "a", "claim": "x", "label": true}\n', encoding="utf-8")
    summary = asyncio.run(
        run_bench(data, ["single"], Context(model="sim", search="none"), tmp_path / "out", report_only=True)
    )
    assert (
        not (tmp_path / "out" / "predictions.jsonl").exists()
        or not (tmp_path / "out" / "predictions.jsonl").read_text()
    )
    assert summary["report"]["single"]["binary"]["n"] == 0
