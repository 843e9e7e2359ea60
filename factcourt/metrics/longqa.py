"""Statistics of a built LongHalluQA-style set: retention, topics, length ratio. No model calls."""

from __future__ import annotations

from collections import Counter
from typing import Any


def length_ratio(pairs: list[tuple[str, str]]) -> dict[str, float | None]:
    """Length of the new questions against their seeds, in characters.

    ``mean`` averages the per-question ratios; ``pooled`` divides the total lengths.
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


def build_stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts and rates of a build from one row per seed.

    Each row has ``status`` ('built', 'no_verified_knowledge', 'not_built' or 'failed'), ``decision``
    ('keep', 'drop' or '' for not yet reviewed), ``topic``, ``seed_question``, ``question`` and the
    facts ``gathered`` and ``kept`` by the verifier. A question not yet reviewed counts as kept.
    """
    built = [r for r in rows if r["status"] == "built"]
    kept = [r for r in built if r["decision"] != "drop"]
    gathered = sum(r["gathered"] for r in rows)
    verified = sum(r["kept"] for r in rows)
    return {
        "seeds": len(rows),
        "built": len(built),
        "no_verified_knowledge": sum(r["status"] == "no_verified_knowledge" for r in rows),
        "not_built": sum(r["status"] == "not_built" for r in rows),
        "failed": sum(r["status"] == "failed" for r in rows),
        "reviewed": sum(r["decision"] in ("keep", "drop") for r in built),
        "dropped_in_review": len(built) - len(kept),
        "kept": len(kept),
        "retention": share(len(kept), len(built)),
        "seed_retention": share(len(kept), len(rows)),
        "facts_gathered": gathered,
        "facts_kept": verified,
        "fact_retention": share(verified, gathered),
        "topics": dict(Counter(r["topic"] for r in kept).most_common()),
        "length_ratio": length_ratio([(r["seed_question"], r["question"]) for r in kept]),
    }
