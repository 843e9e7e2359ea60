"""Statistics of a built LongHalluQA-style set: retention, topics, question length ratio. No model calls."""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

# MAD-Fact's two review stages, in order; only a question kept at both is in the set
REVIEW_STAGES = ("factual_consistency", "answerability")


def length_ratio(pairs: list[tuple[str, str]]) -> dict[str, float | None]:
    """Length of the new questions against their seeds, in characters.

    ``mean`` averages the per-question ratios; ``pooled`` divides the total lengths. This is the
    questions' ratio, not the paper's 9.4x (the length of the answers).
    """
    usable = [(seed, new) for seed, new in pairs if seed.strip()]
    if not usable:
        return {"mean": None, "pooled": None}
    ratios = [len(new.strip()) / len(seed.strip()) for seed, new in usable]
    pooled = sum(len(new.strip()) for _, new in usable) / sum(len(seed.strip()) for seed, _ in usable)
    return {"mean": sum(ratios) / len(ratios), "pooled": pooled}


def share(part: int, whole: int) -> float | None:
    """``part / whole``, or None when there is nothing to divide."""
    return part / whole if whole else None


def review_outcome(decisions: dict[str, str]) -> Literal["kept", "dropped", "unreviewed"]:
    """A question's review from its decision per stage.

    A drop at any stage drops it, a keep at both keeps it; anything less still awaits review.
    """
    if "drop" in decisions.values():
        return "dropped"
    return "kept" if all(decisions.get(s) == "keep" for s in REVIEW_STAGES) else "unreviewed"


def build_stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts and rates of a build from one row per seed.

    Each row has ``status`` ('built', 'no_verified_knowledge', 'not_built' or 'failed'),
    ``decisions`` ({stage: 'keep' or 'drop'} for the stages reviewed), ``topic``,
    ``seed_question``, ``question`` and the facts ``gathered`` and ``kept`` by the verifier.
    Retention is over the questions whose review is done (dropped, or kept at both stages); the
    others are counted as ``unreviewed`` and are in no rate, the topics nor the length ratio.
    """
    built = [r for r in rows if r["status"] == "built"]
    outcomes = Counter(review_outcome(r["decisions"]) for r in built)
    kept = [r for r in built if review_outcome(r["decisions"]) == "kept"]
    reviewed = outcomes["kept"] + outcomes["dropped"]
    gathered = sum(r["gathered"] for r in rows)
    verified = sum(r["kept"] for r in rows)
    return {
        "seeds": len(rows),
        "built": len(built),
        "no_verified_knowledge": sum(r["status"] == "no_verified_knowledge" for r in rows),
        "not_built": sum(r["status"] == "not_built" for r in rows),
        "failed": sum(r["status"] == "failed" for r in rows),
        "reviewed": reviewed,
        "unreviewed": outcomes["unreviewed"],
        "dropped_in_review": outcomes["dropped"],
        "kept": len(kept),
        "retention": share(len(kept), reviewed),
        "seed_retention": share(len(kept), len(rows) - outcomes["unreviewed"]) if reviewed else None,
        "facts_gathered": gathered,
        "facts_kept": verified,
        "fact_retention": share(verified, gathered),
        "topics": dict(Counter(r["topic"] for r in kept).most_common()),
        "question_length_ratio": length_ratio([(r["seed_question"], r["question"]) for r in kept]),
    }
