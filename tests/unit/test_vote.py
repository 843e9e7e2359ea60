"""Golden tests of the judge's majority vote and its tie-break (no model call)."""

from factcourt.nodes.claims.judge_vote import majority
from factcourt.nodes.claims.rules import final_turns
from factcourt.state.records import Turn


def turns(*pairs):
    return final_turns([Turn(speaker=s, round=1, verdict=v, confidence=0.9) for s, v in pairs])


def test_majority_wins():
    assert majority(turns(("A", "refuted"), ("B", "supported"), ("C", "refuted"))) == "refuted"


def test_tie_goes_to_last_speaker():
    assert majority(turns(("A", "supported"), ("B", "refuted"))) == "refuted"
    four = turns(("A", "refuted"), ("B", "supported"), ("C", "supported"), ("D", "refuted"))
    assert majority(four) == "refuted"


def test_tie_skips_a_last_speaker_outside_the_tie():
    five = turns(
        ("A", "refuted"),
        ("B", "supported"),
        ("C", "supported"),
        ("D", "refuted"),
        ("E", "not_enough_evidence"),
    )
    assert majority(five) == "refuted"


def test_later_rounds_replace_earlier_votes_and_failures_are_ignored():
    history = [
        Turn(speaker="A", round=1, verdict="refuted"),
        Turn(speaker="B", round=1, verdict="supported"),
        Turn(speaker="A", round=2, verdict="supported"),
        Turn(speaker="B", round=2, failed="timeout"),
    ]
    final = final_turns(history)
    assert {s: t.verdict for s, t in final.items()} == {"B": "supported", "A": "supported"}
    assert majority(final) == "supported"


def test_no_votes_no_verdict():
    assert majority({}) is None
