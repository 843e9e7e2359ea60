"""``bench corrector``: minimal corrections of false claims, held to the corrector's rubric.

Each FALSE claim of a dataset is given to the corrector as a refuted sentence with its evidence
(the given evidence, or what the search finds for it). The rubric is the guard's: the
replacement keeps the sentence with only the false part changed, says nothing of the check
(no verdict or reasoning words), and adds nothing the evidence does not state. An outcome is
``fixed`` (a replacement within the rubric; ``first_try`` when the first answer was), ``removed``
(the corrector found no true statement in the evidence), ``failed`` (refused twice) or ``error``
(the call failed: no rate is trusted then, and the command exits 1): the rate is of claims fixed
or removed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from factcourt.bench.context import BenchContext
from factcourt.bench.runner import select
from factcourt.nodes.claims.corrector import REFUSED, correct
from factcourt.providers.search import search
from factcourt.state.claims import ClaimResult
from factcourt.state.records import Claim, Evidence


async def _one(claim: str, evidence: list[Evidence], ctx: BenchContext) -> dict[str, Any]:
    result = ClaimResult(
        claim=Claim(id="c1", text=claim, sentence=claim, span=(0, len(claim))),
        verdict="refuted",
        evidence=evidence,
    )
    update = await correct({"response": claim, "results": [result], "language": "en"}, Runtime(context=ctx))
    correction, usage = update["correction"], update.get("usage")
    calls = usage.calls if usage else 0
    if correction.edits:
        replacement = correction.edits[0].replacement
        outcome = "removed" if not replacement else "fixed"
        return {"claim": claim, "outcome": outcome, "replacement": replacement, "calls": calls}
    error = correction.failed[0].error or ""
    # a rewrite refused twice is the corrector's failure; a call that failed is the endpoint's
    outcome = "failed" if error.startswith(REFUSED) else "error"
    return {"claim": claim, "outcome": outcome, "error": error, "calls": calls}


async def run_corrector_bench(dataset: Path, ctx: BenchContext, *, limit: int, part: str) -> dict[str, Any]:
    """Correct the first ``limit`` FALSE claims of ``part`` and score the outcomes."""
    pairs = [(c, g) for c, g in select(dataset, None, 0, part=part) if not g.label][:limit]
    rows = []
    for case, _ in pairs:
        if ctx.search == "given":
            evidence = list(case.evidence)
        else:
            evidence, _ = await asyncio.to_thread(search, ctx, case.claim)
        row = await _one(case.claim, evidence, ctx)
        first_try = row["outcome"] in ("fixed", "removed") and row["calls"] == 1
        rows.append({"id": case.id, **row, "first_try": first_try})
    count = {o: sum(r["outcome"] == o for r in rows) for o in ("fixed", "removed", "failed", "error")}
    n = len(rows)
    return {
        "dataset": str(dataset),
        "claims": n,
        **count,
        "first_try": sum(r["first_try"] for r in rows),
        "rubric_rate": (count["fixed"] + count["removed"]) / n if n else 0.0,
        "rows": rows,
    }


def run(dataset: Path, ctx: BenchContext, *, limit: int, part: str) -> dict[str, Any]:
    """Synchronous entry point for the CLI."""
    return asyncio.run(run_corrector_bench(dataset, ctx, limit=limit, part=part))
