"""What a run's tokens and searches cost at a price table (pure arithmetic, no model)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens and per search query."""

    input_per_m: float = 0.15  # gpt-4o-mini
    output_per_m: float = 0.60
    per_search: float = 0.0


def dollars(usage: Mapping[str, int], prices: Prices) -> float:
    """The cost of ``usage`` (its ``input_tokens``, ``output_tokens`` and ``search_calls``)."""
    return (
        usage.get("input_tokens", 0) * prices.input_per_m / 1e6
        + usage.get("output_tokens", 0) * prices.output_per_m / 1e6
        + usage.get("search_calls", 0) * prices.per_search
    )
