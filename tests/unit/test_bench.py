"""The benchmark harness: resume after a crash, failures counted, reports written, SFT data."""

import asyncio
import json

import pytest

from factcourt.bench import methods as bench_methods
from factcourt.bench.context import BenchContext
from factcourt.bench.datasets import load
from factcourt.bench.runner import run_bench, select
from factcourt.bench.sft import debate_context, synth_sft
from factcourt.errors import InputError
from tests.fakes import moderator, rating

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
    ctx = BenchContext(model="sim", search="given", cache=False, max_concurrency=1)
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
    # two methods and the plain floor, 6 cases each
    assert len(redone) == 18 - 3 and not redone & {("single", "r0"), ("single", "r1"), ("single", "r2")}
    assert summary["report"]["single"]["binary"]["n"] == 6
    for name in ("report.md", "report.json", "wrong_predictions.csv", "f1_false_vs_cost.png"):
        assert (out / name).exists()


def test_failed_predictions_are_counted_never_correct(dataset, tmp_path, scripted):
    scripted.script["Rating"] = [TimeoutError("down")]
    ctx = BenchContext(model="scripted", search="given", cache=False)
    summary = asyncio.run(run_bench(dataset, ["single"], ctx, tmp_path / "o"))
    binary = summary["report"]["single"]["binary"]
    assert binary["failed"] == 6 and binary["accuracy"] == 0.0
    floor = summary["report"]["plain"]["binary"]  # held against the floor, which failed too
    assert summary["wrong_predictions"] == 6 + floor["failed"] + round(floor["n"] * (1 - floor["accuracy"]))


def test_the_same_command_tries_failed_predictions_again_and_keeps_the_finished_ones(
    dataset, tmp_path, scripted
):
    ctx = BenchContext(model="scripted", search="given", cache=False)
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
    ctx = BenchContext(model="scripted", search="given", cache=False)
    asyncio.run(run_bench(dataset, ["jury-adaptive", "adversarial", "fire", "safe"], ctx, tmp_path / "o"))
    assert scripted.calls and not any("GOLD-ONLY" in prompt for _, prompt in scripted.calls)


def test_four_way_and_cost_columns(dataset, tmp_path):
    ctx = BenchContext(model="sim", search="given", cache=False)
    summary = asyncio.run(run_bench(dataset, ["adversarial"], ctx, tmp_path / "o"))
    report = summary["report"]["adversarial"]
    assert report["four_way"]["n"] == 6 and 0 <= report["four_way"]["averitec_score"] <= 1
    assert report["cost"]["calls_per_claim"] > 0 and report["cost"]["dollars_per_1000_claims"] > 0
    table = (tmp_path / "o" / "report.md").read_text(encoding="utf-8")
    assert "AVeriTeC" in table and "FPR NEE" in table and "FPR CEC" in table
    # DebateCV Fig. 2: accuracy per round the debate ended in, beside the whole table
    assert sum(row["n"] for row in report["by_round"]) == 6 and all(
        row["round"] for row in report["by_round"]
    )
    assert "Accuracy per debated round" in table and "| adversarial |" in table


