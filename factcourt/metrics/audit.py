"""FACT-AUDIT's metrics (Lin et al., ACL 2025, Eqs. 4-5): IMR, JFR and Grade.

Over the N evaluated cases of a scope (a scenario, an object, a test mode, or all of them, pooled
over cases):
- Grade: the mean grade s (1-10);
- IMR, insufficiency mining rate: % of cases with s < epsilon = 4.0 (s <= 3 for whole grades);
- JFR, justification flaw rate: % of cases whose verdict matches the reference's but whose
  grade is still below epsilon (a correct verdict with a poor justification).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from typing import Any

EPSILON = 4.0
# Fig 12's answer line echoed, bracketed or not: a list of the labels is no verdict
_TEMPLATE = re.compile(r"\[?\s*factual,\s*non-factual,?\s*or\s*not enough information\s*\]?", re.I)
# at one position the most specific label first: "non-factual" and "not factual" hold "factual"
_LABEL = re.compile(r"\b(?:(not enough information)|(non[\s-]?factual|not factual)|(factual))\b", re.I)
_NAMES = ("Not Enough Information", "Non-Factual", "Factual")
# an answer line ("Answer: ...", "**Answer:** ..."), not the word "answer" inside a justification
_ANSWER = re.compile(r"^\W*answer\W*[:：](.*)", re.I | re.M | re.S)


def verdict_label(text: str) -> str | None:
    """The verdict an answer states, None if none: the first label after "Answer", else the first.

    The prompt's answer template, when the answer repeats it, is no verdict.
    """
    text = _TEMPLATE.sub("", text)
    after = _ANSWER.search(text)
    for window in ([after.group(1)] if after else []) + [text]:
        if found := _LABEL.search(window):
            assert found.lastindex is not None  # each of _LABEL's alternatives is a group
            return _NAMES[found.lastindex - 1]
    return None


def by_iteration(sequences: Sequence[Sequence[tuple[float, bool]]]) -> list[dict[str, Any]]:
    """Scores after each probing iteration (Fig. 5): row k pools every scenario's first k cases.

    ``sequences`` holds each scenario's graded ``(grade, verdict matches)`` pairs in the order
    they were asked (seeds, then probes).
    """
    longest = max((len(s) for s in sequences), default=0)
    return [
        {"iteration": k, **scores([pair for s in sequences for pair in s[:k]])} for k in range(1, longest + 1)
    ]


def poor(grade: float) -> bool:
    """Whether a grade marks an insufficiency (below epsilon)."""
    return grade < EPSILON


def scores(graded: Sequence[tuple[float, bool]]) -> dict[str, Any]:
    """IMR, JFR (%) and Grade of ``(grade, verdict matches the reference)`` pairs; None when empty.

    Also ``agree``, the % of cases whose stated verdict is the reference's (not one of the paper's
    metrics): it still tells targets apart when a weak grader gives every case the same grade.
    """
    n = len(graded)
    if not n:
        return {"n": 0, "imr": None, "jfr": None, "grade": None, "agree": None}
    return {
        "n": n,
        "imr": 100.0 * sum(poor(s) for s, _ in graded) / n,
        "jfr": 100.0 * sum(poor(s) and right for s, right in graded) / n,
        "grade": sum(s for s, _ in graded) / n,
        "agree": 100.0 * sum(right for _, right in graded) / n,
    }


def by(
    items: Iterable[Any], key: Callable[[Any], str], pair: Callable[[Any], tuple[float, bool]]
) -> dict[str, dict[str, Any]]:
    """:func:`scores` per value of ``key``, in first-seen order."""
    groups: dict[str, list[tuple[float, bool]]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(pair(item))
    return {name: scores(pairs) for name, pairs in groups.items()}


def pooled(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Scores of a union of scopes from theirs: each weighted by its number of cases."""
    parts = [p for p in parts if p["n"]]
    n = sum(p["n"] for p in parts)
    if not n:
        return {"n": 0, "imr": None, "jfr": None, "grade": None, "agree": None}
    metrics = [m for m in ("imr", "jfr", "grade", "agree") if all(m in p for p in parts)]
    return {"n": n, **{m: sum(p[m] * p["n"] for p in parts) / n for m in metrics}}


def over_runs(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Mean and sample sd of each metric over audit runs (the paper reports 3 runs so).

    ``runs`` are one scope's :func:`scores`, one per run; runs with no graded case there are
    left out; one run has no sd.
    """
    runs = [r for r in runs if r["n"]]
    if not runs:
        return {"runs": 0, "n": 0, "imr": None, "jfr": None, "grade": None, "agree": None}
    summary: dict[str, Any] = {"runs": len(runs), "n": sum(r["n"] for r in runs)}
    for metric in ("imr", "jfr", "grade", "agree"):
        values = [r[metric] for r in runs]
        summary[metric] = {
            "mean": statistics.mean(values),
            "sd": statistics.stdev(values) if len(values) > 1 else None,
        }
    return summary
