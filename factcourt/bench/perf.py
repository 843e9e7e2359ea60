"""``factcourt bench perf``: framework overhead and concurrency on the simulated model.

A 20-claim response runs on a model that answers every call after a fixed latency, so the
ideal wall time is known exactly: the longest chain of sequential calls times the latency.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

from factcourt.api.claims import acheck

SENTENCES = [f"Fact number {i} says that city {i} lies on river {i}." for i in range(1, 101)]


async def measure(claims: int, concurrency: int, latency_s: float, rule: str) -> dict[str, Any]:
    """One run; returns wall time, calls and the critical-path bounds."""
    text = " ".join(SENTENCES[:claims])
    start = time.perf_counter()
    checked = await acheck(
        text,
        model=f"sim:{latency_s}",
        search="none",
        rule=rule,
        max_concurrency=concurrency,
        cache=False,
        max_claims=claims,
    )
    wall = time.perf_counter() - start
    clerk = checked.usage.by_role["clerk"]["calls"]
    chain = max(c.usage.calls for c in checked.claims)  # calls in one claim are sequential
    waves = math.ceil(len(checked.claims) / concurrency)
    calls = checked.usage.calls
    bound = (clerk + waves * chain) * latency_s  # best possible with this concurrency
    return {
        "concurrency": concurrency,
        "claims": len(checked.claims),
        "calls": calls,
        "wall_s": wall,
        "critical_path_s": (clerk + chain) * latency_s,
        "bound_at_concurrency_s": bound,
        "wall_over_bound": wall / bound if bound else None,
        "overhead_ms_per_call": (wall - bound) / calls * 1000 if calls else None,
    }


def run_perf(
    claims: int = 20, concurrencies: tuple[int, ...] = (1, 4, 8), latency_s: float = 0.05, rule: str = "free"
) -> list[dict[str, Any]]:
    """Measure each concurrency level once, after one warm-up run."""
    asyncio.run(measure(2, 1, 0.0, rule))  # imports, graph compilation
    return [asyncio.run(measure(claims, c, latency_s, rule)) for c in concurrencies]