def test_sft_export_keeps_gold_labels_out_of_the_debate(dataset, tmp_path, scripted):
    scripted.script["ModeratorAnswer"] = [moderator("not_enough_evidence", stop=True)]
    scripted.script["SftJustification"] = [{"justification": "Evidence [E1] settles it."}]
    ctx = debate_context({"model": "scripted", "cache": False, "rule": "adaptive", "debate_prompts": "ours"})
    out = tmp_path / "sft.jsonl"
    counts = asyncio.run(synth_sft(dataset, out, ctx, limit=2))
    assert counts == {"written": 2, "corrected": 2, "failed": 0, "skipped": 0, "first_error": None}
    debate_prompts = [p for n, p in scripted.calls if n in ("DebaterAnswer", "ModeratorAnswer")]
    assert not any("Correct verdict" in p or "GOLD-ONLY" in p for p in debate_prompts)
    samples = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(json.loads(s["target"])["verdict"] for s in samples) == ["refuted", "supported"]
    for s in samples:
        # the training conversation is what the moderator saw: no gold verdict anywhere in it
        assert not any(
            "Correct verdict" in m["content"] or "GOLD-ONLY" in m["content"] for m in s["messages"]
        )
        assert json.loads(s["target"])["justification"] == "Evidence [E1] settles it."
    assert asyncio.run(synth_sft(dataset, out, ctx, limit=2))["skipped"] == 2


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

    from factcourt.bench.context import BenchContext
    from factcourt.bench.runner import run_bench

    data = tmp_path / "claims.jsonl"
    data.write_text('{"id": "a", "claim": "x", "label": true}\n', encoding="utf-8")
    summary = asyncio.run(
        run_bench(
            data, ["single"], BenchContext(model="sim", search="none"), tmp_path / "out", report_only=True
        )
    )
    assert (
        not (tmp_path / "out" / "predictions.jsonl").exists()
        or not (tmp_path / "out" / "predictions.jsonl").read_text()
    )
    assert summary["report"]["single"]["binary"]["n"] == 0


def bench_cli(tmp_path, dataset, *extra, methods="single"):
    """``factcourt bench run`` on the simulated model, in tmp_path/out unless --out is given."""
    from factcourt.cli import main

    out = [] if "--out" in extra else ["--out", str(tmp_path / "out")]
    return main(
        ["bench", "run", "--dataset", str(dataset), "--methods", methods, "--model", "sim", "--search"]
        + ["given", *out, *extra]
    )


@pytest.fixture
def predictions(monkeypatch):
    """The (method, id) pairs each run predicts."""
    made = []
    real_predict = bench_methods.predict

    async def counted(method, case, c):
        made.append((method, case.id))
        return await real_predict(method, case, c)

    monkeypatch.setattr("factcourt.bench.runner.predict", counted)
    return made


def flipped(tmp_path, name="other.jsonl"):
    """The same ids with the other labels: a resume from the first must never reuse its answers."""
    path = tmp_path / name
    path.write_text("\n".join(json.dumps({**r, "label": not r["label"]}) for r in ROWS), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (["--model", "sim:0.001"], "model 'sim' -> 'sim:0.001'"),
        (["--search", "none"], "search 'given' -> 'none'"),
        (["--set", "temperature=0.5"], "temperature 0.0 -> 0.5"),
        (["--set", "max_tokens=64"], "max_tokens 512 -> 64"),
        (["--role-model", "evaluator=sim:0.001"], "role_models {} -> {'evaluator': 'sim:0.001'}"),
        (["--base-url", "http://localhost:9/v1"], "base_url None -> 'http://localhost:9/v1'"),
    ],
)
def test_a_resume_with_settings_that_change_predictions_is_refused(
    dataset, tmp_path, capsys, predictions, change, said
):
    assert bench_cli(tmp_path, dataset) == 0
    predictions.clear()
    assert bench_cli(tmp_path, dataset, *change) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"other settings ({said}" in err and "use a new --out" in err
    assert not predictions


def test_a_resume_on_another_dataset_with_the_same_ids_is_refused(dataset, tmp_path, capsys, predictions):
    assert bench_cli(tmp_path, dataset) == 0
    predictions.clear()
    assert bench_cli(tmp_path, flipped(tmp_path)) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "other settings (dataset_sha256 " in err and not predictions
    dataset.write_text(flipped(tmp_path).read_text(encoding="utf-8"), encoding="utf-8")  # edited in place
    assert bench_cli(tmp_path, dataset) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "other settings (dataset_sha256 " in err and not predictions
    # --report-only runs nothing, but its report would score the old answers against the new labels
    assert bench_cli(tmp_path, dataset, "--report-only") == 2


