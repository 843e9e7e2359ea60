"""Pure debate metrics: accuracy per debated round (DebateCV Fig. 2)."""

from factcourt.metrics.debate import accuracy_by_round


def test_accuracy_by_round_groups_claims_by_the_round_their_debate_ended_in():
    rounds = [1, 1, 2, 3, 1, 0]
    gold = ["supported", "refuted", "refuted", "supported", "refuted", "supported"]
    pred = ["supported", "not_enough_evidence", "refuted", None, "refuted", "supported"]
    rows = accuracy_by_round(rounds, gold, pred)
    assert rows == [
        {"round": 0, "n": 1, "correct": 1, "accuracy": 1.0},
        {"round": 1, "n": 3, "correct": 2, "accuracy": 2 / 3},
        {"round": 2, "n": 1, "correct": 1, "accuracy": 1.0},
        {"round": 3, "n": 1, "correct": 0, "accuracy": 0.0},  # a failed verdict is wrong
    ]


def test_accuracy_by_round_compares_binary_labels_too():
    assert accuracy_by_round([2, 2], [True, False], [True, True]) == [
        {"round": 2, "n": 2, "correct": 1, "accuracy": 0.5}
    ]
