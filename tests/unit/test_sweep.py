"""The sweep: its replay of candidate settings from one recorded run, by hand, and its resume."""

import json

import pytest

from factcourt.bench import methods as bench_methods
from factcourt.bench import sweep
from factcourt.bench.context import BenchContext
from factcourt.bench.sweep import best, replay
from factcourt.state.records import Usage


def record(gold, first, confidence, round_one, round_two=()):
    turns = [{"speaker": s, "round": 1, "verdict": v, "calls": 1} for s, v in round_one]
    turns += [{"speaker": s, "round": 2, "verdict": v, "calls": 1} for s, v in round_two]
    first_pass = {"speaker": "First pass", "round": 0, "verdict": first, "confidence": confidence}
    return {"gold": gold, "detail": {"first_pass": first_pass, "transcript": turns}}


def test_candidates_replay_the_first_pass_the_jury_and_routing():
    jury = [("A", "supported"), ("B", "supported"), ("C", "refuted")]
    records = [
        record(True, "refuted", 0.99, jury),  # first pass wrong but sure; jury right
        record(False, "refuted", 0.5, [("A", "supported"), ("B", "refuted"), ("C", "refuted")]),
    ]
    table = replay(records)
    assert table["first pass only (= single)"]["accuracy"] == 0.5
    assert table["first_pass=off jurors=3 rounds=1"]["accuracy"] == 1.0
    # the first claim's third juror cannot outvote two and is not asked; the second's split is heard
    assert table["first_pass=off jurors=3 rounds=1"]["calls_per_claim"] == (2 + 3) / 2
    # theta .95: the sure first pass decides the first claim (wrong), the second is debated (right)
    routed = table["first_pass=route theta=0.95 jurors=3 rounds=1"]
    assert (
        routed["accuracy"] == 0.5
        and routed["calls_per_claim"] == (1 + 4) / 2
        and routed["debated_share"] == 0.5
    )
    # two jurors split on the second claim: the tie goes to the last speaker, B
    assert table["first_pass=off jurors=2 rounds=1"]["accuracy"] == 1.0


def test_only_the_last_round_stops_at_a_settled_majority_and_the_first_pass_vote_counts():
    both = [("A", "supported"), ("B", "supported"), ("C", "refuted")]
    table = replay([record(True, "refuted", 0.5, both, both)])
    assert table["first_pass=off jurors=3 rounds=2"]["calls_per_claim"] == 3 + 2
    # with the first pass's "refuted" among the votes, two "supported" can still be tied by C
    assert table["first_pass=off jurors=3 rounds=2 +first-pass vote"]["calls_per_claim"] == 3 + 3
    assert table["first_pass=off jurors=3 rounds=2"]["accuracy"] == 1.0


def row(macro_f1, accuracy, calls, claims=12):
    return {"macro_f1": macro_f1, "accuracy": accuracy, "calls_per_claim": calls, "claims": claims}


def test_best_keeps_to_the_call_budget_on_every_dataset():
    table = {
        "d1": {"cheap": row(0.6, 0.6, 1.0), "dear": row(0.9, 0.9, 3.0)},
        "d2": {"cheap": row(0.6, 0.6, 1.0), "dear": row(0.9, 0.9, 2.0)},
    }
    assert best(table, budget=2.5) == "cheap" and best(table, budget=3.0) == "dear"


def test_a_dearer_candidate_must_win_a_claim_per_dataset_on_the_mean():
    # +1 claim on d1, -1 on d2: a better mean macro-F1 is noise, the cheaper stands
    even = {
        "d1": {"cheap": row(0.657, 8 / 12, 1.0), "dear": row(0.748, 9 / 12, 1.33)},
        "d2": {"cheap": row(0.667, 8 / 12, 1.0), "dear": row(0.580, 7 / 12, 2.42)},
    }
    assert best(even) == "cheap"
    ahead = {
        "d1": {"cheap": row(0.657, 8 / 12, 1.0), "dear": row(0.833, 10 / 12, 1.42)},
        "d2": {"cheap": row(0.667, 8 / 12, 1.0), "dear": row(0.667, 8 / 12, 1.5)},
    }
    assert best(ahead) == "dear"


def sweep_data(folder, labels=(True, False, True, False)):
    folder.mkdir(parents=True)
    path = folder / "claims.jsonl"
    rows = [
        {"id": f"r{i}", "claim": f"Claim {i} about Paris.", "label": label} for i, label in enumerate(labels)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def replayed(monkeypatch):
    """The ids of the records each dataset's replay scores."""
    seen = []
    monkeypatch.setattr(sweep, "replay", lambda records: seen.append(sorted(r["id"] for r in records)) or {})
    return seen


def run(datasets, out, limit=4):
    ctx_for = lambda evidence: BenchContext(model="sim", search=evidence, cache=False)  # noqa: E731
    return sweep.run_sweep([(d, "given") for d in datasets], ctx_for, out, limit=limit, part="all")


def test_a_killed_sweep_resumes_and_replays_each_selected_case_once(tmp_path, monkeypatch, replayed):
    data, out = sweep_data(tmp_path / "data"), tmp_path / "sweep"
    real_predict, failed = bench_methods.predict, []

    async def fails_once(method, case, ctx):
        if case.id == "r1" and not failed:
            failed.append(case.id)
            return bench_methods.Prediction(verdict=None, error="busy", usage=Usage())
        return await real_predict(method, case, ctx)

    monkeypatch.setattr("factcourt.bench.runner.predict", fails_once)
    run([data], out)
    [folder] = [p for p in out.iterdir() if p.is_dir()]
    with (folder / "predictions.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"method": "default-record", "id": "r3", "gold"')  # the kill -9 of a second run
    run([data], out)  # retries r1: its file now holds a failed and a finished line
    run([data], out, limit=2)
    assert replayed == [["r0", "r1", "r2", "r3"]] * 2 + [["r0", "r1"]]


def test_two_datasets_in_folders_of_the_same_name_keep_apart(tmp_path, replayed):
    first = sweep_data(tmp_path / "a" / "data")
    second = sweep_data(tmp_path / "b" / "data", labels=(False, True, False, True))
    summary = run([first, second], tmp_path / "sweep")
    assert len(summary["datasets"]) == 2 and all(n.startswith("claims-") for n in summary["datasets"])
    assert len(replayed) == 2