@pytest.mark.parametrize(
    "change",
    [
        ["--limit", "2"],
        ["--seed", "3", "--limit", "4"],
        ["--balanced"],
        ["--part", "dev"],
        ["--concurrency", "1"],
        ["--cache"],
        ["--set", "timeout_s=30", "--set", "retries=0"],
    ],
)
def test_a_resume_with_another_selection_or_speed_reuses_the_stored_predictions(
    dataset, tmp_path, predictions, change
):
    assert bench_cli(tmp_path, dataset) == 0
    predictions.clear()
    assert bench_cli(tmp_path, dataset, *change) == 0
    assert not predictions
    assert bench_cli(tmp_path, dataset, *change, methods="single,fire") == 0
    assert {m for m, _ in predictions} == {"fire"}, "an added method runs, the stored one is reused"


def test_a_folder_of_an_older_version_without_settings_resumes_and_gets_them(dataset, tmp_path, predictions):
    assert bench_cli(tmp_path, dataset) == 0
    settings = tmp_path / "out" / "settings.json"
    assert len(json.loads(settings.read_text(encoding="utf-8"))["dataset_sha256"]) == 64
    settings.unlink()
    predictions.clear()
    assert bench_cli(tmp_path, dataset, "--report-only", "--model", "sim:0.5") == 0
    assert not settings.exists(), "a report-only run records no settings: it ran none"
    assert bench_cli(tmp_path, dataset) == 0
    assert not predictions and settings.exists()
    assert bench_cli(tmp_path, dataset, "--report-only", "--model", "sim:0.5") == 0


@pytest.mark.parametrize(
    ("rows", "extra", "complaint"),
    [
        ([], [], "holds no case"),
        ([r for r in ROWS if r["label"]], ["--balanced"], "--balanced"),
        ([ROWS[0]], ["--part", "dev"], "part 'dev'"),  # r0 is in the test part
    ],
)
def test_a_run_that_selects_no_case_is_bad_input_not_an_empty_report(
    tmp_path, capsys, rows, extra, complaint
):
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert bench_cli(tmp_path, path, *extra) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "no case" in err and complaint in err
    assert not (tmp_path / "out" / "report.json").exists()


@pytest.mark.parametrize("limit", ["0", "-1", "x"])
@pytest.mark.parametrize("command", [["bench", "run"], ["bench", "sweep"], ["synth-sft"]])
def test_a_limit_below_one_is_refused(dataset, tmp_path, capsys, limit, command):
    from factcourt.cli import main

    given = f"{dataset}:given" if command[-1] == "sweep" else str(dataset)
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--dataset", given, "--limit", limit, "--model", "sim", "--out", str(tmp_path / "o")])
    assert exit_.value.code == 2 and "--limit" in capsys.readouterr().err


@pytest.mark.parametrize("levels", ["a,b", "0", "2,,4"])
def test_perf_refuses_concurrency_levels_that_are_no_positive_numbers(capsys, levels):
    from factcourt.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["bench", "perf", "--concurrency", levels])
    assert exit_.value.code == 2 and "--concurrency" in capsys.readouterr().err


def test_clerk_bench_without_its_fixture_is_bad_input(tmp_path, capsys):
    from factcourt.cli import main

    assert main(["bench", "clerk", "--fixture", str(tmp_path / "missing.jsonl"), "--model", "sim"]) == 2
    assert "no such fixture file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "complaint"),
    [("", "holds no item"), ('{"response": "R."}\n', "f.jsonl:1:"), ("[1]\n", "f.jsonl:1:")],
)
def test_clerk_bench_fixture_errors_are_one_sentence(tmp_path, capsys, text, complaint):
    from factcourt.cli import main

    path = tmp_path / "f.jsonl"
    path.write_text(text, encoding="utf-8")
    assert main(["bench", "clerk", "--fixture", str(path), "--model", "sim"]) == 2
    err = capsys.readouterr().err
    assert complaint in err and "Error:" not in err


