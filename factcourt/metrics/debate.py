"""What the debate did to the first-round verdicts: right->wrong and wrong->right flips."""

from __future__ import annotations

from collections.abc import Sequence


def flips(
    gold: Sequence[bool], first_round: Sequence[bool | None], final: Sequence[bool | None]
) -> dict[str, int]:
    """Count, over the claims that had a round-1 majority, how the final verdict moved.

    A claim whose round-1 majority was right and final verdict wrong is a right->wrong flip;
    the reverse a wrong->right flip. A failed final verdict counts as wrong.
    """
    counts = {"debated": 0, "right_to_wrong": 0, "wrong_to_right": 0, "unchanged": 0}
    for g, before, after in zip(gold, first_round, final, strict=True):
        if before is None:
            continue
        counts["debated"] += 1
        was_right, is_right = before is g, after is g
        if was_right and not is_right:
            counts["right_to_wrong"] += 1
        elif is_right and not was_right:
            counts["wrong_to_right"] += 1
        else:
            counts["unchanged"] += 1
    return counts


def accuracy_by_round(
    rounds: Sequence[int], gold: Sequence[object], pred: Sequence[object | None]
) -> list[dict[str, float]]:
    """Accuracy of the claims grouped by the round their debate ended in (DebateCV Fig. 2).

    Round 0 holds the claims decided without a debate (a first pass, a baseline); a failed
    prediction (None) is wrong.
    """
    rows = []
    for round_ in sorted(set(rounds)):
        held = [(g, p) for r, g, p in zip(rounds, gold, pred, strict=True) if r == round_]
        correct = sum(1 for g, p in held if p is not None and p == g)
        rows.append({"round": round_, "n": len(held), "correct": correct, "accuracy": correct / len(held)})
    return rows
