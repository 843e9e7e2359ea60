"""``factcourt bench rules``: one text checked under each debate rule, cost per claim side by side."""

from __future__ import annotations

import time
from typing import Any

from factcourt.api.claims import check


def run_rules(text: str, rules: list[str], **settings: Any) -> list[dict[str, Any]]:
    """Check ``text`` once per rule (cache off) and return wall time, calls and tokens per claim."""
    rows = []
    for rule in rules:
        start = time.perf_counter()
        result = check(text, rule=rule, cache=False, **settings).model_dump(mode="json")
        wall = time.perf_counter() - start
        claims = result["claims"]
        n = len(claims) or 1
        rows.append(
            {
                "rule": rule,
                "claims": len(claims),
                "wall_s": round(wall, 1),
                "clerk_calls": result["usage"]["by_role"].get("clerk", {}).get("calls", 0),
                "calls_per_claim": round(sum(c["usage"]["calls"] for c in claims) / n, 2),
                "input_tokens_per_claim": round(sum(c["usage"]["input_tokens"] for c in claims) / n),
                "output_tokens_per_claim": round(sum(c["usage"]["output_tokens"] for c in claims) / n),
                "searches_per_claim": round(result["usage"]["search_calls"] / n, 2),
                "verdicts": [c["verdict"] for c in claims],
            }
        )
    return rows