@pytest.mark.parametrize("command", [["bench", "run", "--methods", "single"], ["synth-sft"]])
def test_an_out_that_cannot_be_written_is_bad_input(dataset, tmp_path, capsys, command):
    from factcourt.cli import main

    (tmp_path / "file").write_text("x", encoding="utf-8")
    for out in ("/proc/x/y", str(tmp_path / "file" / "sub"), str(tmp_path)):
        if command[0] == "bench" and out == str(tmp_path):
            continue  # a folder is what bench run's --out is
        code = main(
            [*command, "--dataset", str(dataset), "--model", "sim", "--search", "given", "--out", out]
        )
        err = capsys.readouterr().err
        assert code == 2 and "cannot" in err and "Error:" not in err, (out, err)


def test_a_fire_prediction_that_failed_midway_is_failed_not_its_last_verdict(
    dataset, tmp_path, scripted, corpus
):
    step = {
        "reasoning": "unsure",
        "verdict": "supported",
        "confidence": 0.1,
        "action": "search",
        "search_query": "Paris capital",
    }
    scripted.script["FireStep"] = [step, TimeoutError("down")]
    ctx = BenchContext(model="scripted", search="local", corpus=corpus, cache=False, max_concurrency=1)
    summary = asyncio.run(run_bench(dataset, ["fire"], ctx, tmp_path / "o", limit=1))
    record = json.loads((tmp_path / "o" / "predictions.jsonl").read_text().splitlines()[0])
    assert record["verdict"] is None and "down" in record["error"]
    assert summary["report"]["fire"]["binary"]["failed"] == 1


@pytest.mark.parametrize("claim", [None, "", "  ", 42])
def test_a_row_without_a_claim_text_is_bad_input_at_load(tmp_path, claim):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "a", "claim": claim, "label": True}) + "\n")
    with pytest.raises(InputError, match="d.jsonl:1"):
        load(path)


def test_a_qa_row_with_a_null_answer_is_bad_input_at_load(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "Where?", "answer": None, "label": True}) + "\n")
    with pytest.raises(InputError, match="answer"):
        load(path)


def test_evidence_given_as_one_string_is_one_piece(tmp_path):
    path = tmp_path / "d.jsonl"
    row = {"id": "a", "claim": "Paris is in France.", "label": True, "evidence": "Paris is in France."}
    path.write_text(json.dumps(row) + "\n")
    case, _ = load(path)[0]
    assert [e.text for e in case.evidence] == ["Paris is in France."]


def test_a_run_with_a_failed_prediction_exits_1(dataset, tmp_path, scripted):
    from factcourt.cli import main

    scripted.script["Rating"] = [TimeoutError("endpoint down")]
    argv = ["bench", "run", "--dataset", str(dataset), "--methods", "single", "--model", "scripted"]
    assert main([*argv, "--search", "given", "--out", str(tmp_path / "o")]) == 1


def test_a_question_answer_method_on_cases_without_questions_is_refused(dataset, tmp_path, capsys):
    assert bench_cli(tmp_path, dataset, methods="cot") == 2
    assert "need a question" in capsys.readouterr().err


def test_a_method_named_twice_is_predicted_once_and_none_is_refused(dataset, tmp_path, predictions, capsys):
    assert bench_cli(tmp_path, dataset, methods="single,single") == 0
    assert sorted({m for m, _ in predictions}) == ["plain", "single"] and len(predictions) == 2 * len(ROWS)
    assert bench_cli(tmp_path, dataset, methods=",") == 2
    assert "names no method" in capsys.readouterr().err


def test_balanced_with_a_limit_of_one_says_what_it_needs(dataset):
    with pytest.raises(InputError, match="--balanced needs --limit 2 or more"):
        select(dataset, 1, None, balanced=True)


def test_report_only_states_the_settings_the_stored_predictions_were_made_under(dataset, tmp_path):
    assert bench_cli(tmp_path, dataset) == 0  # --search given, model sim
    assert bench_cli(tmp_path, dataset, "--report-only", "--search", "none", "--model", "sim:0.5") == 0
    settings = json.loads((tmp_path / "out" / "report.json").read_text())["settings"]
    assert (settings["search"], settings["model"]) == ("given", "sim")


