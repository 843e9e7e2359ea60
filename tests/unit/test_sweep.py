"""The sweep's replay of candidate settings from one recorded run, by hand."""

from factcourt.bench.sweep import best, replay


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
    assert table["first_pass=off jurors=3 rounds=1"]["calls_per_claim"] == 3.0
    # theta .95: the sure first pass decides the first claim (wrong), the second is debated (right)
    routed = table["first_pass=route theta=0.95 jurors=3 rounds=1"]
    assert (
        routed["accuracy"] == 0.5
        and routed["calls_per_claim"] == (1 + 4) / 2
        and routed["debated_share"] == 0.5
    )
    # two jurors split on the second claim: the tie goes to the last speaker, B
    assert table["first_pass=off jurors=2 rounds=1"]["accuracy"] == 1.0


def test_best_keeps_to_the_call_budget_on_every_dataset():
    table = {
        "d1": {
            "cheap": {"macro_f1": 0.6, "calls_per_claim": 1.0},
            "dear": {"macro_f1": 0.9, "calls_per_claim": 3.0},
        },
        "d2": {
            "cheap": {"macro_f1": 0.6, "calls_per_claim": 1.0},
            "dear": {"macro_f1": 0.9, "calls_per_claim": 2.0},
        },
    }
    assert best(table, budget=2.5) == "cheap" and best(table, budget=3.0) == "dear"
