"""Settings of a benchmark run: the bench runs the claim court's and the hallucination debate's methods."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from factcourt.context.claims import ClaimsContext
from factcourt.context.hallucination import HallucinationContext


@dataclass(kw_only=True)
class BenchContext(ClaimsContext, HallucinationContext):
    """Both systems' settings; each method's run takes its own system's part of them."""

    command: ClassVar[str] = "bench"