def test_the_cost_of_each_role_is_explained_by_its_tokens_at_the_servers_rates():
    from factcourt.bench.report import Prices, markdown, method_report, role_costs
    from factcourt.state.records import Usage

    # two claims; the juror's prompts share a prefix the cache serves, the judge writes more
    juror = Usage.model_call(
        "evaluator", 500, 20, cached_tokens=300, ms=8000, prompt_ms=5000, predicted_ms=2000
    )
    judge = Usage.model_call("judge", 300, 60, cached_tokens=0, ms=12000, prompt_ms=7500, predicted_ms=6000)
    records = [{"usage": (juror + judge + Usage.search_call()).model_dump()} for _ in range(2)]
    costs = role_costs(records)
    # 500 evaluated tokens in 12.5 s: 40/s; 80 written in 8 s: 10/s
    assert costs["prompt_tokens_per_s"] == 40 and costs["output_tokens_per_s"] == 10
    assert costs["cached_share"] == 300 / 800
    assert set(costs["by_role"]) == {"evaluator", "judge"}  # a search is no model call
    e = costs["by_role"]["evaluator"]
    assert (e["calls_per_claim"], e["evaluated_tokens_per_claim"], e["seconds_per_claim"]) == (1, 200, 8)
    assert e["floor_seconds_per_claim"] == 200 / 40 + 20 / 10
    # endpoints without timings: tokens, no floor
    bare = [{"usage": Usage.model_call("judge", 300, 60, ms=900).model_dump()}]
    assert role_costs(bare)["by_role"]["judge"]["floor_seconds_per_claim"] is None
    rows = [
        {"id": "a", "gold": True, "verdict": "supported", "seconds": 20.0, **records[0]},
        {"id": "b", "gold": False, "verdict": "refuted", "seconds": 20.0, **records[1]},
    ]
    text = markdown({"jury": method_report(rows, Prices())})
    assert "| jury | evaluator | 1.00 | 500 | 300 | 200 | 20 | 8.0 | 7.0 |" in text
    assert "38% of prompt tokens from the cache" in text


def test_the_report_gives_selective_scores_ranked_by_each_verdicts_confidence():
    from factcourt.bench.report import Prices, markdown, method_report
    from factcourt.state.records import Usage

    usage = Usage().model_dump()
    rows = [  # P(true) as stored: a refuted verdict's confidence is 1 - P(true)
        {"id": "a", "gold": True, "verdict": "supported", "p_true": 0.9},
        {"id": "b", "gold": False, "verdict": "refuted", "p_true": 0.2},
        {"id": "c", "gold": False, "verdict": "supported", "p_true": 0.8},
        {"id": "d", "gold": True, "verdict": "refuted", "p_true": None},
        {"id": "e", "gold": True, "verdict": "not_enough_evidence", "p_true": 0.5},
    ]
    report = method_report([{**r, "usage": usage, "seconds": 1.0} for r in rows], Prices())
    a = report["answered"]
    assert (a["coverage"], a["covered_accuracy"], a["covered_macro_f1"]) == (0.8, 0.5, 0.5)
    assert (a["supported_precision"], a["refuted_precision"]) == (0.5, 0.5)
    # a; b and c tied at .8; d last, no confidence
    assert [p["answered"] for p in a["risk_coverage"]["curve"]] == [1, 3, 4]
    assert a["risk_coverage"]["accuracy_coverage_area"] == pytest.approx(17 / 30)
    text = markdown({"default": report})
    assert "| default | 0.800 (4/5) | 0.500 | 0.500 | 0.567 | 0.500 | 0.500 | n/a |" in text
    assert "| default | - | 1.000 | 1.000 | 0.667 | - |" in text  # accuracy at coverage .1/.25/.5/.75/1
